/**
 * `operant server`'s own entry (src/server-main.ts) reads a command line made
 * of the server's options exactly as commander does (same flags, same
 * defaults, the last of a repeated option), and declines every other one, which
 * the full command then answers with commander's help or error.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseServerArgs } from '../src/server-main.js';
import { buildProgram } from '../src/program.js';
import { optionName, serverOptions } from '../src/commands/server-options.js';

/** The options commander passes to the server command's action for `operant server <args>`. */
async function commanderFlags(args: string[]): Promise<unknown> {
  const program = buildProgram();
  const server = program.commands.find((c) => c.name() === 'server')!;
  let got: unknown;
  server.action((opts: unknown) => {
    got = { ...(opts as object) };
  });
  await program.parseAsync(['node', 'operant', 'server', ...args]);
  return got;
}

describe('operant server without commander', () => {
  const taken = [
    [],
    ['--port', '0'],
    ['--port=8080', '--host', '0.0.0.0'],
    ['--data-dir', '/tmp/data', '--kubeconfig', 'kc'],
    ['--data-dir=/tmp/a=b'],
    ['--port', '1', '--port', '2'],
    ['--controllers', '*,-deployment', '--time-scale', '10', '--time-anchor', '1700000000000'],
    ['--port', 'abc'],
  ];
  for (const args of taken) {
    it(`reads ${JSON.stringify(args)} as commander does`, async () => {
      const flags = parseServerArgs(args);
      assert.ok(flags);
      assert.deepEqual(flags, await commanderFlags(args));
    });
  }

  it('knows every option of the server command, with its default', async () => {
    const server = buildProgram().commands.find((c) => c.name() === 'server')!;
    assert.deepEqual(
      server.options.map((o) => [o.flags, o.description, o.defaultValue]),
      serverOptions.map((o) => [o.flags, o.description, o.default]),
    );
    for (const option of serverOptions.filter((o) => o.key !== 'nodes')) {
      assert.equal(parseServerArgs([optionName(option), 'x'])?.[option.key], 'x');
    }
  });

  const declined = [['--nodes', '3'], ['--nodes=0'], ['--help'], ['-h'], ['--port'], ['--port='], ['--port', '-1'], ['--host', '--port'], ['--bogus', '1'], ['extra'], ['--']];
  for (const args of declined) {
    it(`leaves ${JSON.stringify(args)} to commander`, () => {
      assert.equal(parseServerArgs(args), undefined);
    });
  }
});

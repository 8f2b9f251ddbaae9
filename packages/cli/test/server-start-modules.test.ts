/**
 * What `operant server` loads of Node before `ready`: each of Node's modules is
 * compiled and run at every start, so one the start does not use is left to
 * the moment it is needed. The real CLI runs with a preload that stops it at
 * the `ready` line and reports process.moduleLoadList then.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const cliMain = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'operant.js');
const dir = mkdtempSync(join(tmpdir(), 'operant-start-modules-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Node's modules and bindings loaded when `operant server` (in memory) prints `ready`. */
function modulesAtReady(): string[] {
  const preload = join(dir, 'at-ready.cjs');
  writeFileSync(
    preload,
    `const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  if (String(chunk).startsWith('ready ')) {
    write(JSON.stringify(process.moduleLoadList) + '\\n');
    process.exit(0);
  }
  return write(chunk, ...rest);
};
`,
  );
  const r = spawnSync(process.execPath, ['-r', preload, cliMain, 'server', '--port', '0', '--kubeconfig', join(dir, 'kubeconfig')], {
    encoding: 'utf8',
    env: { ...process.env, XDG_CACHE_HOME: join(dir, 'cache') },
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as string[];
}

it('starts without node:v8, which only the idle reclaimer uses, at its first collection', () => {
  const loaded = modulesAtReady();
  // The start does load Node's HTTPS stack: the list is the one the preload sees.
  assert.ok(loaded.includes('NativeModule https'), loaded.join(', '));
  assert.deepEqual(
    loaded.filter((m) => m === 'NativeModule v8' || m === 'NativeModule internal/heap_utils'),
    [],
  );
});

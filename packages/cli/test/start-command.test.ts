/**
 * `operant start` (runStart): the embedded server with its data under
 * `--dir`, a kubeconfig beside it and kubectl commands to try; SIGTERM stops
 * it (exit 0), and started again on the same directory it serves what was
 * written before, at a new port the kubeconfig follows.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import type { ServerProcess } from './harness.js';
import { Client } from './https-client.js';

const cliMain = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'operant.js');
const work = mkdtempSync(join(tmpdir(), 'operant-start-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** `operant start --dir DIR`, run in `cwd` and awaited until it has printed everything up to Ctrl-C. */
async function start(cwd: string, dir: string): Promise<ServerProcess & { printed: string }> {
  const child = spawn(process.execPath, [cliMain, 'start', '--dir', dir], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = once(child, 'exit');
  let printed = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      printed += d.toString();
      const ready = /^ready (\S+)$/m.exec(printed);
      if (ready && printed.includes('Press Ctrl-C to stop.\n')) resolve(ready[1]!);
    });
    child.once('exit', (code) => reject(new Error(`operant start exited with ${code} before it was ready: ${stderr}`)));
  });
  return {
    url,
    dir: join(cwd, dir),
    kubeconfig: join(cwd, dir, 'kubeconfig'),
    child,
    printed,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      return code;
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

test('operant start serves from --dir, says what to try, stops on SIGTERM and keeps its data for the next start', async () => {
  const first = await start(work, '.operant');
  const client = new Client(first);
  try {
    assert.match(first.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    for (const line of [
      `The embedded Kubernetes API server is running; its data lives in ${join('.operant', 'data')}.`,
      `  kubectl --kubeconfig ${join('.operant', 'kubeconfig')} get namespaces`,
      `  KUBECONFIG=${first.kubeconfig} npm start -w examples/sample-controller`,
    ]) {
      assert.ok(first.printed.split('\n').includes(line), `prints ${JSON.stringify(line)}:\n${first.printed}`);
    }
    assert.ok(existsSync(join(first.dir, 'data')), 'the data directory is under --dir');
    assert.equal(statSync(first.kubeconfig).mode & 0o077, 0, 'the kubeconfig (it holds the admin token) is for its owner only');
    const created = await client.send('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kept' } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
  } finally {
    client.close();
    assert.equal(await first.stop(), 0, `exit code after SIGTERM; stderr: ${first.stderr()}`);
  }

  const second = await start(work, '.operant');
  const again = new Client(second);
  try {
    const kept = await again.send('GET', '/api/v1/namespaces/kept');
    assert.equal(kept.status, 200, 'the namespace written before the restart is served');
    assert.equal(kept.body.status.phase, 'Active');
  } finally {
    again.close();
    assert.equal(await second.stop(), 0);
  }
});

/**
 * `operant server --etcd-compaction-interval`: kube-apiserver's flag, a Go
 * duration (Go's own parse and error texts), 0 for never; anything else fails
 * the start before the server opens its storage. A --kubeconfig path it cannot
 * write fails the start naming it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';
import { parseCompactionInterval } from '../src/commands/server.js';

const cliMain = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'operant.js');

it('reads Go durations, and 0 as never', async () => {
  assert.equal(await parseCompactionInterval('5m0s'), 300_000);
  assert.equal(await parseCompactionInterval('1m30s'), 90_000);
  assert.equal(await parseCompactionInterval('250ms'), 250);
  assert.equal(await parseCompactionInterval('0'), 0);
});

it('refuses what Go refuses, with its text, and negative intervals', async () => {
  await assert.rejects(parseCompactionInterval('30'), { message: '--etcd-compaction-interval: time: missing unit in duration "30"' });
  await assert.rejects(parseCompactionInterval('5 minutes'), { message: '--etcd-compaction-interval: time: unknown unit " minutes" in duration "5 minutes"' });
  await assert.rejects(parseCompactionInterval('-1s'), { message: '--etcd-compaction-interval: invalid duration "-1s": must not be negative' });
});

it('the real CLI fails to start on a bad interval, saying why', () => {
  const r = spawnSync(process.execPath, [cliMain, 'server', '--port', '0', '--etcd-compaction-interval', '10'], { encoding: 'utf8' });
  assert.equal(r.status, 1);
  assert.equal(r.stderr.trim(), 'error: --etcd-compaction-interval: time: missing unit in duration "10"');
});

it("refuses the simulated cluster's flags without --nodes, instead of ignoring them", () => {
  const r = spawnSync(process.execPath, [cliMain, 'server', '--port', '0', '--controllers', '*,-deployment', '--time-scale', '60'], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.status, 1);
  assert.equal(r.stderr.trim(), 'error: --controllers, --time-scale: only with --nodes (the simulated cluster); without it the server runs no controllers');
  const anchor = spawnSync(process.execPath, [cliMain, 'server', '--port', '0', '--time-anchor', '0'], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(anchor.status, 1);
  assert.match(anchor.stderr, /^error: --time-anchor: only with --nodes/);
});

it('a --kubeconfig path it cannot write fails the start naming it, at once: never a hang, no temporary left', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'operant-server-kubeconfig-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'file');
  writeFileSync(file, '');
  const refused = (path: string, line: string): void => {
    const r = spawnSync(process.execPath, [cliMain, 'server', '--port', '0', '--kubeconfig', path], { encoding: 'utf8', timeout: 20_000 });
    assert.deepEqual({ status: r.status, stdout: r.stdout, stderr: r.stderr }, { status: 1, stdout: '', stderr: `${line}\n` }, `--kubeconfig ${path}`);
  };
  refused(join(file, 'kubeconfig'), `error: cannot write the kubeconfig ${join(file, 'kubeconfig')}: ${file} is not a directory`);
  refused(dir, `error: cannot write the kubeconfig ${dir}: ${dir} is a directory`);
  // Node's recursive mkdir looped forever here, synchronously: the server froze after it started listening.
  refused('/proc/operant/kubeconfig', 'error: cannot write the kubeconfig /proc/operant/kubeconfig: cannot create /proc/operant: no such file or directory');
  assert.deepEqual(readdirSync(dir), ['file']);
});

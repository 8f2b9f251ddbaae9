/**
 * `operant chaos` (the real CLI) on bad flags: each is refused in one line
 * that names the flag, exit 1, at once: never a hang (a mean gap of 0 looped
 * forever), a timer that fires at once (a duration or latency past the longest
 * timer), or a value silently dropped (`error:500:503` took the last code).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const cli = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'cli', 'bin', 'operant.js');

/** `operant chaos <args>` to its end (a hang fails at the timeout). */
function chaos(args: string[], cwd?: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, 'chaos', ...args], { encoding: 'utf8', timeout: 15_000, cwd });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function assertRefused(args: string[], line: string, cwd?: string): void {
  const r = chaos(args, cwd);
  assert.deepEqual({ status: r.status, stderr: r.stderr }, { status: 1, stderr: `${line}\n` }, `operant chaos ${args.join(' ')}`);
}

test('durations out of range are refused, naming the flag', () => {
  assertRefused(['--plan', '--duration', '0'], 'error: --duration: invalid duration "0": must be at least 1ms');
  assertRefused(['--plan', '--duration', '99999999h'], 'error: --duration: invalid duration "99999999h": must be at most 2147483647ms (about 596h)');
  assertRefused(['--plan', '--mean-gap', '0'], 'error: --mean-gap: invalid duration "0": must be at least 1ms');
  assertRefused(['--plan', '--mean-gap', '0s'], 'error: --mean-gap: invalid duration "0s": must be at least 1ms');
  assertRefused(['--plan', '--mean-gap', '0.001ms', '--duration', '1h'], 'error: --mean-gap: invalid duration "0.001ms": must be at least 1ms');
});

test('--faults: an option given twice, a latency past the longest timer; empty scope lists', () => {
  assertRefused(['--plan', '--faults', 'error:500:503'], 'error: --faults: "error:500:503": "503" sets the code a second time');
  assertRefused(['--plan', '--faults', 'delete-pod:app=web:tier=db'], 'error: --faults: "delete-pod:app=web:tier=db": "tier=db" sets the label selector a second time');
  assertRefused(['--plan', '--faults', 'latency:99999999999999999999'], 'error: --faults: "latency:99999999999999999999": a latency of at most 2147483647 ms');
  assertRefused(['--plan', '--namespaces', ','], 'error: --namespaces: empty list ",": name at least one, or leave the flag out');
  assertRefused(['--plan', '--verbs', ''], 'error: --verbs: empty list "": name at least one, or leave the flag out');
});

test('--listen on a busy port or an address not here, --write-kubeconfig where no file can be: refused, naming the flag', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'operant-chaos-flags-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // The proxy does not reach its upstream before a client asks: any server address does.
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n',
  );
  const busy = createServer();
  busy.listen(0, '127.0.0.1');
  await once(busy, 'listening');
  t.after(() => busy.close());
  const port = (busy.address() as { port: number }).port;
  const run = ['--kubeconfig', kubeconfig, '--exit', '--duration', '1s'];
  assertRefused([...run, '--listen', `127.0.0.1:${port}`], `error: --listen 127.0.0.1:${port}: address already in use`, dir);
  assertRefused([...run, '--listen', '192.0.2.1:0'], 'error: --listen 192.0.2.1:0: address not available on this machine', dir);

  // A kubeconfig that is not YAML: one line, the file and the position (as kubectl's 'yaml: line N: ...').
  const broken = join(dir, 'broken-kubeconfig');
  writeFileSync(broken, 'apiVersion: v1\nclusters:\n- name: c\n  bad: [\n');
  assertRefused(
    ['--kubeconfig', broken, '--exit', '--duration', '1s'],
    `error: kubeconfig ${broken}: not valid YAML at line 5, column 1: Flow sequence in block collection must be sufficiently indented and end with a ]`,
    dir,
  );

  const file = join(dir, 'file');
  writeFileSync(file, '');
  assertRefused([...run, '--write-kubeconfig', join(file, 'kubeconfig')], `error: --write-kubeconfig: cannot write the kubeconfig ${join(file, 'kubeconfig')}: ${file} is not a directory`, dir);
  assertRefused([...run, '--write-kubeconfig', dir], `error: --write-kubeconfig: cannot write the kubeconfig ${dir}: ${dir} is a directory`, dir);
  // Node's recursive mkdir looped forever here.
  assertRefused([...run, '--write-kubeconfig', '/proc/operant/kubeconfig'], 'error: --write-kubeconfig: cannot write the kubeconfig /proc/operant/kubeconfig: cannot create /proc/operant: no such file or directory', dir);
  const dangling = join(dir, 'dangling');
  symlinkSync(join(dir, 'unmounted'), dangling);
  assertRefused([...run, '--write-kubeconfig', join(dangling, 'kubeconfig')], `error: --write-kubeconfig: cannot write the kubeconfig ${join(dangling, 'kubeconfig')}: ${dangling} is not a directory`, dir);
  // The temporary that held the token did not stay behind (beside the directory it could not replace).
  assert.deepEqual(readdirSync(dirname(dir)).filter((name) => name.startsWith(`${dir.slice(dirname(dir).length + 1)}.`)), []);
});

/**
 * Leader election between real processes: two replicas of a manager against
 * the embedded server; only one leads; when it is killed with SIGKILL (no
 * release) the other leads once the Lease (3 s) has expired; when the leader is
 * stopped with SIGTERM it releases the Lease and the other leads at once.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startApiServer, type RunningApiServer } from '@operant/apiserver';

const script = join(dirname(fileURLToPath(import.meta.url)), 'testdata', 'elected-process.ts');
let server: RunningApiServer;
let dir: string;
let kubeconfig: string;

before(async () => {
  server = await startApiServer({ port: 0 });
  dir = mkdtempSync(join(tmpdir(), 'leader-processes-'));
  kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, server.kubeconfig);
});

after(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A replica process, whose output lines can be awaited. */
class Replica {
  readonly child: ChildProcess;
  private output = '';
  private waiters: Array<() => void> = [];

  constructor(lease: string, readonly identity: string) {
    this.child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', script, lease, kubeconfig, identity], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    this.child.stdout!.on('data', (d: Buffer) => {
      this.output += d.toString();
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  get leading(): boolean {
    return this.output.includes(`leading ${this.identity}\n`);
  }

  /** Resolves when the replica prints `line`; rejects if it exits first. */
  async printed(line: string): Promise<number> {
    while (!this.output.includes(`${line}\n`)) {
      if (this.child.exitCode !== null || this.child.signalCode !== null) throw new Error(`${this.identity} exited before printing ${line}`);
      await Promise.race([new Promise<void>((r) => this.waiters.push(r)), once(this.child, 'exit')]);
    }
    return performance.now();
  }
}

describe('leader election between processes', () => {
  test('the leader killed with SIGKILL is replaced after the lease expires; one stopped with SIGTERM at once', { timeout: 30_000 }, async () => {
    const a = new Replica('replicas', 'replica-a');
    await a.printed('leading replica-a');
    const b = new Replica('replicas', 'replica-b');
    const c = new Replica('replicas', 'replica-c');
    try {
      // b and c are running and campaigning: give them a few retry periods to (wrongly) lead.
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(b.leading || c.leading, false, 'only one replica leads');

      const killedAt = performance.now();
      a.child.kill('SIGKILL');
      const next = await Promise.race([b.printed('leading replica-b').then(() => b), c.printed('leading replica-c').then(() => c)]);
      const takeoverMs = performance.now() - killedAt;
      assert.ok(takeoverMs >= 2500, `took over after ${takeoverMs.toFixed(0)} ms, before the 3 s lease could expire`);
      assert.ok(takeoverMs < 5000, `took over after ${takeoverMs.toFixed(0)} ms, well past the lease duration`);
      const other = next === b ? c : b;
      assert.equal(other.leading, false, 'only one replica leads after the takeover');

      const stoppedAt = performance.now();
      next.child.kill('SIGTERM');
      await next.printed('stopped');
      const handoverMs = (await other.printed(`leading ${other.identity}`)) - stoppedAt;
      assert.ok(handoverMs < 1500, `a released lease is taken at once, not after it expires (took ${handoverMs.toFixed(0)} ms)`);
    } finally {
      for (const r of [a, b, c]) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
    }
  });
});

/**
 * Leader election between real processes: replicas of a manager against
 * the embedded server; only one leads; when it is killed with SIGKILL (no
 * release) the other leads once the Lease (3 s) has expired; when the leader is
 * stopped with SIGTERM it releases the Lease and the other leads at once.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestEnv } from '@operant/testing';

const script = join(dirname(fileURLToPath(import.meta.url)), 'testdata', 'elected-process.ts');
let env: TestEnv;

before(async () => {
  env = await TestEnv.start();
});

after(() => env?.stop());

/** A replica process, whose output lines can be awaited. */
class Replica {
  readonly child: ChildProcess;
  private partial = '';
  /** Each line printed so far, with when it arrived (`performance.now()`). */
  private readonly lines = new Map<string, number>();
  private waiters: Array<() => void> = [];

  constructor(lease: string, readonly identity: string) {
    this.child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', script, lease, env.kubeconfig.path, identity], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    this.child.stdout!.on('data', (d: Buffer) => {
      const arrived = performance.now();
      const text = this.partial + d.toString();
      const complete = text.split('\n');
      this.partial = complete.pop()!;
      for (const line of complete) if (!this.lines.has(line)) this.lines.set(line, arrived);
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  get leading(): boolean {
    return this.lines.has(`leading ${this.identity}`);
  }

  /** Resolves with when the replica printed `line` (then or earlier); rejects if it exits first. */
  async printed(line: string): Promise<number> {
    for (;;) {
      const arrived = this.lines.get(line);
      if (arrived !== undefined) return arrived;
      if (this.child.exitCode !== null || this.child.signalCode !== null) throw new Error(`${this.identity} exited before printing ${line}`);
      await Promise.race([new Promise<void>((r) => this.waiters.push(r)), once(this.child, 'exit')]);
    }
  }
}

/** The election timing of testdata/elected-process.ts. */
const leaseDurationMs = 3000;
const retryPeriodMs = 100;
/** The longest a candidate waits between attempts (client-go's jitter: 1 to 2.2 retry periods). */
const longestRetryMs = retryPeriodMs * 2.2;
/** Room for requests and scheduling on a loaded machine; well below a lease duration, so waiting out a lease is still caught. */
const slackMs = 1500;

describe('leader election between processes', () => {
  test('the leader killed with SIGKILL is replaced after the lease expires; one stopped with SIGTERM at once', { timeout: 30_000 }, async (t) => {
    const a = new Replica('replicas', 'replica-a');
    await a.printed('leading replica-a');
    const b = new Replica('replicas', 'replica-b');
    const c = new Replica('replicas', 'replica-c');
    try {
      // Each candidate reports the holder once it has read the Lease and declined to take it, however long
      // its start-up took; from then on its lease clock runs, so what follows times the election, not the imports.
      await Promise.all([b.printed('observed replica-a'), c.printed('observed replica-a')]);
      assert.equal(b.leading || c.leading, false, 'only one replica leads');

      const killedAt = performance.now();
      a.child.kill('SIGKILL');
      const [next, ledAt] = await Promise.race([b.printed('leading replica-b').then((at) => [b, at] as const), c.printed('leading replica-c').then((at) => [c, at] as const)]);
      const takeoverMs = ledAt - killedAt;
      // A candidate restarts its clock whenever it sees a renewal, and the last one preceded the kill by
      // about a retry period; it takes over at its first attempt after the lease has run out.
      assert.ok(takeoverMs >= leaseDurationMs - 5 * retryPeriodMs, `took over after ${takeoverMs.toFixed(0)} ms, before the 3 s lease could expire`);
      const latestMs = leaseDurationMs + 2 * longestRetryMs + slackMs;
      assert.ok(takeoverMs < latestMs, `took over after ${takeoverMs.toFixed(0)} ms, more than ${latestMs} ms: well past the lease duration`);
      const other = next === b ? c : b;
      assert.equal(other.leading, false, 'only one replica leads after the takeover');

      next.child.kill('SIGTERM');
      // The replica prints `stopped` after it has released the Lease: time the handover from there.
      const releasedAt = await next.printed('stopped');
      const handoverMs = (await other.printed(`leading ${other.identity}`)) - releasedAt;
      t.diagnostic(`takeover ${takeoverMs.toFixed(0)} ms after SIGKILL, handover ${handoverMs.toFixed(0)} ms after the release`);
      assert.ok(handoverMs < longestRetryMs + slackMs, `a released lease is taken at once, not after it expires (took ${handoverMs.toFixed(0)} ms)`);
    } finally {
      for (const r of [a, b, c]) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
    }
  });
});

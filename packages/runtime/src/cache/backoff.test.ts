import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../workqueue/fake-clock.js';
import { Backoff } from './backoff.js';
import { abortable, sleep } from './abort.js';

describe('Backoff', () => {
  test('doubles from 800 ms to the 30 s cap by default', () => {
    const backoff = new Backoff({}, new FakeClock(), () => 0.5); // 0.5: no jitter
    const delays = Array.from({ length: 8 }, () => backoff.next());
    assert.deepEqual(delays, [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
  });

  test('jitter spreads each delay around its nominal value, never above the cap', () => {
    const low = new Backoff({ initialMs: 1000, maxMs: 4000, jitter: 0.4 }, new FakeClock(), () => 0);
    const high = new Backoff({ initialMs: 1000, maxMs: 4000, jitter: 0.4 }, new FakeClock(), () => 0.999999);
    assert.deepEqual([low.next(), low.next(), low.next(), low.next()], [800, 1600, 3200, 3200]);
    assert.deepEqual([high.next(), high.next(), high.next(), high.next()], [1200, 2400, 4000, 4000]);
    const random = new Backoff({}, new FakeClock());
    for (let i = 0; i < 50; i++) {
      const d = random.next();
      assert.ok(d >= 0 && d <= 30_000);
    }
  });

  test('starts over after a quiet period, and on reset()', () => {
    const clock = new FakeClock();
    const backoff = new Backoff({ initialMs: 100, resetAfterMs: 60_000 }, clock, () => 0.5);
    assert.deepEqual([backoff.next(), backoff.next(), backoff.next()], [100, 200, 400]);
    clock.advance(59_000);
    assert.equal(backoff.next(), 800, 'failures closer than resetAfterMs keep growing');
    clock.advance(60_000);
    assert.equal(backoff.next(), 100, 'a healthy minute resets');
    backoff.next();
    backoff.reset();
    assert.equal(backoff.failures, 0);
    assert.equal(backoff.next(), 100);
  });
});

describe('sleep and abortable', () => {
  test('sleep ends early on abort and leaves no timer', async () => {
    const clock = new FakeClock();
    const ac = new AbortController();
    let done = false;
    const p = sleep(10_000, ac.signal, clock).then(() => (done = true));
    assert.equal(clock.pendingTimers(), 1);
    ac.abort();
    await p;
    assert.equal(done, true);
    assert.equal(clock.pendingTimers(), 0);
  });

  test('sleep resolves when its time comes', async () => {
    const clock = new FakeClock();
    const p = sleep(50, new AbortController().signal, clock);
    clock.advance(50);
    await p;
  });

  test('abortable rejects on abort and absorbs a late rejection', async () => {
    const ac = new AbortController();
    let rejectLate!: (e: Error) => void;
    const never = new Promise<number>((_r, reject) => (rejectLate = reject));
    const p = abortable(never, ac.signal);
    ac.abort(new Error('stopped'));
    await assert.rejects(p, /stopped/);
    rejectLate(new Error('late')); // must not become an unhandled rejection
    assert.equal(await abortable(Promise.resolve(7), new AbortController().signal), 7);
  });
});

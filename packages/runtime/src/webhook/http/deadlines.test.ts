/**
 * Request deadlines kept in one list per budget: each expires once its time is
 * up, in arrival order; a finished one never does; a late rejection of the
 * raced work is ignored as `Promise.race` ignores it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Deadlines, timedOut } from './deadlines.js';

const never = new Promise<never>(() => undefined);

describe('Deadlines', () => {
  test('the work wins when it settles first, and its rejection passes through', async () => {
    const deadlines = new Deadlines();
    const d = deadlines.start(60_000, performance.now());
    assert.equal(await d.race(Promise.resolve('body')), 'body');
    await assert.rejects(d.race(Promise.reject(new Error('read failed'))), /read failed/);
    d.finish();
    deadlines.clear();
  });

  test('deadlines of one budget expire in arrival order; finished ones never', async () => {
    const deadlines = new Deadlines();
    const now = performance.now();
    const finished = deadlines.start(5, now);
    const first = deadlines.start(5, now);
    const second = deadlines.start(5, now + 1);
    finished.finish();
    const order: string[] = [];
    await Promise.all([
      first.race(never).then((r) => order.push(r === timedOut ? 'first' : 'answered')),
      second.race(never).then((r) => order.push(r === timedOut ? 'second' : 'answered')),
    ]);
    assert.deepEqual(order, ['first', 'second']);
    assert.equal(finished.expired, false);
    assert.equal(first.expired, true);
    // Started after its list's timer went: the list is made again and still times out.
    const later = deadlines.start(5, performance.now());
    assert.equal(await later.race(never), timedOut);
  });

  test('a shorter budget expires before a longer one started earlier', async () => {
    const deadlines = new Deadlines();
    const long = deadlines.start(60_000, performance.now());
    const short = deadlines.start(5, performance.now());
    assert.equal(await short.race(never), timedOut);
    assert.equal(long.expired, false);
    long.finish();
    deadlines.clear();
  });

  test('racing after the time is up answers timed out at once; a late rejection is not unhandled', async () => {
    const deadlines = new Deadlines();
    const d = deadlines.start(1, performance.now());
    assert.equal(await d.race(never), timedOut);
    let unhandled = 0;
    const count = (): void => void unhandled++;
    process.on('unhandledRejection', count);
    try {
      let reject!: (err: Error) => void;
      const work = new Promise<string>((_resolve, r) => (reject = r));
      assert.equal(await d.race(work), timedOut);
      reject(new Error('too late'));
      // A rejection left unhandled is reported after the microtasks of its turn.
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(unhandled, 0);
    } finally {
      process.off('unhandledRejection', count);
      d.finish();
    }
  });
});

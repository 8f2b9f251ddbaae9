import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from './fake-clock.js';
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
} from './rate-limiters.js';

describe('ItemExponentialFailureRateLimiter', () => {
  test('defaults double from 5 ms and cap at 1000 s', () => {
    const limiter = new ItemExponentialFailureRateLimiter();
    const delays = Array.from({ length: 30 }, () => limiter.when('a'));
    assert.deepEqual(delays.slice(0, 6), [5, 10, 20, 40, 80, 160]);
    // 5 * 2^17 = 655,360 ms is the last step under the cap.
    assert.equal(delays[17], 655_360);
    assert.ok(delays.slice(18).every((d) => d === 1_000_000));
    assert.equal(limiter.numRequeues('a'), 30);
  });

  test('stays at the cap after very many failures', () => {
    const limiter = new ItemExponentialFailureRateLimiter(5, 1_000_000);
    for (let i = 0; i < 2000; i++) limiter.when('a');
    assert.equal(limiter.when('a'), 1_000_000);
  });

  test('counts per key; forget resets one key', () => {
    const limiter = new ItemExponentialFailureRateLimiter(1, 1000);
    assert.equal(limiter.when('a'), 1);
    assert.equal(limiter.when('a'), 2);
    assert.equal(limiter.when('b'), 1);
    assert.equal(limiter.numRequeues('a'), 2);
    limiter.forget('a');
    assert.equal(limiter.numRequeues('a'), 0);
    assert.equal(limiter.when('a'), 1);
    assert.equal(limiter.when('b'), 2);
  });
});

describe('BucketRateLimiter', () => {
  test('a full burst passes at once, then calls are spaced 1/qps apart', () => {
    const clock = new FakeClock();
    const limiter = new BucketRateLimiter({ qps: 10, burst: 100, clock });
    for (let i = 0; i < 100; i++) assert.equal(limiter.when(`k${i}`), 0);
    assert.equal(limiter.when('x'), 100);
    assert.equal(limiter.when('y'), 200);
    assert.equal(limiter.when('z'), 300);
  });

  test('tokens refill at qps up to the burst', () => {
    const clock = new FakeClock();
    const limiter = new BucketRateLimiter({ qps: 10, burst: 2, clock });
    assert.deepEqual([limiter.when('a'), limiter.when('a'), limiter.when('a')], [0, 0, 100]);
    clock.advance(100); // pays the debt
    assert.equal(limiter.when('a'), 100);
    clock.advance(10_000); // a long idle spell refills only to the burst
    assert.deepEqual([limiter.when('a'), limiter.when('a'), limiter.when('a')], [0, 0, 100]);
  });

  test('defaults are 10 qps and burst 100; per-key methods are no-ops', () => {
    const limiter = new BucketRateLimiter({ clock: new FakeClock() });
    assert.equal(limiter.qps, 10);
    assert.equal(limiter.burst, 100);
    limiter.forget('a');
    assert.equal(limiter.numRequeues('a'), 0);
    assert.throws(() => new BucketRateLimiter({ qps: 0 }), RangeError);
  });
});

describe('MaxOfRateLimiter and the controller default', () => {
  test('the longest delay and the highest count win; forget reaches every limiter', () => {
    const a = new ItemExponentialFailureRateLimiter(1, 1000);
    const b = new ItemExponentialFailureRateLimiter(3, 1000);
    const limiter = new MaxOfRateLimiter(a, b);
    assert.equal(limiter.when('k'), 3);
    assert.equal(limiter.when('k'), 6);
    a.when('k');
    assert.equal(limiter.numRequeues('k'), 3);
    limiter.forget('k');
    assert.equal(a.numRequeues('k'), 0);
    assert.equal(b.numRequeues('k'), 0);
  });

  test('default: per-key backoff until the overall bucket runs dry, then the bucket paces', () => {
    const clock = new FakeClock();
    const limiter = defaultControllerRateLimiter({ clock });
    for (let i = 0; i < 100; i++) assert.equal(limiter.when(`k${i}`), 5);
    assert.equal(limiter.when('k100'), 100);
    assert.equal(limiter.when('k101'), 200);
    // One hot key's backoff outgrows the bucket's pacing.
    clock.advance(60_000);
    const hot = Array.from({ length: 12 }, () => limiter.when('hot'));
    assert.deepEqual(hot.slice(0, 4), [5, 10, 20, 40]);
    assert.equal(hot[11], 10_240);
    assert.equal(limiter.numRequeues('hot'), 12);
  });
});

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from './fake-clock.js';
import { ItemExponentialFailureRateLimiter } from './rate-limiters.js';
import { RateLimitingQueue } from './rate-limiting-queue.js';

describe('RateLimitingQueue', () => {
  test('failures back off 5, 10, 20 ms; forget starts over', async () => {
    const clock = new FakeClock();
    const queue = new RateLimitingQueue({ clock });

    const failOnceAndWait = async (expectedDelay: number) => {
      queue.addRateLimited('a');
      clock.advance(expectedDelay - 1);
      assert.equal(queue.len(), 0, `not before ${expectedDelay} ms`);
      clock.advance(1);
      assert.equal(queue.len(), 1, `at ${expectedDelay} ms`);
      const item = await queue.get();
      queue.done(item.key!);
    };

    await failOnceAndWait(5);
    await failOnceAndWait(10);
    await failOnceAndWait(20);
    assert.equal(queue.numRequeues('a'), 3);
    queue.forget('a');
    assert.equal(queue.numRequeues('a'), 0);
    await failOnceAndWait(5);
  });

  test('uses the rate limiter it is given', () => {
    const clock = new FakeClock();
    const rateLimiter = new ItemExponentialFailureRateLimiter<number>(1000, 1000);
    const queue = new RateLimitingQueue<number>({ clock, rateLimiter });
    queue.addRateLimited(7);
    clock.advance(999);
    assert.equal(queue.len(), 0);
    clock.advance(1);
    assert.equal(queue.len(), 1);
    assert.equal(queue.rateLimiter, rateLimiter);
  });

  test('after shutdown, rate-limited adds are ignored', () => {
    const clock = new FakeClock();
    const queue = new RateLimitingQueue({ clock });
    queue.shutDown();
    queue.addRateLimited('a');
    clock.advance(1000);
    assert.equal(queue.len(), 0);
  });
});

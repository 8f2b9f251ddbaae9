import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as tick } from 'node:timers/promises';
import { DelayingQueue } from './delaying-queue.js';
import { FakeClock } from './fake-clock.js';
import { Priority } from './queue.js';

async function takeAll(queue: DelayingQueue): Promise<string[]> {
  const keys: string[] = [];
  while (queue.len() > 0) {
    const item = await queue.get();
    keys.push(item.key!);
    queue.done(item.key!);
  }
  return keys;
}

describe('DelayingQueue', () => {
  test('keys become available at their due time, earliest first', async () => {
    const clock = new FakeClock();
    const queue = new DelayingQueue({ clock });
    queue.addAfter('c', 30);
    queue.addAfter('a', 10);
    queue.addAfter('b', 20);
    assert.equal(queue.len(), 0);
    clock.advance(9);
    assert.equal(queue.len(), 0);
    clock.advance(1);
    assert.deepEqual(await takeAll(queue), ['a']);
    clock.advance(10);
    assert.deepEqual(await takeAll(queue), ['b']);
    clock.advance(10);
    assert.deepEqual(await takeAll(queue), ['c']);
  });

  test('keys due at the same moment keep the order they were added in', async () => {
    const clock = new FakeClock();
    const queue = new DelayingQueue({ clock });
    for (const key of ['x', 'y', 'z']) queue.addAfter(key, 50);
    clock.advance(50);
    assert.deepEqual(await takeAll(queue), ['x', 'y', 'z']);
  });

  test('a waiting key keeps the earlier due time: a later addAfter cannot postpone it', async () => {
    const clock = new FakeClock();
    const queue = new DelayingQueue({ clock });
    queue.addAfter('a', 100);
    queue.addAfter('a', 500);
    clock.advance(100);
    assert.deepEqual(await takeAll(queue), ['a']);
    clock.advance(1000);
    assert.equal(queue.len(), 0, 'the 500 ms add merged into the first');
  });

  test('an earlier addAfter brings a waiting key forward', async () => {
    const clock = new FakeClock();
    const queue = new DelayingQueue({ clock });
    queue.addAfter('a', 500);
    queue.addAfter('b', 200);
    queue.addAfter('a', 100);
    clock.advance(100);
    assert.deepEqual(await takeAll(queue), ['a']);
    clock.advance(100);
    assert.deepEqual(await takeAll(queue), ['b']);
    clock.advance(1000);
    assert.equal(queue.len(), 0);
  });

  test('one timer, for the earliest key, however many keys wait', () => {
    const clock = new FakeClock();
    const queue = new DelayingQueue({ clock });
    for (let i = 0; i < 1000; i++) queue.addAfter(`k${i}`, 1000 - i);
    assert.equal(clock.pendingTimers(), 1);
    clock.advance(1000);
    assert.equal(queue.len(), 1000);
    assert.equal(clock.pendingTimers(), 0);
  });

  test('a zero or negative delay adds at once; a delayed key merges with a waiting one', () => {
    const clock = new FakeClock();
    const queue = new DelayingQueue({ clock });
    queue.addAfter('a', 0);
    queue.addAfter('b', -5);
    assert.equal(queue.len(), 2);
    queue.addAfter('a', 10);
    clock.advance(10);
    assert.equal(queue.len(), 2);
  });

  test('the priority given to addAfter applies when the key is added', async () => {
    const clock = new FakeClock();
    const queue = new DelayingQueue({ clock });
    queue.add('list', { priority: Priority.low });
    queue.addAfter('retry', 10, { priority: Priority.high });
    clock.advance(10);
    assert.deepEqual(await takeAll(queue), ['retry', 'list']);
  });

  test('delays longer than a Node timer can hold are re-armed, not fired early', () => {
    const clock = new FakeClock();
    const queue = new DelayingQueue({ clock });
    const thirtyDays = 30 * 24 * 3600 * 1000;
    queue.addAfter('a', thirtyDays);
    clock.advance(2 ** 31 - 1);
    assert.equal(queue.len(), 0);
    assert.equal(clock.pendingTimers(), 1);
    clock.advance(thirtyDays - (2 ** 31 - 1));
    assert.equal(queue.len(), 1);
  });

  test('shutdown clears timers and ignores later addAfter', () => {
    const clock = new FakeClock();
    const queue = new DelayingQueue({ clock });
    queue.addAfter('a', 10);
    queue.addAfter('b', 20);
    queue.shutDown();
    assert.equal(clock.pendingTimers(), 0);
    queue.addAfter('c', 5);
    assert.equal(clock.pendingTimers(), 0);
    clock.advance(100);
    assert.equal(queue.len(), 0);
  });

  test('shutDownWithDrain also clears timers', async () => {
    const clock = new FakeClock();
    const queue = new DelayingQueue({ clock });
    queue.addAfter('a', 10);
    await queue.shutDownWithDrain();
    assert.equal(clock.pendingTimers(), 0);
  });

  test('on the real clock, a waiting getter receives the key after its delay', async () => {
    const queue = new DelayingQueue();
    const start = performance.now();
    queue.addAfter('late', 40);
    queue.addAfter('early', 10);
    const first = await queue.get();
    const second = await queue.get();
    const elapsed = performance.now() - start;
    assert.deepEqual([first.key, second.key], ['early', 'late']);
    assert.ok(elapsed >= 39, `took ${elapsed} ms`);
    assert.ok(elapsed < 2000, `took ${elapsed} ms`);
    queue.shutDown();
    await tick();
  });
});

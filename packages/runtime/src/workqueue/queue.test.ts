import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as tick } from 'node:timers/promises';
import { Priority, WorkQueue, type QueueItem } from './queue.js';

/** Takes every waiting key, in order, marking each done. */
async function drainOrder(queue: WorkQueue): Promise<string[]> {
  const keys: string[] = [];
  while (queue.len() > 0) {
    const item = await queue.get();
    assert.equal(item.shutdown, false);
    keys.push(item.key!);
    queue.done(item.key!);
  }
  return keys;
}

describe('WorkQueue', () => {
  test('repeat adds of a waiting key merge into one', async () => {
    const queue = new WorkQueue();
    queue.add('a');
    queue.add('b');
    queue.add('a');
    queue.add('a');
    assert.equal(queue.len(), 2);
    assert.deepEqual(await drainOrder(queue), ['a', 'b']);
  });

  test('a key re-added while processing is held back, then queued once on done', async () => {
    const queue = new WorkQueue();
    queue.add('a');
    const first = await queue.get();
    assert.deepEqual(first, { key: 'a', shutdown: false });
    queue.add('a');
    queue.add('a');
    assert.equal(queue.len(), 0, 'not handed out while a worker holds it');

    let second: QueueItem<string> | undefined;
    void queue.get().then((item) => (second = item));
    await tick();
    assert.equal(second, undefined);

    queue.done('a');
    await tick();
    assert.deepEqual(second, { key: 'a', shutdown: false });
    queue.done('a');
    assert.equal(queue.len(), 0, 'the two re-adds merged into one');
  });

  test('done without a re-add does not queue the key again', async () => {
    const queue = new WorkQueue();
    queue.add('a');
    const item = await queue.get();
    queue.done(item.key!);
    queue.done(item.key!); // a second done is harmless
    assert.equal(queue.len(), 0);
  });

  test('no key is held by two workers at once, and every add is eventually processed', async () => {
    const queue = new WorkQueue();
    const keys = ['a', 'b', 'c', 'd', 'e'];
    const inFlight = new Set<string>();
    const processedAfterLastAdd = new Set<string>();
    let adding = true;
    let violations = 0;
    let seed = 42;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n); // repeatable interleavings

    const worker = async () => {
      for (;;) {
        const item = await queue.get();
        if (item.shutdown) return;
        if (inFlight.has(item.key)) violations++;
        inFlight.add(item.key);
        for (let i = random(3); i >= 0; i--) await tick();
        if (!adding) processedAfterLastAdd.add(item.key);
        inFlight.delete(item.key);
        queue.done(item.key);
      }
    };
    const workers = Array.from({ length: 8 }, worker);

    for (let round = 0; round < 200; round++) {
      queue.add(keys[random(keys.length)]!);
      if (round % 7 === 0) await tick();
    }
    adding = false;
    for (const key of keys) queue.add(key);
    while (processedAfterLastAdd.size < keys.length) await tick();
    await queue.shutDownWithDrain();
    await Promise.all(workers);
    assert.equal(violations, 0);
  });

  test('higher priority first, the initial list (low) last, FIFO within a priority', async () => {
    const queue = new WorkQueue();
    queue.add('list-1', { priority: Priority.low });
    queue.add('list-2', { priority: Priority.low });
    queue.add('event-1');
    queue.add('list-3', { priority: Priority.low });
    queue.add('urgent', { priority: Priority.high });
    queue.add('event-2', { priority: Priority.normal });
    queue.add('custom', { priority: 7 });
    assert.deepEqual(await drainOrder(queue), ['urgent', 'custom', 'event-1', 'event-2', 'list-1', 'list-2', 'list-3']);
  });

  test('a re-add at a higher priority moves a waiting key up; a lower one does not move it down', async () => {
    const queue = new WorkQueue();
    queue.add('a', { priority: Priority.low });
    queue.add('b', { priority: Priority.low });
    queue.add('c');
    queue.add('b'); // an event for an object still waiting from the initial list
    queue.add('c', { priority: Priority.low });
    assert.equal(queue.len(), 3);
    assert.deepEqual(await drainOrder(queue), ['c', 'b', 'a']);
  });

  test('a key re-added while processing is queued at the highest priority it was re-added with', async () => {
    const queue = new WorkQueue();
    queue.add('a');
    const held = await queue.get();
    queue.add('a', { priority: Priority.low });
    queue.add('a', { priority: Priority.high });
    queue.add('b');
    queue.done(held.key!);
    assert.deepEqual(await drainOrder(queue), ['a', 'b']);
  });

  test('waiting getters are served in the order they called, without polling', async () => {
    const queue = new WorkQueue();
    const got: string[] = [];
    const getters = [1, 2, 3].map((n) =>
      queue.get().then((item) => {
        got.push(`${n}:${item.key}`);
      }),
    );
    queue.add('x');
    queue.add('y');
    queue.add('z');
    await Promise.all(getters);
    assert.deepEqual(got, ['1:x', '2:y', '3:z']);
  });

  test('shutDown wakes waiting getters, answers later gets, and ignores new adds', async () => {
    const queue = new WorkQueue();
    const waiting = [queue.get(), queue.get()];
    queue.shutDown();
    assert.deepEqual(await Promise.all(waiting), [
      { key: undefined, shutdown: true },
      { key: undefined, shutdown: true },
    ]);
    queue.add('a');
    assert.equal(queue.len(), 0);
    assert.deepEqual(await queue.get(), { key: undefined, shutdown: true });
    assert.equal(queue.shuttingDown(), true);
  });

  test('shutDownWithDrain resolves only when every in-flight key is done', async () => {
    const queue = new WorkQueue();
    queue.add('a');
    queue.add('b');
    const a = await queue.get();
    const b = await queue.get();
    let drained = false;
    const drain = queue.shutDownWithDrain().then(() => (drained = true));

    assert.deepEqual(await queue.get(), { key: undefined, shutdown: true });
    queue.add('a'); // ignored: no requeue on done
    queue.done(a.key!);
    await tick();
    assert.equal(drained, false);
    queue.done(b.key!);
    await drain;
    assert.equal(drained, true);
    assert.equal(queue.len(), 0);
  });

  test('shutDownWithDrain with nothing in flight resolves at once; shutDown ends a pending drain', async () => {
    await new WorkQueue().shutDownWithDrain();

    const queue = new WorkQueue();
    queue.add('stuck');
    await queue.get();
    const drain = queue.shutDownWithDrain();
    queue.shutDown();
    await drain;
  });

  test('rejects priorities that cannot be ordered', () => {
    const queue = new WorkQueue();
    assert.throws(() => queue.add('a', { priority: Number.NaN }), RangeError);
    assert.throws(() => queue.add('a', { priority: Infinity }), RangeError);
  });

  test('keys of other types', async () => {
    const queue = new WorkQueue<number>();
    queue.add(1);
    queue.add(1);
    queue.add(2);
    const item = await queue.get();
    assert.equal(item.key, 1);
    assert.equal(queue.len(), 1);
  });
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fanOutSliceMinWatchers, MvccStore } from './mvcc-store.js';

/** Holds the thread for `ms`, as a slow watcher (or the machine setting the process aside) would. */
function hold(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/**
 * Writes one object with `watchers` watchers, the first taking `slowMs` to
 * take its event, and a turn of the event loop queued right after the write;
 * returns the order in which the watchers and that turn ran.
 */
async function fanOutOrder(watchers: number, slowMs: number): Promise<string[]> {
  const store = new MvccStore();
  const order: string[] = [];
  const from = store.list('/pods/').revision;
  for (let i = 0; i < watchers; i++) {
    store.watch('/pods/', from, () => {
      if (i === 0) hold(slowMs);
      order.push(`w${i}`);
    });
  }
  store.create('/pods/default/a', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', namespace: 'default' } });
  await new Promise<void>((resolve) => setImmediate(() => (order.push('turn'), resolve())));
  while (order.filter((x) => x !== 'turn').length < watchers) await new Promise((r) => setImmediate(r));
  store.close();
  return order;
}

test('a fan-out round to fewer watchers than a slice serves is not split, even when its slice runs out of time', async () => {
  const order = await fanOutOrder(3, 10);
  assert.deepEqual(order, ['w0', 'w1', 'w2', 'turn']);
});

test('a round to many watchers is still served a slice at a time, letting the turns in between run', async () => {
  const watchers = fanOutSliceMinWatchers + 10;
  const order = await fanOutOrder(watchers, 10);
  const turn = order.indexOf('turn');
  assert.equal(turn, fanOutSliceMinWatchers, `the turn ran after ${turn} watchers`);
  assert.equal(order.length, watchers + 1);
});

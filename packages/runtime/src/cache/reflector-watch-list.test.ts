/**
 * The reflector's watch-list fall back when the list it falls back to fails
 * too (a server restarting, say). client-go's ListAndWatch returns the list's
 * error, and its caller waits a backoff delay before the next round, which
 * tries the watch-list first again: the failure is counted, and nothing is
 * asked of the server until the delay is over.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@operant/apimachinery';
import { FakeClock } from '../workqueue/fake-clock.js';
import { Reflector } from './reflector.js';
import { Store } from './store.js';
import type { ListerWatcher, ListResult, WatchEvent, WatchRequestOptions } from './list-watch.js';
import { silentLogger } from './logger.js';

/** A ListerWatcher whose watch-lists are refused and whose lists fail `failingLists` times, noting each call. */
class FailingSource implements ListerWatcher<KubeObject> {
  readonly calls: string[] = [];

  constructor(private failingLists: number) {}

  async list(): Promise<ListResult<KubeObject>> {
    this.calls.push('list');
    if (this.failingLists-- > 0) throw new Error('connect ECONNREFUSED');
    return { items: [{ metadata: { namespace: 'default', name: 'a', resourceVersion: '7' } }], resourceVersion: '7' };
  }

  watch(): AsyncIterable<WatchEvent<KubeObject>> {
    throw new Error('the reflector should use watchBatches');
  }

  watchBatches(opts: WatchRequestOptions): Promise<void> {
    this.calls.push(opts.sendInitialEvents ? 'watch-list' : 'watch');
    if (opts.sendInitialEvents) return Promise.reject(new Error('connect ECONNREFUSED'));
    // A plain watch lasts until it is stopped.
    return new Promise((resolve) => opts.signal?.addEventListener('abort', () => resolve(), { once: true }));
  }
}

/** Lets the reflector's promise chains run (its awaits need turns of the event loop, not time). */
async function settle(): Promise<void> {
  for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
}

test('a list that fails after a failed watch-list is counted and waits a backoff delay; the next round tries the watch-list again', async () => {
  const clock = new FakeClock();
  const source = new FailingSource(1);
  const reflector = new Reflector({
    name: 'pods',
    listerWatcher: source,
    store: new Store<KubeObject>(),
    onEvent: () => {},
    watchList: true,
    clock,
    random: () => 0.5,
    backoff: { initialMs: 1000, maxMs: 1000 },
    logger: silentLogger,
  });
  const stop = new AbortController();
  const done = reflector.run(stop.signal);
  try {
    await settle();
    // The watch-list was refused, the list failed: no more requests until the delay is over.
    assert.deepEqual(source.calls, ['watch-list', 'list']);
    assert.equal(reflector.stats().errors, 1);
    assert.equal(reflector.stats().lastError, 'connect ECONNREFUSED');
    clock.advance(1000);
    await settle();
    // client-go's next ListAndWatch round: the watch-list first, then (refused again) the list, which now answers.
    assert.deepEqual(source.calls, ['watch-list', 'list', 'watch-list', 'list', 'watch']);
    assert.equal(reflector.hasSynced(), true);
  } finally {
    stop.abort();
    await done;
  }
});

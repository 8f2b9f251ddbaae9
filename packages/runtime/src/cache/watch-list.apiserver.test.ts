/**
 * Informers that sync with a watch-list (kube's WatchList: one watch with
 * sendInitialEvents) against the embedded server, through the runtime's
 * client: the requests made, the store and events they give, and the fall
 * back to a list and a watch when the watch-list fails before its initial
 * events end.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@operant/apimachinery';
import { ConfigMap } from '../builtins.js';
import { ApiError } from '../client/api-error.js';
import { useApiServer } from '../testdata/api-server.js';
import type { ListerWatcher, ListResult, ListWatchOptions, WatchEvent, WatchRequestOptions } from './list-watch.js';
import { Informer } from './informer.js';
import { silentLogger } from './logger.js';

const api = useApiServer();

/** The client's ListerWatcher, with every call noted; `watchBatches` may be replaced to make a watch-list fail. */
class NotingListerWatcher implements ListerWatcher<KubeObject> {
  readonly calls: string[] = [];
  failWatchList: ((opts: WatchRequestOptions, onEvents: (events: WatchEvent<KubeObject>[]) => void) => Promise<void>) | undefined;

  constructor(private readonly inner: ListerWatcher<KubeObject>) {}

  list(opts: ListWatchOptions & { signal?: AbortSignal }): Promise<ListResult<KubeObject>> {
    this.calls.push('list');
    return this.inner.list(opts);
  }

  watch(opts: WatchRequestOptions): AsyncIterable<WatchEvent<KubeObject>> {
    this.calls.push(opts.sendInitialEvents ? 'watch-list' : 'watch');
    return this.inner.watch(opts);
  }

  watchBatches(opts: WatchRequestOptions, onEvents: (events: WatchEvent<KubeObject>[]) => void): Promise<void> {
    this.calls.push(opts.sendInitialEvents ? 'watch-list' : 'watch');
    if (opts.sendInitialEvents && this.failWatchList) return this.failWatchList(opts, onEvents);
    return this.inner.watchBatches!(opts, onEvents);
  }
}

async function configMaps(ns: string, names: string[]): Promise<void> {
  for (const name of names) await api.client.create(ConfigMap, { metadata: { name, namespace: ns }, data: { name } });
}

function names(informer: Informer<KubeObject>): string[] {
  return informer.store
    .list()
    .map((o) => o.metadata.name!)
    .sort();
}

test('a watch-list informer syncs with one request: the existing objects as initial adds, then live events on the same watch', async () => {
  const ns = await api.createNamespace('watch-list');
  await configMaps(ns, ['a', 'b', 'c']);
  const lw = new NotingListerWatcher(api.client.listerWatcher(ConfigMap));
  const informer = new Informer(lw, { namespace: ns, watchList: true, logger: silentLogger });
  const events: string[] = [];
  informer.addEventHandler({
    add: (o, initial) => events.push(`add ${o.metadata.name} ${initial ? 'initial' : 'live'}`),
    update: (_old, o) => events.push(`update ${o.metadata.name}`),
  });
  const stop = new AbortController();
  informer.start(stop.signal);
  try {
    assert.equal(await informer.waitForCacheSync(), true);
    assert.deepEqual(names(informer), ['a', 'b', 'c']);
    assert.deepEqual(events.slice().sort(), ['add a initial', 'add b initial', 'add c initial']);
    assert.ok(Number(informer.stats().resourceVersion) > 0);
    await configMaps(ns, ['d']);
    await api.client.patch(ConfigMap, 'a', { data: { name: 'a2' } }, { namespace: ns, patchType: 'merge' });
    await waitUntil(() => events.length === 5);
    assert.deepEqual(events.slice(3), ['add d live', 'update a']);
    // One request did it all: no list, no second watch.
    assert.deepEqual(lw.calls, ['watch-list']);
  } finally {
    stop.abort();
    await informer.stop();
  }
});

test('a watch-list the server refuses (422, as kube 1.27-1.31 with the WatchList feature off) is followed by a list and a watch, and the informer syncs', async () => {
  const ns = await api.createNamespace('watch-list-refused');
  await configMaps(ns, ['x', 'y']);
  const lw = new NotingListerWatcher(api.client.listerWatcher(ConfigMap));
  lw.failWatchList = async () => {
    throw new ApiError(
      {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
        reason: 'Invalid',
        details: { group: 'meta.k8s.io', kind: 'ListOptions', causes: [{ reason: 'FieldValueForbidden', message: 'Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled', field: 'sendInitialEvents' }] },
        code: 422,
      },
      'GET /api/v1/configmaps',
    );
  };
  const informer = new Informer(lw, { namespace: ns, watchList: true, logger: silentLogger });
  const stop = new AbortController();
  informer.start(stop.signal);
  try {
    assert.equal(await informer.waitForCacheSync(), true);
    assert.deepEqual(names(informer), ['x', 'y']);
    await waitUntil(() => lw.calls.length >= 3);
    assert.deepEqual(lw.calls.slice(0, 3), ['watch-list', 'list', 'watch']);
    // No failure was counted: the fall back is how the informer syncs, not a retry after an error.
    assert.equal(informer.stats().errors, 0);
  } finally {
    stop.abort();
    await informer.stop();
  }
});

test("a watch-list that ends before its initial events' bookmark (a server that ignores sendInitialEvents) is followed by a list and a watch", async () => {
  const ns = await api.createNamespace('watch-list-unended');
  await configMaps(ns, ['p']);
  const lw = new NotingListerWatcher(api.client.listerWatcher(ConfigMap));
  // What an older server sends for a watch from "": the objects as ADDED events, and no bookmark that ends them.
  lw.failWatchList = async (_opts, onEvents) => {
    const { items } = await lw.list({ namespace: ns });
    lw.calls.pop();
    onEvents(items.map((object) => ({ type: 'ADDED', object })));
  };
  const informer = new Informer(lw, { namespace: ns, watchList: true, logger: silentLogger });
  const stop = new AbortController();
  informer.start(stop.signal);
  try {
    assert.equal(await informer.waitForCacheSync(), true);
    assert.deepEqual(names(informer), ['p']);
    assert.deepEqual(lw.calls.slice(0, 2), ['watch-list', 'list']);
  } finally {
    stop.abort();
    await informer.stop();
  }
});

async function waitUntil(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

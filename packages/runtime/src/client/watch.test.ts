/**
 * Watches, the informers' ListerWatcher, client-side throttling and request
 * metrics, against the real embedded API server.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, Status } from '@operant/apimachinery';
import { TestEnv } from '@operant/testing';
import type { WatchEvent } from '../cache/list-watch.js';
import { defineKind } from '../kind.js';
import type { ClientConfig } from '../config/client-config.js';
import { Client } from './client.js';
import { KindListerWatcher } from './lister-watcher.js';
import type { RequestObservation } from './metrics.js';
import { isUnauthorized } from './api-error.js';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}
const ConfigMap = defineKind<ConfigMap>({ group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true });
const Namespace = defineKind({ group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false });

async function collect<T extends KubeObject>(events: AsyncIterable<WatchEvent<T>>, until?: (seen: WatchEvent<T>[]) => boolean): Promise<WatchEvent<T>[]> {
  const seen: WatchEvent<T>[] = [];
  for await (const event of events) {
    seen.push(event);
    if (until?.(seen)) break;
  }
  return seen;
}

/** Creates `count` ConfigMaps, `parallel` at a time. */
async function createMany(client: Client, namespace: string, count: number, parallel = 50): Promise<void> {
  for (let start = 0; start < count; start += parallel) {
    const batch: Promise<unknown>[] = [];
    for (let i = start; i < Math.min(count, start + parallel); i++) {
      batch.push(client.create(ConfigMap, { metadata: { name: `cm-${String(i).padStart(5, '0')}`, namespace }, data: { i: String(i) } }));
    }
    await Promise.all(batch);
  }
}

describe('watch and ListerWatcher against the embedded server', () => {
  let env: TestEnv;
  let config: ClientConfig;
  let client: Client;

  before(async () => {
    env = await TestEnv.start({ server: { bookmarkIntervalMs: 200 } });
    config = env.kubeconfig.config;
    client = env.client;
    for (const name of ['watch', 'paging', 'abort']) await client.create(Namespace, { metadata: { name } });
  });
  after(() => env?.stop());

  test('a watch from a list revision sees ADDED, MODIFIED and DELETED, and ends on the server timeout', async () => {
    const { metadata } = await client.list(ConfigMap, { namespace: 'watch' });
    const started = performance.now();
    const watching = collect(client.watch(ConfigMap, { namespace: 'watch', resourceVersion: metadata.resourceVersion, timeoutSeconds: 2 }));
    const cm = await client.create(ConfigMap, { metadata: { name: 'watched', namespace: 'watch' }, data: { v: '1' } });
    await client.update(ConfigMap, { ...cm, data: { v: '2' } });
    await client.delete(ConfigMap, 'watched', { namespace: 'watch' });
    const events = await watching;
    const elapsed = performance.now() - started;
    assert.deepEqual(
      events.map((e) => [e.type, e.object.metadata.name]),
      [
        ['ADDED', 'watched'],
        ['MODIFIED', 'watched'],
        ['DELETED', 'watched'],
      ],
    );
    assert.deepEqual(events[1].object.data, { v: '2' });
    assert.equal(events[0].object.kind, 'ConfigMap');
    assert.ok(elapsed >= 1900, `ended after ${elapsed} ms, before the 2 s timeout`);
    assert.ok(elapsed < 10_000, `ended after ${elapsed} ms`);
  });

  test('without a resourceVersion the watch starts with ADDED for what exists; breaking out closes it', async () => {
    await client.create(ConfigMap, { metadata: { name: 'existing', namespace: 'watch' } });
    const events = await collect(client.watch(ConfigMap, { namespace: 'watch', fieldSelector: 'metadata.name=existing' }), (seen) => seen.length === 1);
    assert.deepEqual(
      events.map((e) => [e.type, e.object.metadata.name]),
      [['ADDED', 'existing']],
    );
  });

  test('an aborted watch ends quietly; an already-aborted one never connects', async () => {
    const ac = new AbortController();
    const events: WatchEvent<ConfigMap>[] = [];
    const watching = (async () => {
      // Aborted once the event has arrived: the loop must then end without an error or a further event.
      for await (const event of client.watch(ConfigMap, { namespace: 'abort', signal: ac.signal })) {
        events.push(event);
        if (event.type === 'ADDED') ac.abort();
      }
    })();
    await client.create(ConfigMap, { metadata: { name: 'a', namespace: 'abort' } });
    await watching;
    assert.deepEqual(
      events.map((e) => e.type),
      ['ADDED'],
    );
    assert.deepEqual(await collect(client.watch(ConfigMap, { namespace: 'abort', signal: AbortSignal.abort() })), []);
  });

  test('a refused watch throws the ApiError on iteration', async () => {
    const anonymous = Client.fromConfig({ ...config, credentials: { description: 'bad token', credentials: async () => ({ token: 'nope' }) } }, { qps: Infinity });
    try {
      await assert.rejects(collect(anonymous.watch(ConfigMap, { namespace: 'watch' })), (e) => isUnauthorized(e));
    } finally {
      anonymous.close();
    }
  });

  test('the ListerWatcher pages through 1200 items in pages of 500, then watches from the list revision with bookmarks', async () => {
    await createMany(client, 'paging', 1200);
    const observed: RequestObservation[] = [];
    const counted = Client.fromConfig(config, { qps: Infinity, metrics: { observeRequest: (o) => observed.push(o) } });
    try {
      const lw = counted.listerWatcher(ConfigMap);
      const { items, resourceVersion } = await lw.list({ namespace: 'paging' });
      assert.equal(items.length, 1200);
      assert.equal(new Set(items.map((i) => i.metadata.name)).size, 1200);
      assert.equal(items[0].kind, 'ConfigMap');
      assert.ok(resourceVersion);
      assert.equal(observed.length, 3, 'three pages: 500 + 500 + 200');
      assert.ok(observed.every((o) => o.method === 'GET' && o.code === '200'));

      const watching = collect(lw.watch({ namespace: 'paging', resourceVersion, timeoutSeconds: 1 }));
      await client.create(ConfigMap, { metadata: { name: 'after-list', namespace: 'paging' } });
      const events = await watching;
      const changes = events.filter((e) => e.type !== 'BOOKMARK');
      assert.deepEqual(
        changes.map((e) => [e.type, e.object.metadata.name]),
        [['ADDED', 'after-list']],
      );
      const bookmark = events.find((e) => e.type === 'BOOKMARK');
      assert.ok(bookmark, 'a bookmark within the second of watching (server interval 200 ms)');
      assert.ok(Number(bookmark.object.metadata.resourceVersion) >= Number(resourceVersion));
    } finally {
      counted.close();
    }
  });

  test('metadata-only ListerWatcher: PartialObjectMetadata items without data', async () => {
    const lw = client.listerWatcher(ConfigMap, { metadataOnly: true, pageSize: 1000 });
    const { items } = await lw.list({ namespace: 'paging', labelSelector: '' });
    assert.ok(items.length >= 1200);
    assert.equal(items[0].kind, 'PartialObjectMetadata');
    assert.equal((items[0] as KubeObject).data, undefined);
    assert.ok(items[0].metadata.name);
  });
});

describe('history-limited server: expired revisions', () => {
  let env: TestEnv;
  let client: Client;

  before(async () => {
    env = await TestEnv.start({ server: { historyCapacity: 5 } });
    client = env.client;
    await client.create(Namespace, { metadata: { name: 'old' } });
  });
  after(() => env?.stop());

  test('a watch from a compacted revision yields one ERROR event with a 410 Status', async () => {
    const { metadata } = await client.list(ConfigMap, { namespace: 'old' });
    await createMany(client, 'old', 20, 1);
    const events = await collect(client.watch(ConfigMap, { namespace: 'old', resourceVersion: metadata.resourceVersion, timeoutSeconds: 5 }));
    assert.equal(events.length, 1);
    assert.equal(events[0].type, 'ERROR');
    const status = events[0].object as unknown as Status;
    assert.equal(status.code, 410);
  });

  test('the ListerWatcher relists in full when its continue token expires between pages', async () => {
    let pages = 0;
    const lw = new KindListerWatcher<ConfigMap>(ConfigMap, { pageSize: 5 }, {
      list: async (opts) => {
        pages++;
        const page = await client.list(ConfigMap, opts);
        // After the first page, push the snapshot out of the server's history.
        if (pages === 1) for (let i = 0; i < 10; i++) await client.create(ConfigMap, { metadata: { name: `late-${i}`, namespace: 'old' } });
        return page;
      },
      watch: (opts) => client.watch(ConfigMap, opts),
    });
    const { items, resourceVersion } = await lw.list({ namespace: 'old' });
    assert.equal(pages, 3, 'first page, the expired second page, then one unpaged list');
    assert.equal(items.length, 30);
    assert.ok(resourceVersion);
  });
});

describe('client-side throttling and request metrics', () => {
  let env: TestEnv;
  let config: ClientConfig;

  before(async () => {
    env = await TestEnv.start();
    config = env.kubeconfig.config;
  });
  after(() => env?.stop());

  test('qps 5 with burst 1 spaces six requests at least a second apart in total, sequential or concurrent', async () => {
    const observed: RequestObservation[] = [];
    const slow = Client.fromConfig(config, { qps: 5, burst: 1, metrics: { observeRequest: (o) => observed.push(o) } });
    try {
      let started = performance.now();
      for (let i = 0; i < 6; i++) await slow.get(Namespace, 'default');
      assert.ok(performance.now() - started >= 950, `six sequential requests took ${performance.now() - started} ms`);
      await new Promise((r) => setTimeout(r, 250)); // let one token accumulate again
      started = performance.now();
      await Promise.all(Array.from({ length: 6 }, () => slow.get(Namespace, 'default')));
      assert.ok(performance.now() - started >= 950, `six concurrent requests took ${performance.now() - started} ms`);
      assert.ok(observed.filter((o) => o.rateLimiterSeconds > 0).length >= 9);
      assert.ok(observed.every((o) => o.latencySeconds >= o.rateLimiterSeconds));
    } finally {
      slow.close();
    }
  });

  test('the burst goes at once', async () => {
    const observed: RequestObservation[] = [];
    const fast = Client.fromConfig(config, { qps: 1, burst: 10, metrics: { observeRequest: (o) => observed.push(o) } });
    try {
      await Promise.all(Array.from({ length: 10 }, () => fast.get(Namespace, 'default')));
      // Beyond the burst a request would wait for a token, a second apart at 1 qps; within it none waits.
      const waits = observed.map((o) => o.rateLimiterSeconds);
      assert.equal(waits.length, 10);
      assert.ok(waits.every((s) => s < 0.5), `the rate limiter held requests of the burst back: ${waits.map((s) => s.toFixed(3)).join(', ')} s`);
    } finally {
      fast.close();
    }
  });

  test('one observation per request with method, host and code (<error> without a response)', async () => {
    const observed: RequestObservation[] = [];
    const metrics = { observeRequest: (o: RequestObservation) => observed.push(o) };
    const c = Client.fromConfig(config, { qps: Infinity, metrics });
    const down = Client.fromConfig({ ...config, server: 'https://127.0.0.1:1' }, { qps: Infinity, metrics });
    try {
      await c.get(Namespace, 'default');
      await c.get(Namespace, 'missing').catch(() => undefined);
      await c.create(ConfigMap, { metadata: { name: 'm', namespace: 'default' } });
      await down.get(Namespace, 'default').catch(() => undefined);
      const host = new URL(env.server.url).host;
      assert.deepEqual(
        observed.map((o) => [o.method, o.host, o.code]),
        [
          ['GET', host, '200'],
          ['GET', host, '404'],
          ['POST', host, '201'],
          ['GET', '127.0.0.1:1', '<error>'],
        ],
      );
      assert.ok(observed.every((o) => o.latencySeconds > 0 && o.latencySeconds < 5));
    } finally {
      c.close();
      down.close();
    }
  });
});

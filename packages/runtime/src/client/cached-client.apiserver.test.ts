/**
 * The cache-backed client against the embedded API server over HTTPS: cached
 * reads by default and live reads on request, writes to the server, one
 * informer shared with controllers, read-your-own-writes (updates, creates,
 * deletes, and the bounded wait with its live fallback), and the manager's
 * `client`, `apiReader` and cache scoping.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigMap, Pod, Secret } from '../builtins.js';
import { silentLogger } from '../cache/logger.js';
import { CacheNotStartedError, CacheReader, CacheScopeError } from '../cache/reader.js';
import { SharedInformerFactory, type ListerWatcherSource } from '../cache/shared-informers.js';
import { controllerBuilder } from '../controller/builder.js';
import type { ReconcileContext } from '../controller/controller.js';
import { objectPredicate } from '../controller/predicates.js';
import { Manager } from '../manager/manager.js';
import { useApiServer } from '../testdata/api-server.js';
import { CountingSource, RequestCounter } from '../testdata/counting.js';
import { rejection } from '../testdata/rejection.js';
import { ApiError, isNotFound, isStatus } from './api-error.js';
import type { Client } from './client.js';
import type { ObjectClient } from './interfaces.js';

const quietLogger = { ...silentLogger };

const counter = new RequestCounter();
const api = useApiServer({ client: { metrics: counter.metrics } });
const namespace = (): Promise<string> => api.createNamespace(`cached-${process.pid}`);

/** A started factory over `source` and a reader on it; `stop` ends it early, else it ends with the file. */
function startedCache(source: ListerWatcherSource = api.client): { reader: CacheReader; factory: SharedInformerFactory; stop: AbortController } {
  const factory = new SharedInformerFactory(source, { logger: silentLogger });
  const stop = new AbortController();
  factory.startAll(AbortSignal.any([stop.signal, api.signal]));
  return { reader: new CacheReader(factory), factory, stop };
}

/** Resolves once the ConfigMap informer has delivered a change through its watch (so the watch request has been answered). */
async function watchEstablished(reader: CacheReader, ns: string): Promise<void> {
  const ryw = api.client.withCache(reader, { readYourWrites: true });
  await ryw.create(ConfigMap, { metadata: { generateName: 'marker-', namespace: ns, labels: { marker: 'true' } } }).then((m) => ryw.get(ConfigMap, m.metadata.name!, { namespace: ns }));
}

describe('A client with a cache', () => {
  test('reads from the cache by default; live: true and withoutCache() read from the server; writes go to the server', async () => {
    const ns = await namespace();
    await api.client.create(ConfigMap, { metadata: { name: 'a', namespace: ns }, data: { v: '1' } });
    const { reader } = startedCache();
    const cached = api.client.withCache(reader);
    assert.equal(cached.cache, reader);
    assert.equal(api.client.cache, undefined);
    assert.equal(cached.withoutCache().cache, undefined);
    assert.equal(cached.namespace, api.client.namespace);
    await cached.get(ConfigMap, 'a', { namespace: ns }); // starts and syncs the informer
    await watchEstablished(reader, ns);
    const before = counter.total();
    for (let i = 0; i < 10; i++) {
      assert.equal((await cached.get(ConfigMap, 'a', { namespace: ns })).data?.v, '1');
      assert.equal((await cached.list(ConfigMap, { namespace: ns, labelSelector: '!marker' })).items.length, 1);
    }
    assert.equal(counter.total(), before, 'cached reads make no request');
    await cached.get(ConfigMap, 'a', { namespace: ns, live: true });
    assert.equal(counter.total(), before + 1, 'live: true is one GET');
    await cached.withoutCache().list(ConfigMap, { namespace: ns });
    assert.equal(counter.total(), before + 2, 'withoutCache() lists live');
    const posts = counter.count('POST');
    const created = await cached.create(ConfigMap, { metadata: { name: 'b', namespace: ns } });
    assert.equal(counter.count('POST'), posts + 1, 'writes go to the server');
    assert.ok(created.metadata.uid);
    await assert.rejects(cached.list(ConfigMap, { continue: 'token' }), /continue tokens need a live list/);
    // NotFound from the cache is the server's.
    const missing = await rejection(cached.get(ConfigMap, 'missing', { namespace: ns }));
    assert.ok(missing instanceof ApiError && isNotFound(missing));
    assert.equal(missing.message, 'configmaps "missing" not found');
  });

  test('metadata-only reads, cached and live; matchingFields sent live as a field selector', async () => {
    const ns = await namespace();
    await api.client.create(Secret, { metadata: { name: 's', namespace: ns, labels: { a: '1' } }, data: { k: 'dmFsdWU=' } });
    await api.client.create(Pod, { metadata: { name: 'p', namespace: ns }, spec: { nodeName: 'node-7', containers: [{ name: 'c', image: 'nginx' }] } });
    const { reader, factory } = startedCache();
    const cached = api.client.withCache(reader);
    const fromCache = await cached.get(Secret, 's', { namespace: ns, metadataOnly: true });
    const fromServer = await cached.get(Secret, 's', { namespace: ns, metadataOnly: true, live: true });
    assert.equal(fromServer.kind, 'PartialObjectMetadata');
    assert.deepEqual(fromCache.metadata, fromServer.metadata);
    assert.equal((fromServer as { data?: unknown }).data, undefined);
    assert.deepEqual(factory.informers().map((i) => i.name), ['secrets(metadata)']);
    const listed = await api.client.list(Pod, { namespace: ns, matchingFields: { 'spec.nodeName': 'node-7' } });
    assert.deepEqual(listed.items.map((p) => p.metadata.name), ['p']);
    assert.deepEqual((await api.client.list(Pod, { namespace: ns, matchingFields: { 'spec.nodeName': 'node-8' } })).items, []);
  });

  test('informers over a cached client list and watch live', async () => {
    const ns = await namespace();
    await api.client.create(ConfigMap, { metadata: { name: 'x', namespace: ns } });
    const outer = startedCache();
    const cached = api.client.withCache(outer.reader);
    // A second cache whose informers come from the cached client: its lists must not be answered by the first cache.
    const inner = startedCache(cached);
    assert.deepEqual((await inner.reader.list(ConfigMap, { namespace: ns })).items.map((o) => o.metadata.name), ['x']);
    assert.deepEqual(outer.factory.informers(), [], 'the first cache was not consulted');
  });

  test('a controller and cached reads share one informer: one list and one watch per kind', async () => {
    const ns = await namespace();
    const source = new CountingSource(api.client);
    const { reader, factory, stop } = startedCache(source);
    const cached = api.client.withCache(reader);
    let reconciled: (ctx: { client: ObjectClient; data: string | undefined }) => void = () => {};
    const seen = new Promise<{ client: ObjectClient; data: string | undefined }>((resolve) => (reconciled = resolve));
    const controller = controllerBuilder('shared-cm', { client: cached, informers: factory, logger: quietLogger })
      .for(ConfigMap, { predicates: [objectPredicate((o) => o.metadata.namespace === ns)] })
      .reconcile(async (req, ctx: ReconcileContext) => {
        const cm = await ctx.client.get(ConfigMap, req.name, { namespace: req.namespace });
        reconciled({ client: ctx.client, data: cm.data?.v });
      });
    const running = controller.start(stop.signal);
    await api.client.create(ConfigMap, { metadata: { name: 'c', namespace: ns }, data: { v: 'hello' } });
    const ctx = await seen;
    assert.equal(ctx.client, cached, 'the reconcile context carries the cached client');
    assert.equal(ctx.data, 'hello');
    await cached.list(ConfigMap, { namespace: ns });
    await cached.get(ConfigMap, 'c', { namespace: ns });
    assert.deepEqual(factory.informers().map((i) => i.name), ['configmaps']);
    assert.equal(source.lists.get('configmaps'), 1);
    assert.equal(source.watches.get('configmaps'), 1, 'one watch for the controller and the reads');
    stop.abort();
    await running;
  });
});

describe('Read-your-own-writes', () => {
  test('a cached read right after a write returns that write: updates, patches, creates and lists', async () => {
    const ns = await namespace();
    const { reader } = startedCache();
    const ryw = api.client.withCache(reader, { readYourWrites: true });
    await ryw.create(ConfigMap, { metadata: { name: 'cm', namespace: ns }, data: { n: '0' } });
    for (let i = 1; i <= 15; i++) {
      const patched = await ryw.patch(ConfigMap, 'cm', { data: { n: String(i) } }, { namespace: ns });
      const read = await ryw.get(ConfigMap, 'cm', { namespace: ns });
      assert.equal(read.metadata.resourceVersion, patched.metadata.resourceVersion);
      assert.equal(read.data?.n, String(i));
      const updated = await ryw.update(ConfigMap, { ...read, data: { n: `u${i}` } });
      const listed = (await ryw.list(ConfigMap, { namespace: ns })).items.find((o) => o.metadata.name === 'cm');
      assert.equal(listed?.metadata.resourceVersion, updated.metadata.resourceVersion);
    }
    for (let i = 0; i < 10; i++) {
      const created = await ryw.create(ConfigMap, { metadata: { generateName: 'gen-', namespace: ns } });
      const read = await ryw.get(ConfigMap, created.metadata.name!, { namespace: ns });
      assert.equal(read.metadata.uid, created.metadata.uid);
    }
    assert.equal((await ryw.list(ConfigMap, { namespace: ns })).items.length, 11);
  });

  test('after a delete, a cached read no longer finds the object; with a finalizer it shows the deletion', async () => {
    const ns = await namespace();
    const { reader } = startedCache();
    const ryw = api.client.withCache(reader, { readYourWrites: true });
    await ryw.list(ConfigMap, { namespace: ns }); // the informer exists before the writes
    for (let i = 0; i < 10; i++) {
      await ryw.create(ConfigMap, { metadata: { name: `d${i}`, namespace: ns } });
      await ryw.delete(ConfigMap, `d${i}`, { namespace: ns });
      assert.ok(isNotFound(await rejection(ryw.get(ConfigMap, `d${i}`, { namespace: ns }))));
      assert.deepEqual((await ryw.list(ConfigMap, { namespace: ns })).items, []);
    }
    await ryw.create(ConfigMap, { metadata: { name: 'held', namespace: ns, finalizers: ['example.com/hold'] } });
    const deleting = await ryw.delete(ConfigMap, 'held', { namespace: ns });
    assert.ok(!isStatus(deleting), 'the object stays while its finalizer does');
    const read = await ryw.get(ConfigMap, 'held', { namespace: ns });
    assert.ok(read.metadata.deletionTimestamp, 'the cache shows the deletion in progress');
    await ryw.patch(ConfigMap, 'held', { metadata: { finalizers: null } }, { namespace: ns });
    assert.ok(isNotFound(await rejection(ryw.get(ConfigMap, 'held', { namespace: ns }))), 'gone once the finalizer is removed');
  });

  test('when the cache cannot catch up the read waits (bounded) and reads live; without the option the stale cache answers', async () => {
    const ns = await namespace();
    const { reader, factory } = startedCache();
    const plain = api.client.withCache(reader);
    const ryw = api.client.withCache(reader, { readYourWrites: { timeoutMs: 300 } });
    const original = await ryw.create(ConfigMap, { metadata: { name: 'cm', namespace: ns }, data: { v: 'old' } });
    assert.equal((await ryw.get(ConfigMap, 'cm', { namespace: ns })).metadata.resourceVersion, original.metadata.resourceVersion);
    // A cache that has stopped following the server: it stays at what it had.
    await factory.stopAll();
    const written = await ryw.patch(ConfigMap, 'cm', { data: { v: 'new' } }, { namespace: ns });
    assert.equal((await plain.get(ConfigMap, 'cm', { namespace: ns })).metadata.resourceVersion, original.metadata.resourceVersion, 'no read-your-writes: stale');
    const gets = counter.count('GET');
    const started = performance.now();
    const read = await ryw.get(ConfigMap, 'cm', { namespace: ns });
    const waited = performance.now() - started;
    assert.equal(read.metadata.resourceVersion, written.metadata.resourceVersion, 'read-your-writes: the write');
    assert.equal(read.data?.v, 'new');
    assert.ok(waited >= 250, `waited for the cache first (${waited.toFixed(0)} ms)`);
    assert.equal(counter.count('GET'), gets + 1, 'then read live');
    // The caller's signal ends the wait.
    await ryw.patch(ConfigMap, 'cm', { data: { v: 'newer' } }, { namespace: ns });
    const aborted = await rejection(ryw.get(ConfigMap, 'cm', { namespace: ns, signal: AbortSignal.timeout(50) }));
    assert.equal((aborted as Error).name, 'TimeoutError');
  });
});

describe('The manager client', () => {
  test('mgr.client reads from the shared cache, mgr.apiReader reads live, controllers get the cached client, byKind scopes the cache', async () => {
    const [ns, other] = [await namespace(), await namespace()];
    await api.client.create(Secret, { metadata: { name: 's', namespace: ns } });
    await api.client.create(Secret, { metadata: { name: 's', namespace: other } });
    const mgr = await Manager.create({
      kubeconfig: { kubeconfigText: api.server.kubeconfig },
      logger: quietLogger,
      client: { qps: Infinity, readYourWrites: true },
      cache: { byKind: [{ kind: Secret, namespace: ns }] },
    });
    assert.equal(mgr.client.cache, mgr.cache);
    assert.equal(mgr.apiReader.cache, undefined);
    await assert.rejects(mgr.client.get(ConfigMap, 'x', { namespace: ns }), CacheNotStartedError);
    assert.equal((await mgr.apiReader.get(Secret, 's', { namespace: other })).metadata.namespace, other, 'apiReader is live, unscoped');
    let reconciledWith: ObjectClient | undefined;
    let reconciled: () => void = () => {};
    const done = new Promise<void>((resolve) => (reconciled = resolve));
    mgr
      .controller('mgr-cm')
      .for(ConfigMap, { predicates: [objectPredicate((o) => o.metadata.namespace === ns)] })
      .reconcile(async (req, ctx) => {
        await ctx.client.get(ConfigMap, req.name, { namespace: req.namespace });
        reconciledWith = ctx.client;
        reconciled();
      });
    const ac = new AbortController();
    const run = mgr.start(ac.signal);
    try {
      await mgr.elected();
      const created = await mgr.client.create(ConfigMap, { metadata: { name: 'cm', namespace: ns }, data: { a: '1' } });
      assert.equal((await mgr.client.get(ConfigMap, 'cm', { namespace: ns })).metadata.resourceVersion, created.metadata.resourceVersion);
      await done;
      assert.equal(reconciledWith, mgr.client);
      assert.equal(mgr.informers.informers().filter((i) => i.name === 'configmaps').length, 1, 'the controller and mgr.client share the informer');
      assert.equal((await mgr.client.get(Secret, 's', { namespace: ns })).metadata.namespace, ns);
      const outside = await rejection(mgr.client.get(Secret, 's', { namespace: other }));
      assert.ok(outside instanceof CacheScopeError);
      assert.equal(outside.message, `unable to get: ${other}/s because of unknown namespace for the cache`);
      assert.equal((await mgr.client.get(Secret, 's', { namespace: other, live: true })).metadata.namespace, other, 'live reads are not scoped');
    } finally {
      ac.abort();
      await run;
    }
  });
});

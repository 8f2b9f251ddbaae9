/**
 * The cache reader against the embedded API server over HTTPS: reads answered
 * from shared informers without requests, kube's NotFound, field indexes
 * (namespaced and all-namespace lookups, added before or after the start),
 * field and label selectors, copies, metadata-only reads, per-kind scoping,
 * and waiting for sync.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@operant/apimachinery';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import { ConfigMap, Deployment, Pod, Secret, type Typed } from '../builtins.js';
import { ApiError, isNotFound } from '../client/api-error.js';
import { Client } from '../client/client.js';
import { defineKind } from '../kind.js';
import { NoKindMatchError } from '../no-kind-match.js';
import { useApiServer } from '../testdata/api-server.js';
import { CountingSource, RequestCounter } from '../testdata/counting.js';
import { rejection } from '../testdata/rejection.js';
import { scriptedServer, statusBody } from '../testdata/scripted-server.js';
import type { Informer } from './informer.js';
import { silentLogger } from './logger.js';
import { CacheNotStartedError, CacheReader, CacheScopeError } from './reader.js';
import { SharedInformerFactory, type SharedInformerFactoryOptions } from './shared-informers.js';

type PodObject = Typed<corev1.Pod>;
const Widget = defineKind({ group: 'example.com', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true });

const counter = new RequestCounter();
const api = useApiServer({ client: { metrics: counter.metrics } });
const namespace = (): Promise<string> => api.createNamespace(`reader-${process.pid}`);

/** A started factory over the live client and a reader on it. */
function startedReader(options: SharedInformerFactoryOptions = {}): { reader: CacheReader; factory: SharedInformerFactory; source: CountingSource } {
  const source = new CountingSource(api.client);
  const factory = new SharedInformerFactory(source, { logger: silentLogger, ...options });
  factory.startAll(api.signal);
  return { reader: new CacheReader(factory), factory, source };
}

function pod(ns: string, name: string, nodeName: string, labels: Record<string, string> = {}): PodObject {
  return { metadata: { name, namespace: ns, labels }, spec: { nodeName, containers: [{ name: 'app', image: 'nginx' }] } };
}

const names = (items: KubeObject[]): string[] => items.map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`);

describe('CacheReader over HTTPS against the embedded server', () => {
  test('get and list are answered from the cache: equal to live reads, no requests after the first sync', async () => {
    const ns = await namespace();
    for (const n of ['b', 'a', 'c']) await api.client.create(ConfigMap, { metadata: { name: n, namespace: ns, labels: { app: n === 'c' ? 'other' : 'web' } }, data: { n } });
    const { reader, source } = startedReader();
    // The first read starts the informer and waits for it to sync.
    const a = await reader.get(ConfigMap, 'a', { namespace: ns });
    assert.deepEqual(a, await api.client.get(ConfigMap, 'a', { namespace: ns }));
    // Once a change has come through the watch, its request has been answered (and counted).
    const marked = delivered(reader.informerOf(ConfigMap, false), (o) => o.metadata.name === 'c' && o.metadata.labels?.seen === 'yes');
    await api.client.patch(ConfigMap, 'c', { metadata: { labels: { seen: 'yes' } } }, { namespace: ns });
    await marked;
    const before = { gets: counter.count('GET'), all: counter.total() };
    for (let i = 0; i < 20; i++) {
      await reader.get(ConfigMap, 'b', { namespace: ns });
      await reader.list(ConfigMap, { namespace: ns });
    }
    const list = await reader.list(ConfigMap, { namespace: ns });
    assert.equal(counter.count('GET'), before.gets, 'no GET after the informer synced');
    assert.equal(counter.total(), before.all, 'no request at all');
    assert.deepEqual(names(list.items), [`${ns}/a`, `${ns}/b`, `${ns}/c`], 'sorted like the server sorts');
    assert.equal(list.kind, 'ConfigMapList');
    assert.equal(list.apiVersion, 'v1');
    assert.ok(list.metadata.resourceVersion, 'the revision the cache is current as of');
    assert.deepEqual(list.items, (await api.client.list(ConfigMap, { namespace: ns })).items);
    assert.equal(source.lists.get('configmaps'), 1);
    assert.equal(source.watches.get('configmaps'), 1);
    // limit truncates (the cache has no pages).
    assert.deepEqual(names((await reader.list(ConfigMap, { namespace: ns, limit: 2 })).items), [`${ns}/a`, `${ns}/b`]);
    // unordered: the same items, the sort skipped (here the cache's order: b, a, c as created).
    assert.deepEqual(names((await reader.list(ConfigMap, { namespace: ns, unordered: true })).items).sort(), names(list.items));
    assert.deepEqual(names((await reader.list(ConfigMap, { namespace: ns, unordered: true, labelSelector: { app: 'web' } })).items).sort(), [`${ns}/a`, `${ns}/b`]);
  });

  test('a missing object rejects with the NotFound ApiError a live get gives, in kube words', async () => {
    const ns = await namespace();
    const { reader } = startedReader();
    const cached = await rejection(reader.get(ConfigMap, 'missing', { namespace: ns }));
    const liveErr = await rejection(api.client.get(ConfigMap, 'missing', { namespace: ns }));
    assert.ok(cached instanceof ApiError && isNotFound(cached));
    assert.equal(cached.message, 'configmaps "missing" not found');
    assert.equal(cached.message, (liveErr as ApiError).message);
    assert.equal(cached.code, 404);
    assert.deepEqual(cached.details, (liveErr as ApiError).details);
    const grouped = await rejection(reader.get(Deployment, 'missing', { namespace: ns }));
    assert.equal((grouped as ApiError).message, 'deployments.apps "missing" not found');
    assert.equal((grouped as ApiError).message, ((await rejection(api.client.get(Deployment, 'missing', { namespace: ns }))) as ApiError).message);
  });

  test('field index on pods by spec.nodeName: all-namespace and namespaced lookups, fieldSelector and matchingFields', async () => {
    const [nsA, nsB] = [await namespace(), await namespace()];
    await api.client.create(Pod, pod(nsA, 'a1', 'node-1', { app: 'web' }));
    await api.client.create(Pod, pod(nsA, 'a2', 'node-2', { app: 'web' }));
    await api.client.create(Pod, pod(nsB, 'b1', 'node-1', { app: 'db' }));
    const { reader } = startedReader();
    // Registered before the informer exists (as controllers do at set-up).
    reader.indexField(Pod, 'spec.nodeName', (p) => (p.spec?.nodeName ? [p.spec.nodeName] : []));
    const onNode1 = await reader.list(Pod, { matchingFields: { 'spec.nodeName': 'node-1' } });
    assert.deepEqual(names(onNode1.items).filter((n) => n.startsWith(nsA) || n.startsWith(nsB)), [`${nsA}/a1`, `${nsB}/b1`]);
    assert.deepEqual(names((await reader.list(Pod, { namespace: nsA, matchingFields: { 'spec.nodeName': 'node-1' } })).items), [`${nsA}/a1`]);
    assert.deepEqual(names((await reader.list(Pod, { namespace: nsB, fieldSelector: 'spec.nodeName=node-1' })).items), [`${nsB}/b1`]);
    assert.deepEqual(names((await reader.list(Pod, { namespace: nsA, fieldSelector: 'spec.nodeName==node-2' })).items), [`${nsA}/a2`]);
    assert.deepEqual(names((await reader.list(Pod, { namespace: nsA, matchingFields: { 'spec.nodeName': 'node-3' } })).items), []);
    // Field and label selectors together.
    const web = await reader.list(Pod, { matchingFields: { 'spec.nodeName': 'node-1' }, labelSelector: { app: 'web' } });
    assert.deepEqual(names(web.items).filter((n) => n.startsWith(nsA) || n.startsWith(nsB)), [`${nsA}/a1`]);
    // The index follows changes: a pod moved (recreated) to another node.
    const readded = delivered(reader.informerOf(Pod, false), (o) => o.metadata.namespace === nsB && (o as PodObject).spec?.nodeName === 'node-2');
    await api.client.delete(Pod, 'b1', { namespace: nsB, gracePeriodSeconds: 0 });
    await api.client.create(Pod, pod(nsB, 'b1', 'node-2'));
    await readded;
    assert.deepEqual(names((await reader.list(Pod, { namespace: nsB, matchingFields: { 'spec.nodeName': 'node-2' } })).items), [`${nsB}/b1`]);
    assert.deepEqual(names((await reader.list(Pod, { namespace: nsB, matchingFields: { 'spec.nodeName': 'node-1' } })).items), []);
  });

  test('an index added to a running informer re-indexes what it holds', async () => {
    const ns = await namespace();
    await api.client.create(ConfigMap, { metadata: { name: 'x', namespace: ns }, data: { color: 'blue' } });
    await api.client.create(ConfigMap, { metadata: { name: 'y', namespace: ns }, data: { color: 'red' } });
    const { reader } = startedReader();
    await reader.list(ConfigMap, { namespace: ns }); // started and synced
    reader.indexField(ConfigMap, 'data.color', (cm) => (cm.data?.color ? [cm.data.color] : []));
    assert.deepEqual(names((await reader.list(ConfigMap, { matchingFields: { 'data.color': 'red' } })).items), [`${ns}/y`]);
    assert.throws(() => reader.indexField(ConfigMap, 'data.color', () => []), /indexer conflict: field:data.color/);
  });

  test('a field selector needs an exact match on an indexed field; errors name the field', async () => {
    const ns = await namespace();
    const { reader } = startedReader();
    reader.indexField(Pod, 'spec.nodeName', (p) => (p.spec?.nodeName ? [p.spec.nodeName] : []));
    await assert.rejects(reader.list(Pod, { namespace: ns, fieldSelector: 'spec.restartPolicy=Always' }), {
      message: 'Index with name field:spec.restartPolicy does not exist',
    });
    await assert.rejects(reader.list(Pod, { matchingFields: { 'spec.nodeName': 'n', 'status.phase': 'Running' } }), {
      message: 'Index with name field:status.phase does not exist',
    });
    await assert.rejects(reader.list(Pod, { fieldSelector: 'spec.nodeName!=node-1' }), { message: 'non-exact field matches are not supported by the cache' });
    const bad = await rejection(reader.list(Pod, { fieldSelector: 'a' }));
    assert.ok(bad instanceof ApiError && bad.code === 400, 'an unparsable selector is a BadRequest, as the server answers it');
  });

  test('label selectors are evaluated on the cached objects (string, map and set-based forms)', async () => {
    const ns = await namespace();
    const labels: Record<string, Record<string, string>> = { a: { tier: 'front', env: 'prod' }, b: { tier: 'back', env: 'prod' }, c: { tier: 'front' }, d: {} };
    for (const [name, l] of Object.entries(labels)) await api.client.create(ConfigMap, { metadata: { name, namespace: ns, labels: l } });
    const { reader } = startedReader();
    const sel = async (labelSelector: string | Record<string, string>): Promise<string[]> =>
      (await reader.list(ConfigMap, { namespace: ns, labelSelector })).items.map((o) => o.metadata.name!);
    assert.deepEqual(await sel('tier=front'), ['a', 'c']);
    assert.deepEqual(await sel({ tier: 'front', env: 'prod' }), ['a']);
    assert.deepEqual(await sel('tier in (front,back),env'), ['a', 'b']);
    assert.deepEqual(await sel('!env'), ['c', 'd']);
    assert.deepEqual(await sel('tier!=front'), ['b', 'd']);
    for (const s of ['tier=front', 'tier in (front,back),env', '!env', 'tier!=front']) {
      assert.deepEqual(await sel(s), (await api.client.list(ConfigMap, { namespace: ns, labelSelector: s })).items.map((o) => o.metadata.name), `same as the server for ${s}`);
    }
    const cachedErr = await rejection(reader.list(ConfigMap, { labelSelector: 'tier in front' }));
    const liveErr = await rejection(api.client.list(ConfigMap, { labelSelector: 'tier in front' }));
    assert.ok(cachedErr instanceof ApiError && liveErr instanceof ApiError);
    assert.equal(cachedErr.code, liveErr.code);
    assert.equal(cachedErr.message, liveErr.message);
  });

  test('results are copies: changing one does not change the cache; unsafeDisableDeepCopy shares the cached object', async () => {
    const ns = await namespace();
    await api.client.create(ConfigMap, { metadata: { name: 'cm', namespace: ns, labels: { a: '1' } }, data: { k: 'v' } });
    const { reader } = startedReader();
    const first = await reader.get(ConfigMap, 'cm', { namespace: ns });
    first.data!.k = 'changed';
    first.metadata.labels!.a = 'changed';
    const [listed] = (await reader.list(ConfigMap, { namespace: ns })).items;
    listed!.data!.extra = 'x';
    const again = await reader.get(ConfigMap, 'cm', { namespace: ns });
    assert.deepEqual(again.data, { k: 'v' });
    assert.deepEqual(again.metadata.labels, { a: '1' });
    assert.notEqual(again, await reader.get(ConfigMap, 'cm', { namespace: ns }));
    const shared = await reader.get(ConfigMap, 'cm', { namespace: ns, unsafeDisableDeepCopy: true });
    assert.equal(shared, await reader.get(ConfigMap, 'cm', { namespace: ns, unsafeDisableDeepCopy: true }), 'the cached instance itself');
  });

  test('metadata-only reads come from the kind\'s metadata informer', async () => {
    const ns = await namespace();
    await api.client.create(Secret, { metadata: { name: 's', namespace: ns, labels: { a: '1' } }, data: { k: 'dmFsdWU=' } });
    const { reader, factory, source } = startedReader();
    const meta = await reader.get(Secret, 's', { namespace: ns, metadataOnly: true });
    assert.equal(meta.kind, 'PartialObjectMetadata');
    assert.equal(meta.metadata.labels?.a, '1');
    assert.equal((meta as { data?: unknown }).data, undefined, 'no data: only metadata is cached');
    const list = await reader.list(Secret, { namespace: ns, metadataOnly: true, labelSelector: 'a=1' });
    assert.equal(list.kind, 'PartialObjectMetadataList');
    assert.deepEqual(list.items.map((o) => o.metadata.name), ['s']);
    assert.deepEqual(factory.informers().map((i) => i.name), ['secrets(metadata)']);
    assert.equal(source.watches.get('secrets'), undefined, 'no full informer');
  });

  test('per-kind scopes: a namespace and a label selector; out-of-scope namespaces are refused as controller-runtime refuses them', async () => {
    const [nsA, nsB] = [await namespace(), await namespace()];
    await api.client.create(Secret, { metadata: { name: 's', namespace: nsA } });
    await api.client.create(Secret, { metadata: { name: 's', namespace: nsB } });
    await api.client.create(ConfigMap, { metadata: { name: 'mine', namespace: nsA, labels: { owner: 'me' } } });
    await api.client.create(ConfigMap, { metadata: { name: 'theirs', namespace: nsA, labels: { owner: 'them' } } });
    const { reader, factory } = startedReader({ byKind: [{ kind: Secret, namespace: nsA }, { kind: ConfigMap, labelSelector: 'owner=me' }] });
    assert.equal((await reader.get(Secret, 's', { namespace: nsA })).metadata.namespace, nsA);
    const outside = await rejection(reader.get(Secret, 's', { namespace: nsB }));
    assert.ok(outside instanceof CacheScopeError);
    assert.equal(outside.message, `unable to get: ${nsB}/s because of unknown namespace for the cache`);
    await assert.rejects(reader.list(Secret, { namespace: nsB }), { message: `unable to list: ${nsB} because of unknown namespace for the cache` });
    assert.deepEqual(names((await reader.list(Secret, {})).items), [`${nsA}/s`], 'all namespaces = the cached one');
    assert.deepEqual((await reader.list(ConfigMap, { namespace: nsA })).items.map((o) => o.metadata.name), ['mine']);
    assert.ok(isNotFound(await rejection(reader.get(ConfigMap, 'theirs', { namespace: nsA }))), 'outside the selector: not cached');
    // Controllers asking the factory for the kind get the same scoped informer.
    assert.equal(factory.informerFor(Secret), reader.informerOf(Secret, false));
    assert.equal(factory.informerFor(Secret).name, `secrets@${nsA}`);
    assert.equal(factory.informerFor(ConfigMap).name, 'configmaps?labelSelector=owner=me');
  });

  test('reads wait for the first sync: not before the start, and bounded by the signal and the sync timeout', async (t) => {
    const unstarted = new CacheReader(new SharedInformerFactory(api.client, { logger: silentLogger }));
    await assert.rejects(unstarted.get(ConfigMap, 'x', { namespace: 'default' }), (e: unknown) => e instanceof CacheNotStartedError && e.message === 'the cache is not started, can not read objects');
    // Widgets have no CRD here: not a wait at all, the read fails at once.
    assert.ok((await rejection(startedReader().reader.get(Widget, 'w', { namespace: 'default' }))) instanceof NoKindMatchError);
    // A server whose lists keep failing (503): the informer retries, so it never syncs.
    const server = await scriptedServer(() => statusBody(503, 'ServiceUnavailable'));
    const failing = Client.fromConfig(server.config, { qps: Infinity });
    const stop = new AbortController();
    const reader = new CacheReader(new SharedInformerFactory(failing, { logger: silentLogger }));
    t.after(async () => {
      stop.abort();
      await reader.informers.stopAll();
      failing.close();
      await server.close();
    });
    reader.informers.startAll(stop.signal);
    const aborted = await rejection(reader.get(Widget, 'w', { namespace: 'default', signal: AbortSignal.timeout(200) }));
    assert.equal((aborted as Error).name, 'TimeoutError', "the caller's signal");
    const quick = new CacheReader(reader.informers, { syncTimeoutMs: 100 });
    const timedOut = await rejection(quick.list(Widget, {}));
    assert.ok(timedOut instanceof ApiError);
    assert.equal(timedOut.reason, 'Timeout');
    assert.equal(timedOut.message, 'failed waiting for widgets.example.com informer to sync');
  });
});

/** Resolves when the informer delivers an add or update of an object matching `match`. */
function delivered(informer: Informer<KubeObject>, match: (obj: KubeObject) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const registration = informer.addEventHandler({
      add: (obj, initial) => {
        if (!initial && match(obj)) done();
      },
      update: (_old, obj) => {
        if (match(obj)) done();
      },
    });
    const done = (): void => {
      registration.remove();
      resolve();
    };
  });
}

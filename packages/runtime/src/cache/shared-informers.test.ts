import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@operant/apimachinery';
import { defineKind, type Kind } from '../kind.js';
import type { PartialObjectMetadata } from '../client/index.js';
import { FakeListerWatcher } from './fake-lister-watcher.js';
import type { ListerWatcher } from './list-watch.js';
import { SharedInformerFactory, type ListerWatcherSource } from './shared-informers.js';
import { dropManagedFields } from './transform.js';
import { silentLogger } from './logger.js';

const Pod = defineKind<KubeObject>({ group: '', version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true });
const Deployment = defineKind<KubeObject>({ group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', namespaced: true });
const Node = defineKind<KubeObject>({ group: '', version: 'v1', kind: 'Node', plural: 'nodes', namespaced: false });

/** One fake collection per kind; counts the ListerWatchers made. */
class FakeSource implements ListerWatcherSource {
  readonly made: string[] = [];
  readonly fakes = new Map<string, FakeListerWatcher<KubeObject>>();

  fake(kind: Kind): FakeListerWatcher<KubeObject> {
    let f = this.fakes.get(kind.plural);
    if (!f) this.fakes.set(kind.plural, (f = new FakeListerWatcher<KubeObject>()));
    return f;
  }

  listerWatcher<T extends KubeObject>(kind: Kind<T>): ListerWatcher<T>;
  listerWatcher(kind: Kind, options: { metadataOnly: true }): ListerWatcher<PartialObjectMetadata>;
  listerWatcher(kind: Kind, options?: { metadataOnly?: boolean }): ListerWatcher<KubeObject> {
    this.made.push(`${kind.plural}${options?.metadataOnly ? ' metadata' : ''}`);
    const full = this.fake(kind);
    if (!options?.metadataOnly) return full;
    // A metadata-only view of the same collection, as the server's PartialObjectMetadata answers.
    const strip = (o: KubeObject): PartialObjectMetadata => ({ apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: o.metadata });
    return {
      list: async (opts) => {
        const r = await full.list(opts);
        return { items: r.items.map(strip), resourceVersion: r.resourceVersion };
      },
      watch: (opts) => ({
        async *[Symbol.asyncIterator]() {
          for await (const ev of full.watch(opts)) yield ev.type === 'ERROR' || ev.type === 'BOOKMARK' ? ev : { type: ev.type, object: strip(ev.object) };
        },
      }),
    };
  }
}

describe('SharedInformerFactory', () => {
  test('one informer per kind and scope, shared between callers', () => {
    const source = new FakeSource();
    const factory = new SharedInformerFactory(source, { logger: silentLogger });
    const a = factory.informerFor(Pod);
    assert.equal(factory.informerFor(Pod), a);
    assert.equal(factory.informerFor(Pod, { labelSelector: 'b=2,a=1' }), factory.informerFor(Pod, { labelSelector: 'a=1,b=2' }), 'selectors compared in canonical form');
    assert.notEqual(factory.informerFor(Pod, { namespace: 'x' }), a);
    assert.notEqual(factory.informerFor(Pod, { fieldSelector: 'spec.nodeName=n1' }), a);
    assert.notEqual(factory.metadataInformerFor(Pod), a);
    assert.equal(factory.metadataInformerFor(Pod), factory.metadataInformerFor(Pod));
    assert.equal(factory.informerFor(Node, { namespace: 'ignored-for-cluster-scoped' }), factory.informerFor(Node));
    assert.deepEqual(source.made, ['pods', 'pods', 'pods', 'pods', 'pods metadata', 'nodes']);
    assert.deepEqual(
      factory.informers().map((i) => i.name),
      ['pods', 'pods?labelSelector=a=1,b=2', 'pods@x', 'pods?fieldSelector=spec.nodeName=n1', 'pods(metadata)', 'nodes'],
    );
    assert.equal(factory.informerFor(Deployment).name, 'deployments.apps');
  });

  test('transforms: the factory default, a per-informer one, and a conflicting one refused', () => {
    const factory = new SharedInformerFactory(new FakeSource(), { transform: dropManagedFields, logger: silentLogger });
    const stripStatus = (o: KubeObject): KubeObject => {
      delete o.status;
      return o;
    };
    const pods = factory.informerFor(Pod, { transform: stripStatus });
    assert.equal(factory.informerFor(Pod), pods, 'no transform given: the existing informer is shared');
    assert.equal(factory.informerFor(Pod, { transform: stripStatus }), pods);
    assert.throws(() => factory.informerFor(Pod, { transform: dropManagedFields }), /different transform/);
  });

  test('startAll starts everything, later requests start at once, waitForCacheSync waits for all, the signal stops all', async () => {
    const source = new FakeSource();
    source.fake(Pod).upsert({ metadata: { namespace: 'a', name: 'p', managedFields: [{ manager: 'x' }], labels: { app: 'web' } } });
    source.fake(Deployment).upsert({ metadata: { namespace: 'a', name: 'd' } });
    const factory = new SharedInformerFactory(source, { transform: dropManagedFields, logger: silentLogger });
    const pods = factory.informerFor(Pod, { indexers: { byApp: (o) => [o.metadata.labels?.app ?? ''] } });
    const ac = new AbortController();
    factory.startAll(ac.signal);
    assert.equal(pods.running, true);
    const deployments = factory.informerFor(Deployment);
    assert.equal(deployments.running, true, 'requested after startAll: started at once');
    const podMeta = factory.metadataInformerFor(Pod);
    assert.equal(await factory.waitForCacheSync(ac.signal), true);
    assert.deepEqual(pods.store.byIndex('byApp', 'web').map((o) => o.metadata.name), ['p']);
    assert.equal(pods.store.get('a/p')?.metadata.managedFields, undefined);
    assert.equal(deployments.store.size, 1);
    assert.equal(podMeta.store.get('a/p')?.kind, 'PartialObjectMetadata');
    // A second controller asking for the same informer with another index shares the cache.
    const again = factory.informerFor(Pod, { indexers: { byName: (o) => [o.metadata.name!] } });
    assert.equal(again, pods);
    assert.deepEqual(again.store.indexKeys('byName', 'p'), ['a/p']);

    ac.abort();
    await factory.stopAll();
    assert.ok(factory.informers().every((i) => i.state === 'stopped'));
    assert.equal(await factory.waitForCacheSync(), true, 'all synced before stopping');
  });

  test('waitForCacheSync resolves false when aborted before the caches sync', async () => {
    const source = new FakeSource();
    source.fake(Pod).failLists(1000, new Error('down'));
    const factory = new SharedInformerFactory(source, { logger: silentLogger, backoff: { initialMs: 5, maxMs: 5 } });
    factory.informerFor(Pod);
    const ac = new AbortController();
    factory.startAll(ac.signal);
    setTimeout(() => ac.abort(), 20);
    assert.equal(await factory.waitForCacheSync(ac.signal), false);
    await factory.stopAll();
  });

  test('per-kind scopes apply to every request that names none; lookup finds without creating', () => {
    const source = new FakeSource();
    const factory = new SharedInformerFactory(source, {
      logger: silentLogger,
      namespace: 'team',
      byKind: [{ kind: Pod, namespace: 'pods-ns', labelSelector: 'b=2,a=1' }, { kind: Node, fieldSelector: 'metadata.name=n1' }],
    });
    assert.equal(factory.lookup(Pod), undefined);
    assert.deepEqual(source.made, [], 'lookup creates nothing');
    const pods = factory.informerFor(Pod);
    assert.equal(pods.name, 'pods@pods-ns?labelSelector=a=1,b=2');
    assert.equal(factory.lookup(Pod), pods);
    assert.equal(factory.lookup(Pod, {}, true), undefined, 'the metadata informer is another');
    assert.deepEqual(factory.scopeOf(Pod), { namespace: 'pods-ns', labelSelector: 'a=1,b=2', fieldSelector: '' });
    assert.deepEqual(factory.scopeOf(Deployment), { namespace: 'team', labelSelector: '', fieldSelector: '' }, "other kinds: the factory's namespace");
    assert.equal(factory.informerFor(Pod, { namespace: 'x' }).name, 'pods@x?labelSelector=a=1,b=2', 'a request overrides only what it names');
    assert.equal(factory.informerFor(Node).name, 'nodes?fieldSelector=metadata.name=n1');
  });
});

test('a plain lookup that found nothing finds the informer made after it, by a plain or a scoped request', () => {
  const factory = new SharedInformerFactory(new FakeSource(), { logger: silentLogger, namespace: 'team-a' });
  assert.equal(factory.lookup(Pod), undefined);
  assert.equal(factory.lookup(Pod, {}, true), undefined);
  // Asked with the scope the factory gives anyway: the same informer a plain request gets.
  const scoped = factory.informerFor(Pod, { namespace: 'team-a' });
  assert.equal(factory.lookup(Pod), scoped);
  assert.equal(factory.informerFor(Pod), scoped);
  assert.equal(factory.lookup(Pod, {}, true), undefined);
  const metadata = factory.metadataInformerFor(Pod);
  assert.equal(factory.lookup(Pod, {}, true), metadata);
  assert.equal(factory.lookup(Pod, { namespace: 'team-b' }), undefined);
});

test('a kind remembered as a miss or as plain: an informer made later with a transform or indexers is found, and keeps what it was made with', () => {
  const factory = new SharedInformerFactory(new FakeSource(), { logger: silentLogger });
  assert.equal(factory.lookup(Pod), undefined);
  assert.equal(factory.lookup(Deployment), undefined);
  // Made with a transform of its own after the miss: a plain lookup finds it, and a plain request gets it.
  const pods = factory.informerFor(Pod, { transform: dropManagedFields });
  assert.equal(factory.lookup(Pod), pods);
  assert.equal(factory.informerFor(Pod), pods);
  assert.throws(() => factory.informerFor(Pod, { transform: (o: KubeObject) => o }), /already exists with a different transform/);
  // Made with indexers after the miss.
  const deployments = factory.informerFor(Deployment, { indexers: { byApp: (o) => [o.metadata.labels?.app ?? ''] } });
  assert.equal(factory.lookup(Deployment), deployments);
  // Remembered as plain first: indexers asked for later reach the same informer.
  const nodes = factory.informerFor(Node);
  const indexed = factory.informerFor(Node, { indexers: { byZone: (o) => [o.metadata.labels?.zone ?? ''] } });
  assert.equal(indexed, nodes);
  assert.equal(factory.informerFor(Node), nodes);
  assert.deepEqual(nodes.store.byIndex('byZone', 'z'), []);
});

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@operant/apimachinery';
import { Store } from './store.js';
import { objectKey, keyFor, splitKey } from './keys.js';
import { namespaceIndex, namespaceIndexFunc } from './indexes.js';
import { composeTransforms, dropManagedFields } from './transform.js';
import { deletedObject, isTombstone } from './tombstone.js';

interface Pod extends KubeObject {
  spec?: { nodeName?: string };
}

function pod(ns: string, name: string, rv: string, nodeName?: string): Pod {
  return {
    metadata: { namespace: ns, name, resourceVersion: rv, managedFields: [{ manager: 'kubectl', operation: 'Update' }] },
    spec: nodeName ? { nodeName } : {},
  };
}

const byNode = (p: Pod): string[] => (p.spec?.nodeName ? [p.spec.nodeName] : []);

describe('keys', () => {
  test('namespace/name for namespaced objects, name for cluster-scoped ones', () => {
    assert.equal(objectKey(pod('default', 'web', '1')), 'default/web');
    assert.equal(objectKey({ metadata: { name: 'node-1' } }), 'node-1');
    assert.equal(keyFor('ns', 'a'), 'ns/a');
    assert.equal(keyFor(undefined, 'a'), 'a');
    assert.deepEqual(splitKey('ns/a'), { namespace: 'ns', name: 'a' });
    assert.deepEqual(splitKey('a'), { name: 'a' });
    assert.throws(() => objectKey({ metadata: {} }), /no metadata.name/);
  });
});

describe('Store', () => {
  test('get, has, list, keys and size', () => {
    const store = new Store<Pod>();
    store.upsert(pod('a', 'x', '1'));
    store.upsert(pod('b', 'y', '2'));
    assert.equal(store.size, 2);
    assert.equal(store.get('a/x')?.metadata.resourceVersion, '1');
    assert.equal(store.has('b/y'), true);
    assert.equal(store.get('a/nope'), undefined);
    assert.deepEqual(store.keys().sort(), ['a/x', 'b/y']);
    assert.equal(store.list().length, 2);
    assert.equal(store.delete('a/x')?.metadata.name, 'x');
    assert.equal(store.delete('a/x'), undefined);
    assert.deepEqual(store.keys(), ['b/y']);
  });

  test('upsert reports the previous object', () => {
    const store = new Store<Pod>();
    const first = store.upsert(pod('a', 'x', '1'));
    assert.equal(first.old, undefined);
    const second = store.upsert(pod('a', 'x', '2'));
    assert.equal(second.old?.metadata.resourceVersion, '1');
    assert.equal(second.current.metadata.resourceVersion, '2');
  });

  test('indexes: pods by spec.nodeName follow updates and deletes', () => {
    const store = new Store<Pod>({ indexers: { byNode } });
    store.upsert(pod('a', 'p1', '1', 'node-1'));
    store.upsert(pod('a', 'p2', '2', 'node-1'));
    store.upsert(pod('b', 'p3', '3', 'node-2'));
    store.upsert(pod('b', 'p4', '4')); // unscheduled: in no index entry
    const names = (node: string): string[] => store.byIndex('byNode', node).map((p) => p.metadata.name!).sort();
    assert.deepEqual(names('node-1'), ['p1', 'p2']);
    assert.deepEqual(names('node-2'), ['p3']);
    assert.deepEqual(store.indexValues('byNode').sort(), ['node-1', 'node-2']);

    store.upsert(pod('a', 'p2', '5', 'node-2')); // moved
    assert.deepEqual(names('node-1'), ['p1']);
    assert.deepEqual(names('node-2'), ['p2', 'p3']);
    store.delete('a/p1');
    assert.deepEqual(names('node-1'), []);
    assert.deepEqual(store.indexValues('byNode').sort(), ['node-2'], 'empty values disappear');
    assert.deepEqual(store.indexKeys('byNode', 'node-2').sort(), ['a/p2', 'b/p3']);
    assert.throws(() => store.byIndex('nope', 'x'), /does not exist/);
  });

  test('an index added later covers the objects already cached; names are unique', () => {
    const store = new Store<Pod>();
    store.upsert(pod('a', 'p1', '1', 'node-1'));
    store.upsert(pod('b', 'p2', '2', 'node-1'));
    store.addIndexer('byNode', byNode);
    store.addIndexer(namespaceIndex, namespaceIndexFunc);
    assert.equal(store.byIndex('byNode', 'node-1').length, 2);
    assert.deepEqual(store.indexKeys(namespaceIndex, 'b'), ['b/p2']);
    assert.throws(() => store.addIndexer('byNode', byNode), /already exists/);
  });

  test('an object may sit under several values of one index', () => {
    const store = new Store<Pod>({ indexers: { labels: (p) => Object.entries(p.metadata.labels ?? {}).map(([k, v]) => `${k}=${v}`) } });
    store.upsert({ metadata: { namespace: 'a', name: 'x', labels: { app: 'web', tier: 'fe' } } });
    assert.deepEqual(store.indexKeys('labels', 'app=web'), ['a/x']);
    assert.deepEqual(store.indexKeys('labels', 'tier=fe'), ['a/x']);
  });

  test('a throwing index function is reported and the object left out of that index', () => {
    const errors: string[] = [];
    const store = new Store<Pod>({
      indexers: { bad: () => { throw new Error('boom'); }, byNode },
      onError: (err, ctx) => errors.push(`${ctx.during} ${ctx.indexName} ${ctx.key} ${(err as Error).message}`),
    });
    store.upsert(pod('a', 'p1', '1', 'node-1'));
    assert.deepEqual(errors, ['index bad a/p1 boom']);
    assert.deepEqual(store.byIndex('byNode', 'node-1').length, 1);
    assert.equal(store.get('a/p1')?.metadata.name, 'p1');
  });

  test('transforms run before caching: managedFields dropped, custom fields stripped', () => {
    const dropSpec = (p: Pod): Pod => {
      delete p.spec;
      return p;
    };
    const store = new Store<Pod>({ transform: composeTransforms(dropManagedFields, dropSpec) });
    const { current } = store.upsert(pod('a', 'x', '1', 'node-1'));
    assert.equal(current.metadata.managedFields, undefined);
    assert.deepEqual(Object.keys(current.metadata), ['namespace', 'name', 'resourceVersion']);
    assert.equal(current.spec, undefined);
    assert.equal(store.get('a/x')?.metadata.managedFields, undefined);
    assert.equal(store.prepare(pod('a', 'y', '2')).metadata.managedFields, undefined);
  });

  test('a throwing transform is reported and the object cached as it came', () => {
    const errors: string[] = [];
    const store = new Store<Pod>({ transform: () => { throw new Error('bad transform'); }, onError: (_err, ctx) => errors.push(`${ctx.during} ${ctx.key}`) });
    store.upsert(pod('a', 'x', '1'));
    assert.deepEqual(errors, ['transform a/x']);
    assert.ok(store.get('a/x')?.metadata.managedFields);
  });

  test('replace returns adds, updates (changed resourceVersion only) and tombstones', () => {
    const store = new Store<Pod>({ indexers: { byNode } });
    store.replace([pod('a', 'same', '1', 'n1'), pod('a', 'changed', '2', 'n1'), pod('a', 'gone', '3', 'n1')]);
    const sameBefore = store.get('a/same');

    const diff = store.replace([pod('a', 'same', '1', 'n1'), pod('a', 'changed', '9', 'n2'), pod('a', 'new', '10', 'n2')]);
    assert.deepEqual(diff.added.map((p) => p.metadata.name), ['new']);
    assert.deepEqual(diff.updated.map((u) => [u.old.metadata.resourceVersion, u.current.metadata.resourceVersion]), [['2', '9']]);
    assert.equal(diff.deleted.length, 1);
    const [tomb] = diff.deleted;
    assert.equal(tomb!.key, 'a/gone');
    assert.equal(tomb!.lastKnown.metadata.resourceVersion, '3');
    assert.equal(isTombstone(tomb!), true);
    assert.equal(deletedObject(tomb!).metadata.name, 'gone');
    assert.equal(isTombstone(pod('a', 'b', '1')), false);

    assert.equal(store.get('a/same'), sameBefore, 'unchanged objects keep their instance');
    assert.deepEqual(store.keys().sort(), ['a/changed', 'a/new', 'a/same']);
    assert.deepEqual(store.indexKeys('byNode', 'n1'), ['a/same']);
    assert.deepEqual(store.indexKeys('byNode', 'n2').sort(), ['a/changed', 'a/new']);
  });
});

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@operant/apimachinery';
import { fieldIndexFunc, fieldIndexName, namespacedIndexValue } from './field-index.js';
import { Store } from './store.js';

interface Pod extends KubeObject {
  spec?: { nodeName?: string; volumes?: string[] };
}

describe('field indexes', () => {
  test('values are indexed per namespace and across namespaces (cluster-scoped objects only across)', () => {
    const fn = fieldIndexFunc<Pod>((p) => p.spec?.volumes ?? []);
    assert.deepEqual(fn({ metadata: { name: 'p', namespace: 'a' }, spec: { volumes: ['x', 'y'] } }), ['a/x', 'a/y', '__all_namespaces/x', '__all_namespaces/y']);
    assert.deepEqual(fn({ metadata: { name: 'n' }, spec: { volumes: ['x'] } }), ['__all_namespaces/x']);
    assert.equal(fieldIndexName('spec.nodeName'), 'field:spec.nodeName');
    assert.equal(namespacedIndexValue('', 'v'), '__all_namespaces/v');
  });

  test('a store answers namespaced and all-namespace lookups from one index', () => {
    const store = new Store<Pod>();
    store.addIndexer(fieldIndexName('spec.nodeName'), fieldIndexFunc((p) => (p.spec?.nodeName ? [p.spec.nodeName] : [])));
    for (const [ns, name, node] of [['a', 'p1', 'n1'], ['b', 'p2', 'n1'], ['a', 'p3', 'n2']] as const) store.upsert({ metadata: { namespace: ns, name }, spec: { nodeName: node } });
    assert.deepEqual(store.indexKeys('field:spec.nodeName', '__all_namespaces/n1').sort(), ['a/p1', 'b/p2']);
    assert.deepEqual(store.indexKeys('field:spec.nodeName', 'a/n1'), ['a/p1']);
    assert.ok(store.hasIndex('field:spec.nodeName'));
    assert.ok(!store.hasIndex('field:spec.other'));
  });
});

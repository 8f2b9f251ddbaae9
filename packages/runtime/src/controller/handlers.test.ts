import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@operant/apimachinery';
import { defineKind } from '../kind.js';
import { enqueueMapped, enqueueObject, enqueueOwner, requestsForUpdate } from './handlers.js';
import { requestFor, requestFromKey, requestKey } from './request.js';

const Foo = defineKind({ group: 'samplecontroller.k8s.io', version: 'v1alpha1', kind: 'Foo', plural: 'foos', namespaced: true });
const Cluster = defineKind({ group: 'example.com', version: 'v1', kind: 'Cluster', plural: 'clusters', namespaced: false });

function owned(refs: NonNullable<KubeObject['metadata']['ownerReferences']>): KubeObject {
  return { metadata: { name: 'child', namespace: 'team', ownerReferences: refs } };
}

describe('requests', () => {
  test('keys round-trip, with an empty namespace for cluster-scoped objects', () => {
    assert.equal(requestKey({ namespace: 'default', name: 'web' }), 'default/web');
    assert.equal(requestKey({ namespace: '', name: 'node-1' }), 'node-1');
    assert.deepEqual(requestFromKey('default/web'), { namespace: 'default', name: 'web' });
    assert.deepEqual(requestFromKey('node-1'), { namespace: '', name: 'node-1' });
    assert.deepEqual(requestFor({ metadata: { name: 'node-1' } }), { namespace: '', name: 'node-1' });
    assert.throws(() => requestKey({ namespace: 'x', name: '' }));
  });
});

describe('handlers', () => {
  test('enqueueObject enqueues the object itself', () => {
    assert.deepEqual([...enqueueObject()({ metadata: { namespace: 'a', name: 'b' } })], [{ namespace: 'a', name: 'b' }]);
  });

  test('enqueueOwner follows the controller reference of the owner group and kind, any version', () => {
    const child = owned([
      { apiVersion: 'samplecontroller.k8s.io/v1', kind: 'Foo', name: 'other-version', uid: '1', controller: true },
      { apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', name: 'not-controller', uid: '2' },
      { apiVersion: 'other.io/v1alpha1', kind: 'Foo', name: 'other-group', uid: '3', controller: true },
      { apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Bar', name: 'other-kind', uid: '4', controller: true },
    ]);
    assert.deepEqual([...enqueueOwner(Foo)(child)], [{ namespace: 'team', name: 'other-version' }]);
    assert.deepEqual(
      [...enqueueOwner(Foo, { onlyController: false })(child)].map((r) => r.name),
      ['other-version', 'not-controller'],
    );
  });

  test('a cluster-scoped owner gets an empty namespace; core-group owners match group ""', () => {
    const child = owned([
      { apiVersion: 'example.com/v1', kind: 'Cluster', name: 'c1', uid: '1', controller: true },
    ]);
    assert.deepEqual([...enqueueOwner(Cluster)(child)], [{ namespace: '', name: 'c1' }]);
    const ConfigMap = defineKind({ group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true });
    const secret = owned([{ apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', uid: '1', controller: true }]);
    assert.deepEqual([...enqueueOwner(ConfigMap)(secret)], [{ namespace: 'team', name: 'cm' }]);
  });

  test('an update maps old and new objects, without repeats, skipping nameless requests', () => {
    const map = enqueueMapped<KubeObject>((o) => [{ namespace: 'x', name: o.metadata.labels?.['target'] ?? '' }, { namespace: 'x', name: 'always' }]);
    const before: KubeObject = { metadata: { name: 'a', labels: { target: 'old' } } };
    const after: KubeObject = { metadata: { name: 'a', labels: { target: 'new' } } };
    assert.deepEqual(
      requestsForUpdate(map, before, after).map((r) => r.name).sort(),
      ['always', 'new', 'old'],
    );
    assert.deepEqual(requestsForUpdate(map, after, after).map((r) => r.name).sort(), ['always', 'new']);
    const nameless: KubeObject = { metadata: { name: 'a' } };
    assert.deepEqual(requestsForUpdate(map, nameless, nameless).map((r) => r.name), ['always']);
  });
});

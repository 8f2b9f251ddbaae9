import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@operant/apimachinery';
import { defineKind } from '../kind.js';
import {
  AlreadyOwnedError,
  getControllerOf,
  hasControllerReference,
  hasOwnerReference,
  isControlledBy,
  removeOwnerReference,
  setControllerReference,
  setOwnerReference,
} from './owner-references.js';

const Deployment = defineKind({ group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', namespaced: true });

function obj(name: string, namespace?: string, extra: Partial<KubeObject> = {}): KubeObject {
  return { metadata: { name, uid: `uid-${name}`, ...(namespace ? { namespace } : {}) }, ...extra };
}
const typed = (apiVersion: string, kind: string, name: string, namespace?: string): KubeObject => ({ apiVersion, kind, ...obj(name, namespace) });

describe('setControllerReference', () => {
  test('adds a controller reference from the owner object type meta', () => {
    const owner = typed('apps/v1', 'Deployment', 'web', 'ns');
    const rs = obj('web-1', 'ns');
    setControllerReference(owner, rs);
    assert.deepEqual(rs.metadata.ownerReferences, [
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'uid-web', blockOwnerDeletion: true, controller: true },
    ]);
    assert.equal(hasControllerReference(rs), true);
    assert.equal(isControlledBy(rs, owner), true);
  });

  test('takes apiVersion and kind from a Kind when the owner lacks them', () => {
    const rs = obj('web-1', 'ns');
    setControllerReference(obj('web', 'ns'), rs, Deployment);
    assert.equal(rs.metadata.ownerReferences![0].apiVersion, 'apps/v1');
    assert.equal(rs.metadata.ownerReferences![0].kind, 'Deployment');
    assert.throws(() => setControllerReference(obj('web', 'ns'), obj('x', 'ns')), /pass its Kind/);
  });

  test('is idempotent for the same owner and replaces its reference in place', () => {
    const owner = typed('apps/v1', 'Deployment', 'web', 'ns');
    const rs = obj('web-1', 'ns');
    setOwnerReference(typed('v1', 'ConfigMap', 'other', 'ns'), rs);
    setOwnerReference(owner, rs);
    setControllerReference(owner, rs);
    setControllerReference({ ...owner, apiVersion: 'apps/v1beta2' }, rs); // same group: same owner
    assert.equal(rs.metadata.ownerReferences!.length, 2);
    assert.equal(rs.metadata.ownerReferences![1].controller, true);
    assert.equal(rs.metadata.ownerReferences![1].apiVersion, 'apps/v1beta2');
  });

  test('refuses a second controller with controller-runtime\'s AlreadyOwnedError', () => {
    const rs = obj('web-1', 'ns');
    setControllerReference(typed('apps/v1', 'Deployment', 'web', 'ns'), rs);
    const err = captureError(() => setControllerReference(typed('apps/v1', 'StatefulSet', 'db', 'ns'), rs));
    assert.ok(err instanceof AlreadyOwnedError);
    assert.equal(err.message, 'Object ns/web-1 is already owned by another Deployment controller web');
    assert.equal(err.owner.name, 'web');
    assert.equal(rs.metadata.ownerReferences!.length, 1);
  });

  test('refuses a namespaced owner of a cluster-scoped object', () => {
    const err = captureError(() => setControllerReference(typed('v1', 'ConfigMap', 'cm', 'ns'), typed('v1', 'Namespace', 'team')));
    assert.equal(err.message, "cluster-scoped resource must not have a namespace-scoped owner, owner's namespace ns");
  });

  test('refuses an owner in another namespace', () => {
    const err = captureError(() => setOwnerReference(typed('v1', 'ConfigMap', 'cm', 'a'), obj('s', 'b')));
    assert.equal(err.message, "cross-namespace owner references are disallowed, owner's namespace a, obj's namespace b");
  });

  test('allows a cluster-scoped owner of a namespaced object', () => {
    const secret = obj('s', 'team');
    setControllerReference(typed('v1', 'Namespace', 'team'), secret);
    assert.equal(getControllerOf(secret)?.kind, 'Namespace');
  });

  test('needs an owner uid', () => {
    assert.throws(() => setControllerReference({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'n' } }, obj('y', 'n')), /no metadata\.uid/);
  });
});

describe('setOwnerReference and friends', () => {
  test('adds a plain reference, updated in place for the same owner', () => {
    const owner = typed('v1', 'ConfigMap', 'cm', 'ns');
    const target = obj('s', 'ns');
    setOwnerReference(owner, target);
    assert.deepEqual(target.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', uid: 'uid-cm' }]);
    setOwnerReference({ ...owner, metadata: { ...owner.metadata, uid: 'uid-new' } }, target, undefined, { blockOwnerDeletion: true });
    assert.deepEqual(target.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', uid: 'uid-new', blockOwnerDeletion: true }]);
    assert.equal(hasControllerReference(target), false);
    assert.equal(getControllerOf(target), undefined);
  });

  test('hasOwnerReference and removeOwnerReference match group, kind and name', () => {
    const a = typed('v1', 'ConfigMap', 'a', 'ns');
    const b = typed('apps/v1', 'Deployment', 'b', 'ns');
    const target = obj('s', 'ns');
    setOwnerReference(a, target);
    setControllerReference(b, target);
    assert.equal(hasOwnerReference(target, a), true);
    assert.equal(hasOwnerReference(target, typed('v1', 'Secret', 'a', 'ns')), false);
    assert.equal(removeOwnerReference(b, target), true);
    assert.equal(removeOwnerReference(b, target), false);
    assert.equal(hasControllerReference(target), false);
    assert.equal(removeOwnerReference(a, target), true);
    assert.equal(target.metadata.ownerReferences, undefined);
  });

  test('isControlledBy compares uids; getControllerOf returns a copy', () => {
    const owner = typed('apps/v1', 'Deployment', 'web', 'ns');
    const rs = obj('web-1', 'ns');
    setControllerReference(owner, rs);
    assert.equal(isControlledBy(rs, { ...owner, metadata: { ...owner.metadata, uid: 'another-incarnation' } }), false);
    const ref = getControllerOf(rs)!;
    ref.name = 'changed';
    assert.equal(rs.metadata.ownerReferences![0].name, 'web');
  });
});

function captureError(fn: () => void): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected an error');
}

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PodObject } from '../objects.js';
import { claimsFor, mountClaims, ownerReferencesFor } from './claims.js';

type Set = Parameters<typeof claimsFor>[0];
type Claim = Parameters<typeof ownerReferencesFor>[0];

const set = (replicas: number, whenScaled?: string, whenDeleted?: string): Set =>
  ({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'db', namespace: 'ns', uid: 'set-uid' },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'db' } },
      template: {},
      serviceName: 'db',
      volumeClaimTemplates: [{ metadata: { name: 'data', labels: { tier: 'storage', app: 'other' } }, spec: { accessModes: ['ReadWriteOnce'] } }],
      persistentVolumeClaimRetentionPolicy: whenScaled ? { whenScaled, whenDeleted } : undefined,
    },
  }) as unknown as Set;
const pod = (ordinal: number): PodObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `db-${ordinal}`, namespace: 'ns', uid: `pod-${ordinal}` } }) as PodObject;
const claim = (ownerReferences?: Claim['metadata']['ownerReferences']): Claim => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data-db-1', namespace: 'ns', ownerReferences } }) as Claim;
const setRef = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: 'set-uid', controller: true, blockOwnerDeletion: true };
const podRef = { apiVersion: 'v1', kind: 'Pod', name: 'db-1', uid: 'pod-1', controller: true, blockOwnerDeletion: true };

describe('StatefulSet claims', () => {
  it("a claim per template, named <template>-<set>-<ordinal>, with the selector's labels over the template's; the pod mounts it", () => {
    const [[template, c]] = claimsFor(set(2), 1) as [[string, Claim]];
    assert.equal(template, 'data');
    assert.equal(c.metadata.name, 'data-db-1');
    assert.deepEqual(c.metadata.labels, { tier: 'storage', app: 'db' });
    const spec = { containers: [], volumes: [{ name: 'data', emptyDir: {} }, { name: 'cache', emptyDir: {} }] };
    mountClaims(set(2), 1, spec as never);
    assert.deepEqual(spec.volumes, [{ name: 'data', persistentVolumeClaim: { claimName: 'data-db-1' } }, { name: 'cache', emptyDir: {} }]);
  });

  it('owners follow persistentVolumeClaimRetentionPolicy, for a pod in range and one scaled away', () => {
    const cases: Array<[string | undefined, string | undefined, number, object[]]> = [
      [undefined, undefined, 2, []],
      ['Retain', 'Delete', 2, [setRef]],
      ['Retain', 'Delete', 1, [setRef]],
      ['Delete', 'Retain', 2, []],
      ['Delete', 'Retain', 1, [podRef]],
      ['Delete', 'Delete', 2, [setRef]],
      ['Delete', 'Delete', 1, [podRef]],
    ];
    for (const [whenScaled, whenDeleted, replicas, wanted] of cases) {
      const refs = ownerReferencesFor(claim(), set(replicas, whenScaled, whenDeleted), pod(1), 1);
      assert.deepEqual(refs ?? [], wanted, `${whenScaled}/${whenDeleted} with ${replicas} replicas`);
      // Once right, nothing to change.
      assert.equal(ownerReferencesFor(claim(wanted.length ? (wanted as never) : undefined), set(replicas, whenScaled, whenDeleted), pod(1), 1), undefined);
    }
  });

  it("another controller's claim is left to it; a predecessor's (same name, other uid) is not touched", () => {
    const other = { apiVersion: 'example.com/v1', kind: 'Backup', name: 'b', uid: 'b-uid', controller: true };
    assert.equal(ownerReferencesFor(claim([other]), set(2, 'Retain', 'Delete'), pod(1), 1), undefined);
    assert.deepEqual(ownerReferencesFor(claim([other, setRef]), set(2, 'Retain', 'Delete'), pod(1), 1), [other], 'our reference goes beside an unexpected controller');
    assert.equal(ownerReferencesFor(claim([{ ...setRef, uid: 'old-set' }]), set(2, 'Delete', 'Delete'), pod(1), 1), undefined);
  });
});

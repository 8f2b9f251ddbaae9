/**
 * Owner references against the embedded API server: what the helpers write is
 * accepted, and the server's garbage collector deletes the owned object once
 * its owner is deleted (and keeps it while another owner remains).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeObject } from '@operant/apimachinery';
import { ConfigMap, Secret } from '../builtins.js';
import { isNotFound } from '../client/index.js';
import { useApiServer } from '../testdata/api-server.js';
import { AlreadyOwnedError, isControlledBy, removeOwnerReference, setControllerReference, setOwnerReference } from './owner-references.js';

const ns = 'owners';
const api = useApiServer({ namespaces: [ns] });

/** Resolves once the secret is gone; rejects after a deadline. */
async function waitUntilGone(name: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await api.client.get(Secret, name, { namespace: ns });
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
    if (Date.now() > deadline) throw new Error(`secret ${name} was not garbage-collected`);
    await sleep(10);
  }
}

/**
 * Waits until the collector has handled every deletion made so far: it handles
 * them in order, so once a sentinel owned by an owner deleted now is gone, the
 * earlier deletions have been seen too.
 */
async function collectorCaughtUp(name: string): Promise<void> {
  const owner = await api.client.create(ConfigMap, { metadata: { name: `sentinel-owner-${name}`, namespace: ns } });
  const sentinel: KubeObject = { metadata: { name: `sentinel-${name}`, namespace: ns } };
  setControllerReference(owner, sentinel);
  await api.client.create(Secret, sentinel);
  await api.client.delete(ConfigMap, owner.metadata.name!, { namespace: ns });
  await waitUntilGone(sentinel.metadata.name!);
}

test('the garbage collector deletes an object whose controller is deleted', async () => {
  const owner = await api.client.create(ConfigMap, { metadata: { name: 'owner', namespace: ns } });
  const secret: KubeObject = { metadata: { name: 'owned', namespace: ns } };
  setControllerReference(owner, secret); // apiVersion and kind from the object the server returned
  const created = await api.client.create(Secret, secret);
  assert.equal(isControlledBy(created, owner), true);
  assert.deepEqual(created.metadata.ownerReferences, [
    { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid, blockOwnerDeletion: true, controller: true },
  ]);

  await api.client.delete(ConfigMap, 'owner', { namespace: ns });
  await waitUntilGone('owned');
});

test('an object with a remaining owner survives until that one goes; one whose reference was removed is orphaned', async () => {
  const a = await api.client.create(ConfigMap, { metadata: { name: 'owner-a', namespace: ns } });
  const b = await api.client.create(ConfigMap, { metadata: { name: 'owner-b', namespace: ns } });
  const secret: KubeObject = { metadata: { name: 'shared', namespace: ns } };
  setControllerReference(a, secret);
  setOwnerReference(b, secret);
  assert.throws(() => setControllerReference(b, secret), AlreadyOwnedError);
  await api.client.create(Secret, secret);

  await api.client.delete(ConfigMap, 'owner-a', { namespace: ns });
  await collectorCaughtUp('after-a');
  const live = await api.client.get(Secret, 'shared', { namespace: ns });
  assert.ok(live.metadata.ownerReferences?.some((r) => r.name === 'owner-b'), 'still owned by owner-b');

  // Once owner-b goes too, so does the secret.
  await api.client.delete(ConfigMap, 'owner-b', { namespace: ns });
  await waitUntilGone('shared');

  // Removing the reference first orphans the object: deleting the owner then leaves it.
  const c = await api.client.create(ConfigMap, { metadata: { name: 'owner-c', namespace: ns } });
  const orphan: KubeObject = { metadata: { name: 'orphan', namespace: ns } };
  setControllerReference(c, orphan);
  const stored = await api.client.create(Secret, orphan);
  assert.equal(removeOwnerReference(c, stored), true);
  await api.client.update(Secret, stored);
  await api.client.delete(ConfigMap, 'owner-c', { namespace: ns });
  await collectorCaughtUp('after-c');
  assert.equal((await api.client.get(Secret, 'orphan', { namespace: ns })).metadata.ownerReferences, undefined);
});

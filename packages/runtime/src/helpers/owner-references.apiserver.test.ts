/**
 * Owner references against the embedded API server: what the helpers write is
 * accepted, and the server's garbage collector deletes the owned object once
 * its owner is deleted (and keeps it while another owner remains).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeObject } from '@operant/apimachinery';
import { startApiServer, type RunningApiServer } from '@operant/apiserver';
import { Client, isNotFound } from '../client/index.js';
import { loadKubeConfig } from '../config/load.js';
import { defineKind } from '../kind.js';
import { AlreadyOwnedError, isControlledBy, removeOwnerReference, setControllerReference, setOwnerReference } from './owner-references.js';

const ConfigMap = defineKind({ group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true });
const Secret = defineKind({ group: '', version: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true });
const Namespace = defineKind({ group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false });

let server: RunningApiServer;
let client: Client;
const ns = 'owners';

before(async () => {
  server = await startApiServer({ port: 0 });
  client = Client.fromConfig(await loadKubeConfig({ kubeconfigText: server.kubeconfig }), { qps: Infinity });
  await client.create(Namespace, { metadata: { name: ns } });
});

after(async () => {
  client?.close();
  await server?.stop();
});

/** Resolves once the secret is gone; rejects after a deadline. */
async function waitUntilGone(name: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await client.get(Secret, name, { namespace: ns });
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
  const owner = await client.create(ConfigMap, { metadata: { name: `sentinel-owner-${name}`, namespace: ns } });
  const sentinel: KubeObject = { metadata: { name: `sentinel-${name}`, namespace: ns } };
  setControllerReference(owner, sentinel);
  await client.create(Secret, sentinel);
  await client.delete(ConfigMap, owner.metadata.name!, { namespace: ns });
  await waitUntilGone(sentinel.metadata.name!);
}

test('the garbage collector deletes an object whose controller is deleted', async () => {
  const owner = await client.create(ConfigMap, { metadata: { name: 'owner', namespace: ns } });
  const secret: KubeObject = { metadata: { name: 'owned', namespace: ns } };
  setControllerReference(owner, secret); // apiVersion and kind from the object the server returned
  const created = await client.create(Secret, secret);
  assert.equal(isControlledBy(created, owner), true);
  assert.deepEqual(created.metadata.ownerReferences, [
    { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid, blockOwnerDeletion: true, controller: true },
  ]);

  await client.delete(ConfigMap, 'owner', { namespace: ns });
  await waitUntilGone('owned');
});

test('an object with a remaining owner survives until that one goes; one whose reference was removed is orphaned', async () => {
  const a = await client.create(ConfigMap, { metadata: { name: 'owner-a', namespace: ns } });
  const b = await client.create(ConfigMap, { metadata: { name: 'owner-b', namespace: ns } });
  const secret: KubeObject = { metadata: { name: 'shared', namespace: ns } };
  setControllerReference(a, secret);
  setOwnerReference(b, secret);
  assert.throws(() => setControllerReference(b, secret), AlreadyOwnedError);
  await client.create(Secret, secret);

  await client.delete(ConfigMap, 'owner-a', { namespace: ns });
  await collectorCaughtUp('after-a');
  const live = await client.get(Secret, 'shared', { namespace: ns });
  assert.ok(live.metadata.ownerReferences?.some((r) => r.name === 'owner-b'), 'still owned by owner-b');

  // Once owner-b goes too, so does the secret.
  await client.delete(ConfigMap, 'owner-b', { namespace: ns });
  await waitUntilGone('shared');

  // Removing the reference first orphans the object: deleting the owner then leaves it.
  const c = await client.create(ConfigMap, { metadata: { name: 'owner-c', namespace: ns } });
  const orphan: KubeObject = { metadata: { name: 'orphan', namespace: ns } };
  setControllerReference(c, orphan);
  const stored = await client.create(Secret, orphan);
  assert.equal(removeOwnerReference(c, stored), true);
  await client.update(Secret, stored);
  await client.delete(ConfigMap, 'owner-c', { namespace: ns });
  await collectorCaughtUp('after-c');
  assert.equal((await client.get(Secret, 'orphan', { namespace: ns })).metadata.ownerReferences, undefined);
});

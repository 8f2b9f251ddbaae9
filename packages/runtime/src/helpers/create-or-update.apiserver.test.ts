/**
 * createOrUpdate and createOrPatch against the embedded API server: every
 * OperationResult, writes only when something changed, status through the
 * status subresource, and controller-runtime's refusal of a renaming mutate.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@operant/apimachinery';
import { startApiServer, type RunningApiServer } from '@operant/apiserver';
import { Client } from '../client/index.js';
import { loadKubeConfig } from '../config/load.js';
import { defineKind } from '../kind.js';
import { createOrPatch, createOrUpdate, mutateChangedKeyMessage } from './create-or-update.js';

interface ConfigMapObject extends KubeObject {
  data?: Record<string, string>;
}
interface DeploymentObject extends KubeObject {
  spec?: {
    replicas?: number;
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: { containers: Array<{ name: string; image: string }> } };
  };
  status?: { observedGeneration?: number; replicas?: number; readyReplicas?: number };
}
const ConfigMap = defineKind<ConfigMapObject>({ group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true });
const Deployment = defineKind<DeploymentObject>({ group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', namespaced: true });
const Namespace = defineKind({ group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false });

let server: RunningApiServer;
let client: Client;
const ns = 'create-or';

before(async () => {
  server = await startApiServer({ port: 0 });
  client = Client.fromConfig(await loadKubeConfig({ kubeconfigText: server.kubeconfig }), { qps: Infinity });
  await client.create(Namespace, { metadata: { name: ns } });
});

after(async () => {
  client?.close();
  await server?.stop();
});

const deploymentSpec = (image: string, replicas = 1): NonNullable<DeploymentObject['spec']> => ({
  replicas,
  selector: { matchLabels: { app: 'web' } },
  template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image }] } },
});

describe('createOrUpdate', () => {
  test('created, then unchanged without a write, then updated', async () => {
    const key: ConfigMapObject = { metadata: { name: 'settings', namespace: ns } };
    let mode = 'fast';
    const mutate = (cm: ConfigMapObject): void => {
      cm.data = { ...cm.data, mode };
    };

    const created = await createOrUpdate(client, ConfigMap, key, mutate);
    assert.equal(created.result, 'created');
    assert.deepEqual(created.object.data, { mode: 'fast' });
    assert.equal(key.data, undefined, "the caller's object is not mutated");

    const unchanged = await createOrUpdate(client, ConfigMap, key, mutate);
    assert.equal(unchanged.result, 'unchanged');
    assert.equal(unchanged.object.metadata.resourceVersion, created.object.metadata.resourceVersion);
    assert.equal((await client.get(ConfigMap, 'settings', { namespace: ns })).metadata.resourceVersion, created.object.metadata.resourceVersion);

    // Fields others wrote are kept: mutate works on the live object.
    await client.patch(ConfigMap, 'settings', { data: { other: 'kept' } }, { namespace: ns });
    mode = 'slow';
    const updated = await createOrUpdate(client, ConfigMap, key, mutate);
    assert.equal(updated.result, 'updated');
    assert.deepEqual((await client.get(ConfigMap, 'settings', { namespace: ns })).data, { mode: 'slow', other: 'kept' });
    assert.notEqual(updated.object.metadata.resourceVersion, created.object.metadata.resourceVersion);
  });

  test('refuses a mutate that renames or moves the object, creating and updating', async () => {
    const rename = (cm: ConfigMapObject): void => {
      cm.metadata.name = 'other';
    };
    await assert.rejects(createOrUpdate(client, ConfigMap, { metadata: { name: 'renamed', namespace: ns } }, rename), { message: mutateChangedKeyMessage });
    await client.create(ConfigMap, { metadata: { name: 'moved', namespace: ns } });
    const move = (cm: ConfigMapObject): void => {
      cm.metadata.namespace = 'default';
    };
    await assert.rejects(createOrUpdate(client, ConfigMap, { metadata: { name: 'moved', namespace: ns } }, move), {
      message: 'MutateFn cannot mutate object name and/or object namespace',
    });
    await assert.rejects(createOrPatch(client, ConfigMap, { metadata: { name: 'moved', namespace: ns } }, rename), { message: mutateChangedKeyMessage });
  });

  test('a mutate error is passed through and nothing is written', async () => {
    await assert.rejects(
      createOrUpdate(client, ConfigMap, { metadata: { name: 'never', namespace: ns } }, () => {
        throw new Error('cannot compute');
      }),
      /cannot compute/,
    );
    await assert.rejects(client.get(ConfigMap, 'never', { namespace: ns }), { code: 404 });
  });
});

describe('createOrPatch', () => {
  test('created, unchanged, updated, updatedStatus and updatedStatusOnly', async () => {
    const key: DeploymentObject = { metadata: { name: 'web', namespace: ns } };
    let image = 'app:1';
    let status: DeploymentObject['status'] | undefined;
    const mutate = (d: DeploymentObject): void => {
      // Set the fields we own, leaving what the server defaulted (as with typed objects in Go).
      d.spec ??= deploymentSpec(image);
      d.spec.template.spec.containers[0].image = image;
      if (status) d.status = { ...d.status, ...status };
    };

    const created = await createOrPatch(client, Deployment, key, mutate);
    assert.equal(created.result, 'created');

    assert.equal((await createOrPatch(client, Deployment, key, mutate)).result, 'unchanged');
    const rvBefore = (await client.get(Deployment, 'web', { namespace: ns })).metadata.resourceVersion;
    assert.equal(rvBefore, created.object.metadata.resourceVersion, 'no write for no change');

    // Someone scales it: our patch carries only the image, so replicas stays 3.
    await client.patch(Deployment, 'web', { spec: { replicas: 3 } }, { namespace: ns });
    image = 'app:2';
    const updated = await createOrPatch(client, Deployment, key, mutate);
    assert.equal(updated.result, 'updated');
    let live = await client.get(Deployment, 'web', { namespace: ns });
    assert.equal(live.spec?.template.spec.containers[0].image, 'app:2');
    assert.equal(live.spec?.replicas, 3);

    status = { observedGeneration: live.metadata.generation, replicas: 3 };
    const statusOnly = await createOrPatch(client, Deployment, key, mutate);
    assert.equal(statusOnly.result, 'updatedStatusOnly');
    live = await client.get(Deployment, 'web', { namespace: ns });
    assert.equal(live.status?.replicas, 3);
    assert.equal(live.status?.observedGeneration, live.metadata.generation);
    assert.equal(live.spec?.template.spec.containers[0].image, 'app:2');

    image = 'app:3';
    status = { readyReplicas: 2 };
    const both = await createOrPatch(client, Deployment, key, mutate);
    assert.equal(both.result, 'updatedStatus');
    live = await client.get(Deployment, 'web', { namespace: ns });
    assert.equal(live.spec?.template.spec.containers[0].image, 'app:3');
    assert.deepEqual({ replicas: live.status?.replicas, readyReplicas: live.status?.readyReplicas }, { replicas: 3, readyReplicas: 2 });
    assert.equal(both.object.status?.readyReplicas, 2, 'the returned object is the last one written');

    assert.equal((await createOrPatch(client, Deployment, key, mutate)).result, 'unchanged');
  });

  test('patches only what changed: a concurrent write to another field survives', async () => {
    await client.create(ConfigMap, { metadata: { name: 'patched', namespace: ns }, data: { a: '1' } });
    const { result } = await createOrPatch(client, ConfigMap, { metadata: { name: 'patched', namespace: ns } }, async (cm) => {
      // Another writer changes the object between our read and our write.
      await client.patch(ConfigMap, 'patched', { data: { b: '2' } }, { namespace: ns });
      cm.data = { ...cm.data, c: '3' };
    });
    assert.equal(result, 'updated');
    assert.deepEqual((await client.get(ConfigMap, 'patched', { namespace: ns })).data, { a: '1', b: '2', c: '3' });
  });

  test('removing a field sends null in the merge patch', async () => {
    await client.create(ConfigMap, { metadata: { name: 'shrink', namespace: ns, labels: { keep: 'y', drop: 'y' } }, data: { a: '1' } });
    const { result } = await createOrPatch(client, ConfigMap, { metadata: { name: 'shrink', namespace: ns } }, (cm) => {
      delete cm.metadata.labels!.drop;
      delete cm.data;
    });
    assert.equal(result, 'updated');
    const live = await client.get(ConfigMap, 'shrink', { namespace: ns });
    assert.deepEqual(live.metadata.labels, { keep: 'y' });
    assert.equal(live.data, undefined);
  });
});

/**
 * createOrUpdate and createOrPatch against the embedded API server: every
 * OperationResult, writes only when something changed, status through the
 * status subresource, and controller-runtime's refusal of a renaming mutate.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type * as appsv1 from 'kubernetes-types/apps/v1.js';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import { ConfigMap, Deployment, type Typed } from '../builtins.js';
import { useApiServer } from '../testdata/api-server.js';
import { createOrPatch, createOrUpdate, mutateChangedKeyMessage } from './create-or-update.js';

type ConfigMapObject = Typed<corev1.ConfigMap>;
type DeploymentObject = Typed<appsv1.Deployment>;

const ns = 'create-or';
const api = useApiServer({ namespaces: [ns] });

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

    const created = await createOrUpdate(api.client, ConfigMap, key, mutate);
    assert.equal(created.result, 'created');
    assert.deepEqual(created.object.data, { mode: 'fast' });
    assert.equal(key.data, undefined, "the caller's object is not mutated");

    const unchanged = await createOrUpdate(api.client, ConfigMap, key, mutate);
    assert.equal(unchanged.result, 'unchanged');
    assert.equal(unchanged.object.metadata.resourceVersion, created.object.metadata.resourceVersion);
    assert.equal((await api.client.get(ConfigMap, 'settings', { namespace: ns })).metadata.resourceVersion, created.object.metadata.resourceVersion);

    // Fields others wrote are kept: mutate works on the live object.
    await api.client.patch(ConfigMap, 'settings', { data: { other: 'kept' } }, { namespace: ns });
    mode = 'slow';
    const updated = await createOrUpdate(api.client, ConfigMap, key, mutate);
    assert.equal(updated.result, 'updated');
    assert.deepEqual((await api.client.get(ConfigMap, 'settings', { namespace: ns })).data, { mode: 'slow', other: 'kept' });
    assert.notEqual(updated.object.metadata.resourceVersion, created.object.metadata.resourceVersion);
  });

  test('refuses a mutate that renames or moves the object, creating and updating', async () => {
    const rename = (cm: ConfigMapObject): void => {
      cm.metadata.name = 'other';
    };
    await assert.rejects(createOrUpdate(api.client, ConfigMap, { metadata: { name: 'renamed', namespace: ns } }, rename), { message: mutateChangedKeyMessage });
    await api.client.create(ConfigMap, { metadata: { name: 'moved', namespace: ns } });
    const move = (cm: ConfigMapObject): void => {
      cm.metadata.namespace = 'default';
    };
    await assert.rejects(createOrUpdate(api.client, ConfigMap, { metadata: { name: 'moved', namespace: ns } }, move), {
      message: 'MutateFn cannot mutate object name and/or object namespace',
    });
    await assert.rejects(createOrPatch(api.client, ConfigMap, { metadata: { name: 'moved', namespace: ns } }, rename), { message: mutateChangedKeyMessage });
  });

  test('a mutate error is passed through and nothing is written', async () => {
    await assert.rejects(
      createOrUpdate(api.client, ConfigMap, { metadata: { name: 'never', namespace: ns } }, () => {
        throw new Error('cannot compute');
      }),
      /cannot compute/,
    );
    await assert.rejects(api.client.get(ConfigMap, 'never', { namespace: ns }), { code: 404 });
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
      d.spec.template.spec!.containers[0].image = image;
      if (status) d.status = { ...d.status, ...status };
    };

    const created = await createOrPatch(api.client, Deployment, key, mutate);
    assert.equal(created.result, 'created');

    assert.equal((await createOrPatch(api.client, Deployment, key, mutate)).result, 'unchanged');
    const rvBefore = (await api.client.get(Deployment, 'web', { namespace: ns })).metadata.resourceVersion;
    assert.equal(rvBefore, created.object.metadata.resourceVersion, 'no write for no change');

    // Someone scales it: our patch carries only the image, so replicas stays 3.
    await api.client.patch(Deployment, 'web', { spec: { replicas: 3 } }, { namespace: ns });
    image = 'app:2';
    const updated = await createOrPatch(api.client, Deployment, key, mutate);
    assert.equal(updated.result, 'updated');
    let live = await api.client.get(Deployment, 'web', { namespace: ns });
    assert.equal(live.spec?.template.spec?.containers[0].image, 'app:2');
    assert.equal(live.spec?.replicas, 3);

    status = { observedGeneration: live.metadata.generation, replicas: 3 };
    const statusOnly = await createOrPatch(api.client, Deployment, key, mutate);
    assert.equal(statusOnly.result, 'updatedStatusOnly');
    live = await api.client.get(Deployment, 'web', { namespace: ns });
    assert.equal(live.status?.replicas, 3);
    assert.equal(live.status?.observedGeneration, live.metadata.generation);
    assert.equal(live.spec?.template.spec?.containers[0].image, 'app:2');

    image = 'app:3';
    status = { readyReplicas: 2 };
    const both = await createOrPatch(api.client, Deployment, key, mutate);
    assert.equal(both.result, 'updatedStatus');
    live = await api.client.get(Deployment, 'web', { namespace: ns });
    assert.equal(live.spec?.template.spec?.containers[0].image, 'app:3');
    assert.deepEqual({ replicas: live.status?.replicas, readyReplicas: live.status?.readyReplicas }, { replicas: 3, readyReplicas: 2 });
    assert.equal(both.object.status?.readyReplicas, 2, 'the returned object is the last one written');

    assert.equal((await createOrPatch(api.client, Deployment, key, mutate)).result, 'unchanged');
  });

  test('patches only what changed: a concurrent write to another field survives', async () => {
    await api.client.create(ConfigMap, { metadata: { name: 'patched', namespace: ns }, data: { a: '1' } });
    const { result } = await createOrPatch(api.client, ConfigMap, { metadata: { name: 'patched', namespace: ns } }, async (cm) => {
      // Another writer changes the object between our read and our write.
      await api.client.patch(ConfigMap, 'patched', { data: { b: '2' } }, { namespace: ns });
      cm.data = { ...cm.data, c: '3' };
    });
    assert.equal(result, 'updated');
    assert.deepEqual((await api.client.get(ConfigMap, 'patched', { namespace: ns })).data, { a: '1', b: '2', c: '3' });
  });

  test('removing a field sends null in the merge patch', async () => {
    await api.client.create(ConfigMap, { metadata: { name: 'shrink', namespace: ns, labels: { keep: 'y', drop: 'y' } }, data: { a: '1' } });
    const { result } = await createOrPatch(api.client, ConfigMap, { metadata: { name: 'shrink', namespace: ns } }, (cm) => {
      delete cm.metadata.labels!.drop;
      delete cm.data;
    });
    assert.equal(result, 'updated');
    const live = await api.client.get(ConfigMap, 'shrink', { namespace: ns });
    assert.deepEqual(live.metadata.labels, { keep: 'y' });
    assert.equal(live.data, undefined);
  });
});

/**
 * The root CA publisher in a simulated cluster on the embedded server: each
 * namespace gets `kube-root-ca.crt` with the server's CA and kube's
 * description; a changed or deleted one is put back.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigMap, Namespace, type Client, type Typed } from '@operant/runtime';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import { useTestCluster, type TestCluster } from '../testdata/test-cluster.js';
import { watchUntil } from '../testdata/watch-until.js';
import { rootCaConfigMapName } from './root-ca-publisher.js';

type ConfigMapObject = Typed<corev1.ConfigMap>;

let env: TestCluster;
let client: Client;
useTestCluster({ nodes: 0, controllers: ['root-ca-cert-publisher'] }, (started) => {
  env = started;
  client = started.client;
});

const description =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

/** Waits until the namespace's kube-root-ca.crt is the published one. */
async function published(ns: string): Promise<ConfigMapObject> {
  const ok = (cm: ConfigMapObject | undefined): boolean => cm?.data?.['ca.crt'] === env.server.caPem && cm.metadata.annotations?.['kubernetes.io/description'] === description;
  const seen = await watchUntil(client, ConfigMap, ns, (o) => ok(o.get(rootCaConfigMapName)));
  return seen.get(rootCaConfigMapName)!;
}

describe('root CA publisher', () => {
  it("gives every namespace kube-root-ca.crt with the cluster's CA, and puts it back when changed or deleted", async () => {
    // Namespaces that were there before the cluster started have it too.
    const inDefault = await published('default');
    assert.deepEqual(Object.keys(inDefault.data ?? {}), ['ca.crt']);

    await client.create(Namespace, { metadata: { name: 'team-a' } });
    const first = await published('team-a');

    // Changed data (and an extra key) and a removed annotation are put back.
    await client.update(ConfigMap, { ...first, metadata: { ...first.metadata, annotations: {} }, data: { 'ca.crt': 'not a CA', extra: 'x' } });
    const restored = await published('team-a');
    assert.deepEqual(restored.data, { 'ca.crt': env.server.caPem });
    assert.equal(restored.metadata.uid, first.metadata.uid);

    // Deleted, it comes back as a new object.
    await client.delete(ConfigMap, rootCaConfigMapName, { namespace: 'team-a' });
    const recreated = await published('team-a');
    assert.notEqual(recreated.metadata.uid, first.metadata.uid);
  });
});

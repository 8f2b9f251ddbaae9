/**
 * What a 1.32 cluster's built-in admission adds to a new pod (issue 17, bug 5):
 * ServiceAccount (the account's name twice and its token as the projected
 * kube-api-access-<random> volume, mounted in every container) and
 * DefaultTolerationSeconds (300 s NoExecute tolerations for not-ready and
 * unreachable nodes).
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { TestApi, type Json } from './support/api-client.js';

let api: TestApi;

before(async () => {
  api = await TestApi.start();
});
after(async () => {
  await api?.stop();
});

const pods = '/api/v1/namespaces/default/pods';
const pod = (name: string, spec: Json = {}): Json => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { initContainers: [{ name: 'init', image: 'busybox' }], containers: [{ name: 'web', image: 'nginx' }], ...spec },
});

it('a bare pod gets the service account, its token volume in every container, and the two tolerations', async () => {
  const created = await api.ok('POST', pods, pod('bare'), 201);
  const spec = created.spec;
  assert.equal(spec.serviceAccountName, 'default');
  assert.equal(spec.serviceAccount, 'default');
  assert.equal(spec.volumes.length, 1);
  const volume = spec.volumes[0];
  assert.match(volume.name, /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  assert.deepEqual(volume.projected, {
    defaultMode: 420,
    sources: [
      { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
      { configMap: { items: [{ key: 'ca.crt', path: 'ca.crt' }], name: 'kube-root-ca.crt' } },
      { downwardAPI: { items: [{ fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' }, path: 'namespace' }] } },
    ],
  });
  for (const c of [...spec.initContainers, ...spec.containers]) {
    assert.deepEqual(c.volumeMounts, [{ mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', name: volume.name, readOnly: true }], c.name);
  }
  assert.deepEqual(spec.tolerations, [
    { effect: 'NoExecute', key: 'node.kubernetes.io/not-ready', operator: 'Exists', tolerationSeconds: 300 },
    { effect: 'NoExecute', key: 'node.kubernetes.io/unreachable', operator: 'Exists', tolerationSeconds: 300 },
  ]);
});

it('automountServiceAccountToken: false mounts nothing; a named account is kept; a pod\'s own toleration is not doubled', async () => {
  const created = await api.ok(
    'POST',
    pods,
    pod('opted-out', {
      automountServiceAccountToken: false,
      serviceAccountName: 'builder',
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 }],
    }),
    201,
  );
  assert.equal(created.spec.volumes, undefined);
  assert.equal(created.spec.containers[0].volumeMounts, undefined);
  assert.equal(created.spec.serviceAccount, 'builder');
  assert.deepEqual(created.spec.tolerations.map((t: Json) => `${t.key}:${t.tolerationSeconds}`), ['node.kubernetes.io/not-ready:60', 'node.kubernetes.io/unreachable:300']);
});

it('a toleration of every taint covers both; a container with its own mount at the path keeps it', async () => {
  const created = await api.ok(
    'POST',
    pods,
    pod('own-mount', {
      tolerations: [{ operator: 'Exists' }],
      volumes: [{ name: 'token', emptyDir: {} }],
      containers: [{ name: 'web', image: 'nginx', volumeMounts: [{ name: 'token', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }] }],
    }),
    201,
  );
  assert.deepEqual(created.spec.tolerations, [{ operator: 'Exists' }]);
  assert.deepEqual(created.spec.containers[0].volumeMounts, [{ name: 'token', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }]);
  // The init container had no mount there, so it gets the projected volume.
  assert.match(created.spec.initContainers[0].volumeMounts[0].name, /^kube-api-access-/);
});

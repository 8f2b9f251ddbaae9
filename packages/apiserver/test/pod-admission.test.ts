/**
 * What a 1.32 cluster's built-in admission adds to a new pod (issue 17, bug 5):
 * ServiceAccount (the account's name twice and its token as the projected
 * kube-api-access-<random> volume, mounted in every container) and
 * DefaultTolerationSeconds (300 s NoExecute tolerations for not-ready and
 * unreachable nodes).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
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

it("the creator's managedFields hold what it sent and the defaults, not what admission added (kube records them before the admission chain)", async () => {
  const created = await api.ok('POST', pods, pod('owned', { priorityClassName: 'system-node-critical' }), 201);
  assert.match(created.spec.volumes[0].name, /^kube-api-access-/);
  const entries = created.metadata.managedFields as Json[];
  assert.deepEqual(entries.map((e) => e.operation), ['Update']);
  const spec = entries[0]!.fieldsV1['f:spec'];
  assert.ok(spec['f:containers']['k:{"name":"web"}']['f:image'], 'the request\'s own fields are owned');
  assert.ok(spec['f:dnsPolicy'], 'the defaults are owned');
  assert.ok(spec['f:priorityClassName'], 'the class the request named is owned');
  for (const added of ['f:volumes', 'f:tolerations', 'f:serviceAccount', 'f:serviceAccountName', 'f:priority', 'f:preemptionPolicy']) assert.equal(spec[added], undefined, added);
  assert.equal(spec['f:containers']['k:{"name":"web"}']['f:volumeMounts'], undefined);
  assert.equal(spec['f:initContainers']['k:{"name":"init"}']['f:volumeMounts'], undefined);
});

describe('Priority admission', () => {
  const classes = '/apis/scheduling.k8s.io/v1/priorityclasses';
  const priorityClass = (name: string, value: number, extra: Json = {}): Json => ({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value, ...extra });

  it('the system classes exist at start; naming one gives the pod its value and policy', async () => {
    const list = await api.ok('GET', classes);
    assert.deepEqual(list.items.map((c: Json) => [c.metadata.name, c.value, c.preemptionPolicy]).sort(), [
      ['system-cluster-critical', 2000000000, 'PreemptLowerPriority'],
      ['system-node-critical', 2000001000, 'PreemptLowerPriority'],
    ]);
    const created = await api.ok('POST', pods, pod('critical', { priorityClassName: 'system-node-critical' }), 201);
    assert.equal(created.spec.priority, 2000001000);
    assert.equal(created.spec.preemptionPolicy, 'PreemptLowerPriority');
  });

  it('without a class and without a global default: priority 0, PreemptLowerPriority, no class name', async () => {
    const created = await api.ok('POST', pods, pod('plain'), 201);
    assert.equal(created.spec.priority, 0);
    assert.equal(created.spec.preemptionPolicy, 'PreemptLowerPriority');
    assert.equal(created.spec.priorityClassName, undefined);
  });

  it('an unknown class is Forbidden, in kube words, also under generateName', async () => {
    const r = await api.request('POST', pods, pod('lost', { priorityClassName: 'nope' }));
    assert.equal(r.status, 403);
    assert.equal(r.body.reason, 'Forbidden');
    assert.equal(r.body.message, 'pods "lost" is forbidden: no PriorityClass with name nope was found');
    assert.deepEqual(r.body.details, { name: 'lost', kind: 'pods' });
    const generated = await api.request('POST', pods, { ...pod(''), metadata: { generateName: 'gen-' }, spec: { containers: [{ name: 'c', image: 'x' }], priorityClassName: 'nope' } });
    assert.equal(generated.body.message, 'pods "gen-" is forbidden: no PriorityClass with name nope was found');
  });

  it("a user class gives its value and preemptionPolicy; a pod's own priority or policy that disagrees is refused", async () => {
    await api.ok('POST', classes, priorityClass('batch-low', 1000, { preemptionPolicy: 'Never' }), 201);
    const created = await api.ok('POST', pods, pod('low', { priorityClassName: 'batch-low' }), 201);
    assert.equal(created.spec.priority, 1000);
    assert.equal(created.spec.preemptionPolicy, 'Never');
    // The same values, given by the pod, are accepted (a pod copied from another).
    await api.ok('POST', pods, pod('low-copy', { priorityClassName: 'batch-low', priority: 1000, preemptionPolicy: 'Never' }), 201);
    const wrongValue = await api.request('POST', pods, pod('low-5', { priorityClassName: 'batch-low', priority: 5 }));
    assert.equal(wrongValue.status, 403);
    assert.equal(
      wrongValue.body.message,
      'pods "low-5" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name',
    );
    const wrongPolicy = await api.request('POST', pods, pod('low-preempt', { priorityClassName: 'batch-low', preemptionPolicy: 'PreemptLowerPriority' }));
    assert.equal(wrongPolicy.status, 403);
    assert.equal(
      wrongPolicy.body.message,
      'pods "low-preempt" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name',
    );
    // An update that leaves the priority out keeps it (the plugin restores it), rather than failing validation.
    const { priority: _p, preemptionPolicy: _pp, ...specWithout } = created.spec;
    const updated = await api.ok('PUT', `${pods}/low`, { ...created, metadata: { ...created.metadata, labels: { tier: 'low' } }, spec: specWithout }, 200);
    assert.equal(updated.spec.priority, 1000);
    assert.equal(updated.spec.preemptionPolicy, 'Never');
  });

  it('the global default class applies to a pod that names none; only one default may exist', async () => {
    await api.ok('POST', classes, priorityClass('everyday', 100, { globalDefault: true }), 201);
    try {
      const created = await api.ok('POST', pods, pod('defaulted'), 201);
      assert.equal(created.spec.priorityClassName, 'everyday');
      assert.equal(created.spec.priority, 100);
      assert.equal(created.spec.preemptionPolicy, 'PreemptLowerPriority');
      const second = await api.request('POST', classes, priorityClass('other-default', 200, { globalDefault: true }));
      assert.equal(second.status, 403);
      assert.equal(second.body.message, 'priorityclasses.scheduling.k8s.io "other-default" is forbidden: PriorityClass everyday is already marked as default. Only one default can exist');
    } finally {
      await api.ok('DELETE', `${classes}/everyday`);
    }
  });
});

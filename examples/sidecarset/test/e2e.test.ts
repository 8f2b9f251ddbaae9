/**
 * The operator end to end against the embedded API server: the CRD, the
 * manager with its controller and its three webhooks on a local port, and the
 * webhook configurations of config/webhook/manifests.yaml pointed at it. A
 * SidecarSet gets its defaults and hashes, a pod gets its sidecars, an
 * invalid or conflicting SidecarSet is refused with Kruise's message, and the
 * status counts the pod. Pods do not run in the embedded server (no kubelet
 * yet), so readyPods stays 0.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, Pod, type Manager } from '@operant/runtime';
import { SidecarSet } from '../src/api/v1alpha1/zz_generated.kinds.js';
import { readPodHashes, SidecarSetHashAnnotation, SidecarSetHashWithoutImageAnnotation, SidecarSetListAnnotation } from '../src/sidecarset/annotations.js';
import { sidecarSetHash, sidecarSetHashWithoutImage } from '../src/sidecarset/hash/hash.js';
import { startTestEnv, type TestEnv } from './support.js';

describe('the SidecarSet operator on the embedded API server', () => {
  let env: TestEnv;
  let manager: { mgr: Manager; stop(): Promise<void> };
  before(async () => {
    env = await startTestEnv();
    manager = await env.startOperator();
  });
  after(async () => {
    await manager?.stop();
    await env?.stop();
  });

  const logSidecars = {
    metadata: { name: 'log-sidecars' },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      containers: [
        { name: 'log-shipper', image: 'busybox:1.36', volumeMounts: [{ name: 'logs', mountPath: '/var/log/app' }] },
        { name: 'metrics', image: 'prom/statsd-exporter', podInjectPolicy: 'AfterAppContainer' },
      ],
      volumes: [{ name: 'logs', emptyDir: {} }],
    },
  };

  it('a new SidecarSet gets Kruise\'s defaults and its two hash annotations', async () => {
    const created = await env.client.create(SidecarSet, logSidecars);
    const spec = created.spec!;
    assert.deepEqual(spec.updateStrategy, { type: 'RollingUpdate', maxUnavailable: 1, partition: 0 });
    assert.equal(spec.revisionHistoryLimit, 10);
    const [shipper, metrics] = spec.containers!;
    assert.equal(shipper!.podInjectPolicy, 'BeforeAppContainer');
    assert.equal(metrics!.podInjectPolicy, 'AfterAppContainer');
    assert.deepEqual(shipper!.upgradeStrategy, { upgradeType: 'ColdUpgrade' });
    assert.deepEqual(shipper!.shareVolumePolicy, { type: 'disabled' });
    assert.equal(shipper!.imagePullPolicy, 'IfNotPresent');
    assert.equal(metrics!.imagePullPolicy, 'Always'); // untagged: latest
    assert.equal(shipper!.terminationMessagePath, '/dev/termination-log');
    assert.equal(created.metadata.annotations?.[SidecarSetHashAnnotation], sidecarSetHash(spec));
    assert.equal(created.metadata.annotations?.[SidecarSetHashWithoutImageAnnotation], sidecarSetHashWithoutImage(spec));
    // The controller has seen it (and so has the cache the pod webhook reads) once it writes a first status.
    const seen = await env.waitFor(SidecarSet, 'log-sidecars', (s) => s.status?.observedGeneration === 1);
    assert.match(seen.status!.latestRevision!, /^log-sidecars-/);
    assert.deepEqual(seen.status, { observedGeneration: 1, matchedPods: 0, updatedPods: 0, readyPods: 0, updatedReadyPods: 0, latestRevision: seen.status!.latestRevision, collisionCount: 0 });
  });

  it('a pod it selects gets the sidecars, in order, with the annotations', async () => {
    const pod = await env.client.create(Pod, {
      metadata: { name: 'web-1', namespace: 'default', labels: { app: 'web' } },
      spec: { containers: [{ name: 'main', image: 'nginx:1.25' }] },
    });
    assert.deepEqual(
      pod.spec!.containers.map((c) => c.name),
      ['log-shipper', 'main', 'metrics'],
    );
    const shipper = pod.spec!.containers[0]!;
    assert.deepEqual(shipper.env, [{ name: 'IS_INJECTED', value: 'true' }]);
    assert.deepEqual(pod.spec!.volumes?.find((v) => v.name === 'logs')?.emptyDir, {});
    const annotations = pod.metadata.annotations!;
    assert.equal(annotations[SidecarSetListAnnotation], 'log-sidecars');
    const set = await env.client.get(SidecarSet, 'log-sidecars');
    const record = readPodHashes(annotations, SidecarSetHashAnnotation)['log-sidecars']!;
    assert.equal(record.hash, set.metadata.annotations![SidecarSetHashAnnotation]);
    assert.deepEqual(record.sidecarList, ['log-shipper', 'metrics']);
    assert.match(record.updateTimestamp!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(readPodHashes(annotations, SidecarSetHashWithoutImageAnnotation)['log-sidecars']!.hash, set.metadata.annotations![SidecarSetHashWithoutImageAnnotation]);

    const other = await env.client.create(Pod, { metadata: { name: 'db-1', namespace: 'default', labels: { app: 'db' } }, spec: { containers: [{ name: 'main', image: 'postgres:16' }] } });
    assert.deepEqual(other.spec!.containers.map((c) => c.name), ['main']);
    assert.equal(other.metadata.annotations?.[SidecarSetListAnnotation], undefined);
  });

  it('an invalid SidecarSet is refused with Kruise\'s message', async () => {
    const err = await env.client.create(SidecarSet, { metadata: { name: 'no-selector' }, spec: { containers: [{ name: 'x', image: 'busybox:1.36' }] } }).then(
      () => assert.fail('created'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ApiError, String(err));
    assert.equal(err.code, 422);
    assert.match(err.message, /spec\.selector: Required value: no selector defined for SidecarSet/);
  });

  it('a SidecarSet whose container clashes with another\'s is refused', async () => {
    const clash = { metadata: { name: 'clash' }, spec: { selector: { matchLabels: { app: 'web' } }, containers: [{ name: 'log-shipper', image: 'busybox:1.36' }] } };
    await assert.rejects(env.client.create(SidecarSet, clash), /spec\.containers: Invalid value: "log-shipper": container log-shipper already exist in log-sidecars/);
  });

  it('the status counts the pod (matched and updated; not ready: nothing runs pods here yet)', async () => {
    const set = await env.waitFor(SidecarSet, 'log-sidecars', (s) => s.status?.matchedPods === 1);
    assert.deepEqual(set.status, { observedGeneration: 1, matchedPods: 1, updatedPods: 1, readyPods: 0, updatedReadyPods: 0, latestRevision: set.status!.latestRevision, collisionCount: 0 });
  });
});

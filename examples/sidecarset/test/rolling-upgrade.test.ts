/**
 * The in-place upgrade end to end, on the embedded API server with three
 * simulated nodes whose kubelets run the pods and restart a container in
 * place when its image changes (@operant/controllers), and the operator, as
 * its ServiceAccount, with its webhooks. Kruise's e2e scenarios
 * (test/e2e/apps/sidecarset.go: "sidecarSet upgrade cold sidecar",
 * "sidecarSet upgrade with partition", "sidecarSet upgrade with maxUnavailable")
 * in our own words:
 *
 * - a 10-pod Deployment gets the sidecar; changing its image rolls through
 *   every pod in place with never more than maxUnavailable (2) upgraded pods
 *   unavailable at any watch event, and the counts converge to 10/10/10;
 * - with `partition: 3`, exactly 3 pods keep the old image;
 * - each distinct sidecar template is a ControllerRevision, and the pods
 *   record the one they run.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startSimulatedCluster, type SimulatedCluster } from '@operant/controllers';
import { ControllerRevision, Deployment, Namespace, Pod, type JsonPatchOp, type Manager, type Typed } from '@operant/runtime';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import { SidecarSet } from '../src/api/v1alpha1/zz_generated.kinds.js';
import { readPodHashes, SidecarSetHashAnnotation } from '../src/sidecarset/annotations.js';
import { isPodConsistent, isPodUpdated, isRunningAndReady } from '../src/sidecarset/status/status.js';
import { operatorNamespace, startTestEnv, type TestEnv } from './support.js';

type PodObject = Typed<corev1.Pod>;
const namespace = 'rolling';

describe('in-place sidecar upgrade on a simulated cluster', () => {
  let env: TestEnv;
  let cluster: SimulatedCluster;
  let manager: { mgr: Manager; stop(): Promise<void> };
  before(async () => {
    env = await startTestEnv();
    // A restart takes a moment, so that an upgrade is seen in flight.
    cluster = await startSimulatedCluster({ kubeconfig: env.adminConfig, nodes: 3, timing: { restartSeconds: 0.3 } });
    manager = await env.startOperator();
    await env.client.create(Namespace, { metadata: { name: namespace } });
  });
  after(async () => {
    await manager?.stop();
    await cluster?.stop();
    await env?.stop();
  });

  /** The pods of the namespace, as last seen by a watch; `check` runs after every event. */
  function followPods(check: (pods: PodObject[]) => void): { stop(): void; failure(): unknown } {
    const abort = new AbortController();
    const pods = new Map<string, PodObject>();
    let failure: unknown;
    void (async () => {
      try {
        for await (const event of env.client.watch(Pod, { namespace, signal: abort.signal })) {
          if (event.type === 'BOOKMARK' || event.type === 'ERROR') continue;
          const name = event.object.metadata.name!;
          if (event.type === 'DELETED') pods.delete(name);
          else pods.set(name, event.object);
          check([...pods.values()]);
        }
      } catch (err) {
        if (!abort.signal.aborted) failure = err;
      }
    })();
    return { stop: () => abort.abort(), failure: () => failure };
  }

  /** Changes the sidecar's image (and the strategy); resolves with the SidecarSet the webhooks made of it. */
  function setImage(image: string, updateStrategy?: Record<string, unknown>) {
    const ops: JsonPatchOp[] = [
      { op: 'replace', path: '/spec/containers/0/image', value: image },
      ...Object.entries(updateStrategy ?? {}).map(([field, value]): JsonPatchOp => ({ op: 'add', path: `/spec/updateStrategy/${field}`, value })),
    ];
    return env.client.patch(SidecarSet, 'log-agent', ops, { patchType: 'json' });
  }

  const sidecarImages = async () => {
    const { items } = await env.client.list(Pod, { namespace });
    return items.map((p) => p.status?.containerStatuses?.find((c) => c.name === 'log-agent')?.image).sort();
  };

  it('a 10-pod Deployment gets the sidecar: MATCHED 10 / UPDATED 10 / READY 10', async () => {
    await env.client.create(SidecarSet, {
      metadata: { name: 'log-agent' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        namespace,
        containers: [{ name: 'log-agent', image: 'busybox:1.36', command: ['sh', '-c', 'tail -F /var/log/app.log'] }],
        updateStrategy: { maxUnavailable: 2 },
      },
    });
    // Pods name the revision that injected them once the controller has recorded it.
    await env.waitFor(SidecarSet, 'log-agent', (s) => s.status?.latestRevision !== undefined);
    await env.client.create(Deployment, {
      metadata: { name: 'web', namespace },
      spec: {
        replicas: 10,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } },
      },
    });
    const set = await env.waitFor(SidecarSet, 'log-agent', (s) => s.status?.readyPods === 10 && s.status.updatedPods === 10, { timeoutMs: 30_000 });
    assert.deepEqual([set.status!.matchedPods, set.status!.updatedPods, set.status!.readyPods, set.status!.updatedReadyPods], [10, 10, 10, 10]);
    const { items } = await env.client.list(Pod, { namespace });
    for (const pod of items) {
      assert.deepEqual(pod.spec!.containers.map((c) => c.name), ['log-agent', 'nginx']);
      assert.equal(readPodHashes(pod.metadata.annotations, SidecarSetHashAnnotation)['log-agent']!.controllerRevision, set.status!.latestRevision);
    }
  });

  it('a new image rolls through the pods in place, never more than maxUnavailable (2) upgraded pods unavailable', async () => {
    const before = await env.client.list(Pod, { namespace });
    const uids = before.items.map((p) => p.metadata.uid).sort();
    let target: ReturnType<typeof setImage> extends Promise<infer T> ? T : never;
    let worst = 0;
    let upgradedSeen = 0;
    const follower = followPods((pods) => {
      if (!target) return;
      const upgraded = pods.filter((p) => isPodUpdated(target, p));
      const unavailable = upgraded.filter((p) => !isPodConsistent(p, target) || !isRunningAndReady(p)).length;
      worst = Math.max(worst, unavailable);
      upgradedSeen = Math.max(upgradedSeen, upgraded.length);
      assert.ok(unavailable <= 2, `${unavailable} upgraded pods unavailable at once: ${upgraded.filter((p) => !isRunningAndReady(p) || !isPodConsistent(p, target)).map((p) => p.metadata.name)}`);
    });
    try {
      target = await setImage('busybox:1.37');
      const set = await env.waitFor(SidecarSet, 'log-agent', (s) => s.status?.observedGeneration === 2 && s.status.updatedReadyPods === 10, { timeoutMs: 30_000 });
      assert.deepEqual([set.status!.matchedPods, set.status!.updatedPods, set.status!.readyPods], [10, 10, 10]);
    } finally {
      follower.stop();
    }
    assert.equal(follower.failure(), undefined);
    assert.equal(upgradedSeen, 10);
    assert.ok(worst >= 1, 'the upgrade was seen in flight');
    // In place: the same pods, each sidecar restarted once, now on the new image.
    const after = await env.client.list(Pod, { namespace });
    assert.deepEqual(after.items.map((p) => p.metadata.uid).sort(), uids);
    for (const pod of after.items) {
      const status = pod.status!.containerStatuses!.find((c) => c.name === 'log-agent')!;
      assert.equal(status.image, 'docker.io/library/busybox:1.37');
      assert.equal(status.restartCount, 1);
      assert.ok(pod.metadata.annotations!['kruise.io/sidecarset-inplace-update-state']!.includes('"log-agent"'));
      assert.equal(pod.status!.conditions!.find((c) => c.type === 'SidecarSetUpgradable')?.status, 'True');
    }
  });

  it('with partition 3, exactly 3 pods keep the old image', async () => {
    await setImage('busybox:1.38', { partition: 3 });
    const set = await env.waitFor(SidecarSet, 'log-agent', (s) => s.status?.observedGeneration === 3 && s.status.updatedReadyPods === 7 && s.status.readyPods === 10, { timeoutMs: 30_000 });
    assert.deepEqual([set.status!.matchedPods, set.status!.updatedPods, set.status!.readyPods], [10, 7, 10]);
    assert.deepEqual(await sidecarImages(), [...Array(3).fill('docker.io/library/busybox:1.37'), ...Array(7).fill('docker.io/library/busybox:1.38')]);
  });

  it('records a ControllerRevision per sidecar template; going back to one renumbers it instead of making another', async () => {
    const revisions = async () =>
      (await env.client.list(ControllerRevision, { namespace: operatorNamespace, labelSelector: { 'kruise.io/sidecarset-name': 'log-agent' } })).items.sort((a, b) => a.revision - b.revision);
    let list = await revisions();
    assert.equal(list.length, 3);
    const set = await env.client.get(SidecarSet, 'log-agent');
    assert.equal(list.at(-1)!.metadata.name, set.status!.latestRevision);
    const first = list[0]!;
    assert.equal(first.metadata.ownerReferences![0]!.uid, set.metadata.uid);
    assert.equal((first.data as { spec: { containers: Array<{ image: string }> } }).spec.containers[0]!.image, 'busybox:1.36');

    await setImage('busybox:1.36', { partition: 0 });
    await env.waitFor(SidecarSet, 'log-agent', (s) => s.status?.observedGeneration === 4 && s.status.latestRevision === first.metadata.name && s.status.updatedReadyPods === 10, { timeoutMs: 30_000 });
    list = await revisions();
    assert.deepEqual(list.map((r) => [r.metadata.name, r.revision]).at(-1), [first.metadata.name, 4]);
    assert.equal(list.length, 3);
    assert.deepEqual(await sidecarImages(), Array(10).fill('docker.io/library/busybox:1.36'));
  });

  it('injectionStrategy.revision: new pods get the named revision, not the latest (NotUpdate leaves the running ones alone)', async () => {
    const before = await env.client.get(SidecarSet, 'log-agent');
    const pinned = before.status!.latestRevision!;
    await env.client.patch(
      SidecarSet,
      'log-agent',
      [
        { op: 'replace', path: '/spec/containers/0/image', value: 'busybox:1.40' },
        { op: 'replace', path: '/spec/updateStrategy', value: { type: 'NotUpdate' } },
        { op: 'add', path: '/spec/injectionStrategy', value: { revision: { revisionName: pinned } } },
      ],
      { patchType: 'json' },
    );
    const latest = await env.waitFor(SidecarSet, 'log-agent', (s) => s.status?.observedGeneration === 5 && s.status.latestRevision !== pinned);
    const existing = new Set((await env.client.list(Pod, { namespace })).items.map((p) => p.metadata.uid));
    await env.client.patch(Deployment, 'web', { spec: { replicas: 12 } }, { namespace });
    await env.waitFor(SidecarSet, 'log-agent', (s) => s.status?.matchedPods === 12, { timeoutMs: 30_000 });
    const { items } = await env.client.list(Pod, { namespace });
    const images = items.map((p) => p.spec!.containers.find((c) => c.name === 'log-agent')!.image).sort();
    assert.deepEqual(images, Array(12).fill('busybox:1.36'), 'the new pods got the pinned revision; the others were not updated');
    const added = items.filter((p) => !existing.has(p.metadata.uid));
    assert.equal(added.length, 2);
    const revision = await env.client.get(ControllerRevision, pinned, { namespace: operatorNamespace });
    for (const pod of added) {
      const record = readPodHashes(pod.metadata.annotations, SidecarSetHashAnnotation)['log-agent']!;
      assert.equal(record.controllerRevision, pinned);
      assert.equal(record.hash, revision.metadata.annotations![SidecarSetHashAnnotation]);
      assert.notEqual(record.hash, latest.metadata.annotations![SidecarSetHashAnnotation]);
    }
  });
});

/**
 * The SidecarSet controller against the embedded API server, without
 * webhooks: pods that carry the injection annotations, as the pod webhook
 * would leave them, are counted in the SidecarSet's status, which follows
 * them as they change (Kruise's pkg/controller/sidecarset tests, end to end).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Pod, type Typed } from '@operant/runtime';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import { setupSidecarSetController } from '../src/controllers/sidecarset-controller.js';
import { SidecarSet } from '../src/api/v1alpha1/zz_generated.kinds.js';
import { SidecarSetHashAnnotation, SidecarSetListAnnotation } from '../src/sidecarset/annotations.js';
import { startTestEnv, type TestEnv } from './support.js';

describe('SidecarSet controller', () => {
  let env: TestEnv;
  before(async () => {
    env = await startTestEnv();
  });
  after(async () => {
    await env.stop();
  });

  const pod = (name: string, hash: string): Typed<corev1.Pod> => ({
    metadata: {
      name,
      namespace: 'default',
      labels: { app: 'nginx' },
      annotations: { [SidecarSetListAnnotation]: 'status-test', [SidecarSetHashAnnotation]: `{"status-test":{"hash":"${hash}","sidecarList":["test-sidecar"]}}` },
    },
    spec: {
      containers: [
        { name: 'nginx', image: 'nginx:1.15.1' },
        { name: 'test-sidecar', image: 'test-image:v2', env: [{ name: 'IS_INJECTED', value: 'true' }] },
      ],
    },
  });

  it('counts the injected pods, and follows them as they become ready and go away', async () => {
    const { stop } = await env.startManager(setupSidecarSetController);
    try {
      await env.client.create(SidecarSet, {
        metadata: { name: 'status-test', annotations: { [SidecarSetHashAnnotation]: 'current' } },
        // Paused: this test is about the counts; the in-place upgrade of the outdated pod has tests of its own.
        spec: { selector: { matchLabels: { app: 'nginx' } }, containers: [{ name: 'test-sidecar', image: 'test-image:v2' }], updateStrategy: { paused: true } },
      });
      await env.client.create(Pod, pod('updated', 'current'));
      await env.client.create(Pod, pod('outdated', 'old'));
      let set = await env.waitFor(SidecarSet, 'status-test', (s) => s.status?.matchedPods === 2);
      const revision = { latestRevision: set.status!.latestRevision, collisionCount: 0 };
      assert.match(revision.latestRevision!, /^status-test-[bcdfghjklmnpqrstvwxz2456789]+$/);
      assert.deepEqual(set.status, { observedGeneration: 1, matchedPods: 2, updatedPods: 1, readyPods: 0, updatedReadyPods: 0, ...revision });

      // The kubelet's part, by hand: the updated pod runs and is ready.
      const running = await env.client.get(Pod, 'updated', { namespace: 'default' });
      await env.client.updateStatus(Pod, {
        ...running,
        status: {
          phase: 'Running',
          conditions: [{ type: 'Ready', status: 'True' }],
          containerStatuses: running.spec!.containers.map((c) => ({ name: c.name, image: c.image!, imageID: '', ready: true, restartCount: 0 })),
        },
      });
      set = await env.waitFor(SidecarSet, 'status-test', (s) => s.status?.readyPods === 1);
      assert.deepEqual(set.status, { observedGeneration: 1, matchedPods: 2, updatedPods: 1, readyPods: 1, updatedReadyPods: 1, ...revision });

      await env.client.delete(Pod, 'outdated', { namespace: 'default', gracePeriodSeconds: 0 });
      set = await env.waitFor(SidecarSet, 'status-test', (s) => s.status?.matchedPods === 1);
      assert.deepEqual(set.status, { observedGeneration: 1, matchedPods: 1, updatedPods: 1, readyPods: 1, updatedReadyPods: 1, ...revision });
    } finally {
      await stop();
    }
  });
});

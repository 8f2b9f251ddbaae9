/**
 * Status calculation and the pod events that trigger it, pure: scenarios of
 * Kruise's pkg/controller/sidecarset/sidecarset_controller_test.go,
 * sidecarset_processor_test.go and sidecarset_pod_event_handler_test.go,
 * with Kruise's sidecarSetDemo and podDemo fixtures retold.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { SidecarSet } from '../src/api/v1alpha1/sidecarset-types.js';
import { SidecarSetHashAnnotation, SidecarSetListAnnotation } from '../src/sidecarset/annotations.js';
import { calculateStatus, isPodConsistent, matchedPods, statusChanged } from '../src/sidecarset/status/status.js';
import { podUpdateMatters, sidecarSetsOfPod } from '../src/sidecarset/status/pod-events.js';
import { sameImage } from '../src/sidecarset/status/images.js';

const sidecarSetDemo: SidecarSet = {
  metadata: { name: 'test-sidecarset', generation: 3, annotations: { [SidecarSetHashAnnotation]: 'bbb' }, labels: {} },
  spec: {
    containers: [{ name: 'test-sidecar', image: 'test-image:v2' }],
    selector: { matchLabels: { app: 'nginx' } },
    updateStrategy: {},
    revisionHistoryLimit: 10,
  },
};

const podDemo: Pod = {
  metadata: {
    name: 'test-pod-1',
    namespace: 'default',
    resourceVersion: '1',
    labels: { app: 'nginx' },
    annotations: {
      [SidecarSetHashAnnotation]: '{"test-sidecarset":{"hash":"aaa","sidecarList":["test-sidecar"]}}',
      [SidecarSetListAnnotation]: 'test-sidecarset',
    },
  },
  spec: {
    containers: [
      { name: 'nginx', image: 'nginx:1.15.1', env: [{ name: 'nginx-env', value: 'value-1' }], volumeMounts: [{ name: 'nginx-volume', mountPath: '/data/nginx' }] },
      { name: 'test-sidecar', image: 'test-image:v1', env: [{ name: 'IS_INJECTED', value: 'true' }] },
    ],
    volumes: [{ name: 'nginx-volume' }],
  },
  status: {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'True' }],
    containerStatuses: [
      { name: 'nginx', image: 'nginx:1.15.1', imageID: 'docker-pullable://nginx@sha256:a9286d', ready: true, restartCount: 0 },
      { name: 'test-sidecar', image: 'test-image:v1', imageID: 'docker-pullable://test-image@sha256:a9286d', ready: true, restartCount: 0 },
    ],
  },
};

const copy = <T>(v: T): T => structuredClone(v);
/** A copy with metadata fields replaced (kubernetes-types makes some of them read-only). */
const withMeta = (pod: Pod, meta: Partial<NonNullable<Pod['metadata']>>): Pod => ({ ...copy(pod), metadata: { ...copy(pod.metadata), ...meta } });
const anyNamespace = () => ({});

/** podDemo running the SidecarSet's current image and recording its current hash. */
function updatedPod(name: string): Pod {
  const pod = copy(podDemo);
  pod.metadata!.name = name;
  pod.metadata!.annotations![SidecarSetHashAnnotation] = '{"test-sidecarset":{"hash":"bbb","sidecarList":["test-sidecar"]}}';
  pod.spec!.containers[1]!.image = 'test-image:v2';
  pod.status!.containerStatuses![1]!.image = 'docker.io/library/test-image:v2';
  return pod;
}

describe('calculateStatus (sidecarset_processor.go calculateStatus)', () => {
  it('counts a ready pod on the old hash as matched and ready, not updated', () => {
    const status = calculateStatus(sidecarSetDemo, [podDemo], anyNamespace);
    assert.deepEqual(status, { observedGeneration: 3, matchedPods: 1, updatedPods: 0, readyPods: 1, updatedReadyPods: 0 });
  });

  it('a pod whose sidecar does not run its spec\'s image yet is mid-upgrade: not ready', () => {
    const upgrading = copy(podDemo);
    upgrading.spec!.containers[1]!.image = 'test-image:v2';
    assert.equal(calculateStatus(sidecarSetDemo, [upgrading], anyNamespace).readyPods, 0);
  });

  it('counts updated, ready, and updated-and-ready pods', () => {
    const notReady = updatedPod('not-ready');
    notReady.status!.conditions = [{ type: 'Ready', status: 'False' }];
    const pending = updatedPod('pending');
    pending.status!.phase = 'Pending'; // TestUpdateWhenMaxUnavailableNotZero's pending pod
    const pods = [updatedPod('a'), updatedPod('b'), notReady, pending, podDemo];
    assert.deepEqual(calculateStatus(sidecarSetDemo, pods, anyNamespace), {
      observedGeneration: 3,
      matchedPods: 5,
      updatedPods: 4,
      readyPods: 3,
      updatedReadyPods: 2,
    });
  });

  it('keeps latestRevision and collisionCount, which belong to the ControllerRevisions', () => {
    const set = copy(sidecarSetDemo);
    set.status = { matchedPods: 9, updatedPods: 9, readyPods: 9, latestRevision: 'test-sidecarset-1', collisionCount: 0 };
    const status = calculateStatus(set, [], anyNamespace);
    assert.equal(status.latestRevision, 'test-sidecarset-1');
    assert.equal(status.collisionCount, 0);
    assert.equal(status.matchedPods, 0);
  });

  it('statusChanged: only a difference is written', () => {
    const status = calculateStatus(sidecarSetDemo, [podDemo], anyNamespace);
    assert.equal(statusChanged(undefined, status), true);
    assert.equal(statusChanged(copy(status), status), false);
    assert.equal(statusChanged({ ...status, readyPods: 5 }, status), true);
  });
});

describe('matchedPods (sidecarset_processor.go getMatchingPods)', () => {
  it('TestScopeNamespacePods: a SidecarSet with a namespace counts that namespace\'s pods only', () => {
    const set = copy(sidecarSetDemo);
    set.spec!.namespace = 'test-ns';
    const pods = Array.from({ length: 100 }, (_, i) => {
      const pod = copy(podDemo);
      pod.metadata!.name = `test-pod-1-${i}`;
      if (i >= 50) pod.metadata!.namespace = 'test-ns';
      return pod;
    });
    assert.equal(matchedPods(set, pods, anyNamespace).length, 50);
  });

  it('a namespace selector counts the pods of the namespaces it matches', () => {
    const set = copy(sidecarSetDemo);
    set.spec!.namespaceSelector = { matchLabels: { team: 'a' } };
    const other = copy(podDemo);
    other.metadata!.namespace = 'team-b';
    const labels = (ns: string) => ({ default: { team: 'a' }, 'team-b': { team: 'b' } })[ns];
    assert.deepEqual(matchedPods(set, [podDemo, other], labels).map((p) => p.metadata!.namespace), ['default']);
  });

  it('leaves out pods that are inactive, not selected, not injected by this SidecarSet, or missing a sidecar', () => {
    const finished = copy(podDemo);
    finished.status!.phase = 'Succeeded';
    const deleting = withMeta(podDemo, { deletionTimestamp: '2024-05-01T10:00:00Z' });
    const unselected = copy(podDemo);
    unselected.metadata!.labels = { app: 'other' };
    const notInjected = copy(podDemo);
    notInjected.metadata!.annotations![SidecarSetListAnnotation] = 'another-sidecarset';
    const noSidecar = copy(podDemo);
    noSidecar.spec!.containers = noSidecar.spec!.containers.slice(0, 1);
    assert.equal(matchedPods(sidecarSetDemo, [finished, deleting, unselected, notInjected, noSidecar], anyNamespace).length, 0);
  });
});

describe('consistency', () => {
  it('needs a status for every container', () => {
    assert.equal(isPodConsistent(podDemo, sidecarSetDemo), true);
    const pod = copy(podDemo);
    pod.status!.containerStatuses!.pop();
    assert.equal(isPodConsistent(pod, sidecarSetDemo), false);
  });

  it('compares images as Docker names them', () => {
    assert.equal(sameImage('nginx:1.25', 'docker.io/library/nginx:1.25'), true);
    assert.equal(sameImage('team/app', 'docker.io/team/app:latest'), true);
    assert.equal(sameImage('registry.local:5000/app:1', 'registry.local:5000/app:1'), true);
    assert.equal(sameImage('nginx:1.25', 'nginx:1.26'), false);
  });
});

describe('pod events (sidecarset_pod_event_handler_test.go TestPodEventHandler, TestGetPodMatchedSidecarSets)', () => {
  it('a pod concerns the SidecarSets its injected list names', () => {
    const pod = copy(podDemo);
    pod.metadata!.annotations![SidecarSetListAnnotation] = 'test-sidecarset-1,test-sidecarset-3';
    assert.deepEqual(sidecarSetsOfPod(pod), [
      { namespace: '', name: 'test-sidecarset-1' },
      { namespace: '', name: 'test-sidecarset-3' },
    ]);
    const none = copy(podDemo);
    delete none.metadata!.annotations![SidecarSetListAnnotation];
    assert.deepEqual(sidecarSetsOfPod(none), []);
  });

  it('update with pod status changed: reconcile', () => {
    const pod = withMeta(podDemo, { resourceVersion: '2' });
    pod.status!.conditions = [{ type: 'Ready', status: 'False' }];
    assert.equal(podUpdateMatters(podDemo, pod), true);
  });

  it('update with pod spec changed: no reconcile', () => {
    const pod = withMeta(podDemo, { resourceVersion: '2' });
    pod.spec!.containers[0]!.image = 'nginx:latest';
    assert.equal(podUpdateMatters(podDemo, pod), false);
  });

  it('the same resourceVersion (a resync): no reconcile', () => {
    const pod = copy(podDemo);
    pod.status!.conditions = [{ type: 'Ready', status: 'False' }];
    assert.equal(podUpdateMatters(podDemo, pod), false);
  });

  it('deletion starts: reconcile; already deleting: no reconcile', () => {
    const deleting = withMeta(podDemo, { resourceVersion: '2', deletionTimestamp: '2024-05-01T10:00:00Z' });
    assert.equal(podUpdateMatters(podDemo, deleting), true);
    const later = withMeta(deleting, { resourceVersion: '3' });
    later.status!.conditions = [{ type: 'Ready', status: 'False' }];
    assert.equal(podUpdateMatters(deleting, later), false);
  });

  it('the sidecar images become consistent, or the labels change: reconcile', () => {
    const upgrading = withMeta(podDemo, { resourceVersion: '2' });
    upgrading.spec!.containers[1]!.image = 'test-image:v2';
    assert.equal(podUpdateMatters(podDemo, upgrading), true);
    const relabelled = withMeta(podDemo, { resourceVersion: '2' });
    relabelled.metadata!.labels = { app: 'nginx', canary: 'true' };
    assert.equal(podUpdateMatters(podDemo, relabelled), true);
  });
});

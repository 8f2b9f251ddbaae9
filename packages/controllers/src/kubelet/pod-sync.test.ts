import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rfc3339 } from '../clock.js';
import type { PodObject } from '../objects.js';
import { containerId, imageId, normalizedImage } from './images.js';
import { crashLoopAnnotation, imagePullFailureAnnotation, neverReadyAnnotation } from './knobs.js';
import { defaultTiming, exitCodeAnnotation, runSecondsAnnotation, startSecondsAnnotation, stopExitCodeAnnotation, syncPod, type NodeTiming, type PodSyncResult, type PullFailures, type RestartBackOff } from './pod-sync.js';

const t0 = Date.parse('2024-05-01T10:00:00Z');

function pod(spec: Partial<NonNullable<PodObject['spec']>> = {}): PodObject {
  return {
    metadata: { name: 'web', namespace: 'default', uid: 'uid-1' },
    spec: { nodeName: 'node-1', containers: [{ name: 'nginx', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent' }], ...spec },
    status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: rfc3339(t0 - 1000) }] },
  } as PodObject;
}

/** Runs syncs as the kubelet would: each result becomes the pod's status. */
class Kubelet {
  readonly restarts = new Map<string, number>();
  readonly pulls = new Map<string, PullFailures>();
  readonly backOffs = new Map<string, RestartBackOff>();
  deletionSeenAt: number | undefined;
  nodeAnnotations: Record<string, string> = {};
  constructor(
    public pod: PodObject,
    private readonly timing: Partial<NodeTiming> = {},
  ) {}
  sync(now: number): PodSyncResult {
    const result = syncPod({ pod: this.pod, hostIP: '172.18.0.2', podIP: '10.244.1.2', now, timing: { ...defaultTiming, ...this.timing }, restarts: this.restarts, deletionSeenAt: this.deletionSeenAt, nodeAnnotations: this.nodeAnnotations, pulls: this.pulls, backOffs: this.backOffs });
    this.pod = { ...this.pod, status: result.status };
    return result;
  }
}

/** What the API server does to a pod on a node on DELETE. */
function markDeleted(p: PodObject, at: number, grace: number): void {
  const meta = p.metadata as { deletionTimestamp?: string; deletionGracePeriodSeconds?: number };
  meta.deletionTimestamp = rfc3339(at + grace * 1000);
  meta.deletionGracePeriodSeconds = grace;
}

const condition = (p: PodObject, type: string) => p.status?.conditions?.find((c) => c.type === type);

describe('simulated kubelet', () => {
  it('runs a bound pod: addresses, a running container with its IDs, every condition True, kube\'s events', () => {
    const k = new Kubelet(pod());
    const r = k.sync(t0);
    const s = r.status;
    assert.equal(s.phase, 'Running');
    assert.equal(s.startTime, '2024-05-01T10:00:00Z');
    assert.equal(s.hostIP, '172.18.0.2');
    assert.deepEqual(s.podIPs, [{ ip: '10.244.1.2' }]);
    const c = s.containerStatuses![0]!;
    assert.deepEqual(c.state, { running: { startedAt: '2024-05-01T10:00:00Z' } });
    assert.equal(c.ready, true);
    assert.equal(c.started, true);
    assert.equal(c.restartCount, 0);
    assert.equal(c.image, 'docker.io/library/nginx:1.27');
    assert.equal(c.imageID, imageId('nginx:1.27'));
    assert.match(c.imageID!, /^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
    assert.equal(c.containerID, containerId('uid-1', 'nginx', 0));
    assert.deepEqual(
      s.conditions!.map((x) => [x.type, x.status]),
      [
        ['PodReadyToStartContainers', 'True'],
        ['Initialized', 'True'],
        ['Ready', 'True'],
        ['ContainersReady', 'True'],
        ['PodScheduled', 'True'],
      ],
    );
    assert.equal(condition(k.pod, 'PodScheduled')?.lastTransitionTime, rfc3339(t0 - 1000), 'the scheduler\'s condition is kept');
    assert.deepEqual(
      r.events.map((e) => `${e.reason}: ${e.message}`),
      ['Pulled: Container image "nginx:1.27" already present on machine', 'Created: Created container: nginx', 'Started: Started container nginx'],
    );
    assert.equal(r.wakeAt, undefined);
    // Nothing changes on a second sync: no write, no event.
    const again = k.sync(t0 + 5000);
    assert.deepEqual(again.status, s);
    assert.deepEqual(again.events, []);
  });

  it('with a start time, the pod is Pending and its containers wait in ContainerCreating until they start, then it runs', () => {
    const k = new Kubelet(pod(), { startSeconds: 3 });
    let r = k.sync(t0);
    assert.equal(r.status.phase, 'Pending');
    assert.deepEqual(r.status.podIPs, [{ ip: '10.244.1.2' }], 'the sandbox is up: the pod has its IP');
    const waiting = r.status.containerStatuses![0]!;
    assert.deepEqual(waiting.state, { waiting: { reason: 'ContainerCreating' } });
    assert.equal(waiting.ready, false);
    assert.equal(condition(k.pod, 'Ready')?.status, 'False');
    assert.equal(condition(k.pod, 'Ready')?.reason, 'ContainersNotReady');
    assert.equal(r.wakeAt, t0 + 3000);
    r = k.sync(t0 + 3000);
    assert.equal(r.status.phase, 'Running');
    assert.deepEqual(r.status.containerStatuses![0]!.state, { running: { startedAt: '2024-05-01T10:00:03Z' } });
    assert.equal(condition(k.pod, 'Ready')?.status, 'True');
  });

  it('the start-seconds knob: the pod\'s annotation, else its node\'s, sets how long its containers are ContainerCreating', () => {
    const annotated = pod();
    annotated.metadata.annotations = { [startSecondsAnnotation]: '5' };
    const k = new Kubelet(annotated);
    k.nodeAnnotations = { [startSecondsAnnotation]: '2' };
    let r = k.sync(t0);
    assert.deepEqual(r.status.containerStatuses![0]!.state, { waiting: { reason: 'ContainerCreating' } });
    assert.equal(r.wakeAt, t0 + 5000, "the pod's annotation comes first");
    r = k.sync(t0 + 5000);
    assert.equal(r.status.phase, 'Running');
    const onNode = new Kubelet(pod());
    onNode.nodeAnnotations = { [startSecondsAnnotation]: '2' };
    assert.equal(onNode.sync(t0).wakeAt, t0 + 2000, "then the node's");
    const unreadable = pod();
    unreadable.metadata.annotations = { [startSecondsAnnotation]: 'soon' };
    assert.equal(new Kubelet(unreadable).sync(t0).status.phase, 'Running', 'an unreadable value is no delay (the default, 0)');
  });

  it('readiness waits for the readinessProbe\'s initialDelaySeconds (and startup for the startupProbe\'s)', () => {
    const k = new Kubelet(
      pod({ containers: [{ name: 'app', image: 'app:1', readinessProbe: { initialDelaySeconds: 10, httpGet: { port: 80 } }, startupProbe: { initialDelaySeconds: 3, exec: { command: ['true'] } } }] }),
    );
    let r = k.sync(t0);
    assert.equal(r.status.containerStatuses![0]!.started, false);
    assert.equal(r.status.containerStatuses![0]!.ready, false);
    assert.equal(r.wakeAt, t0 + 3000);
    assert.equal(condition(k.pod, 'Ready')?.reason, 'ContainersNotReady');
    assert.equal(condition(k.pod, 'Ready')?.message, 'containers with unready status: [app]');
    r = k.sync(t0 + 3000);
    assert.equal(r.status.containerStatuses![0]!.started, true);
    assert.equal(r.wakeAt, t0 + 10_000);
    r = k.sync(t0 + 10_000);
    assert.equal(r.status.containerStatuses![0]!.ready, true);
    assert.equal(condition(k.pod, 'Ready')?.status, 'True');
    assert.equal(condition(k.pod, 'Ready')?.lastTransitionTime, '2024-05-01T10:00:10Z');
    assert.equal(r.wakeAt, undefined);
  });

  it('init containers run first, one at a time, then the app containers', () => {
    const k = new Kubelet(
      pod({ initContainers: [{ name: 'migrate', image: 'tool:1' }, { name: 'warm', image: 'tool:1' }], containers: [{ name: 'app', image: 'app:1' }] }),
      { initSeconds: 2 },
    );
    let r = k.sync(t0);
    assert.equal(r.status.phase, 'Pending');
    assert.deepEqual(r.status.initContainerStatuses!.map((s) => Object.keys(s.state!)[0]), ['running', 'waiting']);
    assert.deepEqual(r.status.containerStatuses![0]!.state, { waiting: { reason: 'PodInitializing' } });
    assert.equal(condition(k.pod, 'Initialized')?.message, 'containers with incomplete status: [migrate warm]');
    assert.equal(r.wakeAt, t0 + 2000);
    r = k.sync(t0 + 2000);
    assert.deepEqual(r.status.initContainerStatuses![0]!.state?.terminated?.reason, 'Completed');
    assert.equal(r.status.initContainerStatuses![0]!.ready, true);
    r = k.sync(t0 + 2000);
    assert.ok((r.status.initContainerStatuses![1]!.state as { running?: unknown }).running);
    r = k.sync(t0 + 4000);
    r = k.sync(t0 + 4000);
    assert.equal(r.status.phase, 'Running');
    assert.equal(condition(k.pod, 'Initialized')?.status, 'True');
    const lastInit = Date.parse(r.status.initContainerStatuses![1]!.state!.terminated!.finishedAt!);
    const app = r.status.containerStatuses![0]!.state as { running?: { startedAt?: string } };
    assert.ok(Date.parse(app.running!.startedAt!) >= lastInit);
  });

  it('an image changed in the spec restarts the container in place: old image until then, then the new imageID and restartCount 1', () => {
    const k = new Kubelet(pod(), { restartSeconds: 1 });
    k.sync(t0);
    const before = k.pod.status!.containerStatuses![0]!;
    k.pod = { ...k.pod, spec: { ...k.pod.spec!, containers: [{ name: 'nginx', image: 'nginx:1.28', imagePullPolicy: 'IfNotPresent' }] } };
    let r = k.sync(t0 + 5000);
    assert.deepEqual(r.status.containerStatuses![0], before, 'still the old container');
    assert.deepEqual(r.events.map((e) => e.reason), ['Killing']);
    assert.equal(r.events[0]!.message, 'Container nginx definition changed, will be restarted');
    assert.equal(r.wakeAt, t0 + 6000);
    r = k.sync(t0 + 6000);
    const after = r.status.containerStatuses![0]!;
    assert.equal(after.restartCount, 1);
    assert.equal(after.image, normalizedImage('nginx:1.28'));
    assert.equal(after.imageID, imageId('nginx:1.28'));
    assert.notEqual(after.imageID, before.imageID);
    assert.equal(after.containerID, containerId('uid-1', 'nginx', 1));
    assert.deepEqual(after.lastState, {
      terminated: { exitCode: 0, reason: 'Completed', startedAt: '2024-05-01T10:00:00Z', finishedAt: '2024-05-01T10:00:06Z', containerID: before.containerID },
    });
    assert.deepEqual(after.state, { running: { startedAt: '2024-05-01T10:00:06Z' } });
    assert.deepEqual(r.events.map((e) => e.reason), ['Pulled', 'Created', 'Started']);
    assert.equal(r.status.phase, 'Running');
  });

  it('graceful deletion: containers stop after stopSeconds or at the grace period\'s end (from when the kubelet saw it), then the pod may go', () => {
    const quick = new Kubelet(pod(), { stopSeconds: 1 });
    quick.sync(t0);
    markDeleted(quick.pod, t0, 30);
    quick.deletionSeenAt = t0;
    let r = quick.sync(t0);
    assert.equal(r.deletePod, false);
    assert.equal(r.wakeAt, t0 + 1000);
    r = quick.sync(t0 + 1000);
    assert.equal(r.deletePod, true);
    // kubelet 1.32: a deleted pod ends in a terminal phase whatever its restartPolicy; its container died of SIGTERM.
    assert.equal(r.status.phase, 'Failed');
    assert.deepEqual(r.status.containerStatuses![0]!.state?.terminated, {
      exitCode: 143,
      reason: 'Error',
      startedAt: '2024-05-01T10:00:00Z',
      finishedAt: '2024-05-01T10:00:01Z',
      containerID: containerId('uid-1', 'nginx', 0),
    });
    assert.equal(condition(quick.pod, 'Ready')?.reason, 'PodFailed');

    const slow = new Kubelet(pod(), { stopSeconds: 3600 });
    slow.sync(t0);
    markDeleted(slow.pod, t0, 30);
    slow.deletionSeenAt = t0;
    r = slow.sync(t0 + 29_000);
    assert.equal(r.deletePod, false);
    assert.equal(r.wakeAt, t0 + 30_000, 'the grace period is the limit');
    r = slow.sync(t0 + 30_000);
    assert.equal(r.deletePod, true);
    // Still running when the grace period ended: SIGKILL.
    assert.equal(r.status.containerStatuses![0]!.state?.terminated?.exitCode, 137);
    assert.equal(r.status.containerStatuses![0]!.state?.terminated?.reason, 'Error');
    assert.equal(r.status.phase, 'Failed');
  });

  it('deletion: the stop-exit-code knob says how the app exits on SIGTERM; 0 everywhere makes the pod Succeeded; a Job pod already done keeps its phase', () => {
    const clean = pod({ restartPolicy: 'Never' });
    clean.metadata.annotations = { [stopExitCodeAnnotation]: '0', [runSecondsAnnotation]: '100' };
    const k = new Kubelet(clean);
    k.sync(t0);
    markDeleted(k.pod, t0, 30);
    k.deletionSeenAt = t0;
    let r = k.sync(t0 + 1000);
    assert.equal(r.status.phase, 'Succeeded');
    assert.equal(r.status.containerStatuses![0]!.state?.terminated?.exitCode, 0);
    assert.equal(r.status.containerStatuses![0]!.state?.terminated?.reason, 'Completed');

    const onNode = new Kubelet(pod({ restartPolicy: 'Never' }));
    onNode.nodeAnnotations = { [stopExitCodeAnnotation]: '2' };
    onNode.sync(t0);
    markDeleted(onNode.pod, t0, 30);
    onNode.deletionSeenAt = t0;
    r = onNode.sync(t0 + 1000);
    assert.equal(r.status.containerStatuses![0]!.state?.terminated?.exitCode, 2);
    assert.equal(r.status.phase, 'Failed');

    // Force deletion (grace 0): killed at once.
    const forced = new Kubelet(pod());
    forced.sync(t0);
    markDeleted(forced.pod, t0, 0);
    forced.deletionSeenAt = t0;
    r = forced.sync(t0);
    assert.equal(r.deletePod, true);
    assert.equal(r.status.containerStatuses![0]!.state?.terminated?.exitCode, 137);

    const done = pod({ restartPolicy: 'Never' });
    done.metadata.annotations = { [runSecondsAnnotation]: '1' };
    const d = new Kubelet(done);
    d.sync(t0);
    assert.equal(d.sync(t0 + 1000).status.phase, 'Succeeded');
    markDeleted(d.pod, t0 + 2000, 30);
    d.deletionSeenAt = t0 + 2000;
    r = d.sync(t0 + 2000);
    assert.equal(r.status.phase, 'Succeeded');
    assert.equal(r.status.containerStatuses![0]!.state?.terminated?.exitCode, 0);
  });

  it('deletion: an app container that never started is reported lost (137, ContainerStatusUnknown), and the pod Failed', () => {
    const k = new Kubelet(pod(), { startSeconds: 60 });
    k.sync(t0);
    assert.equal(k.pod.status?.containerStatuses?.[0]?.state?.waiting?.reason, 'ContainerCreating');
    markDeleted(k.pod, t0 + 1000, 30);
    k.deletionSeenAt = t0 + 1000;
    const r = k.sync(t0 + 1000);
    assert.equal(r.deletePod, true);
    assert.deepEqual(r.status.containerStatuses![0]!.state, {
      terminated: { exitCode: 137, reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was terminated' },
    });
    assert.equal(r.status.phase, 'Failed');
  });

  it('readiness gates hold the pod not ready until their conditions are True', () => {
    const k = new Kubelet(pod({ readinessGates: [{ conditionType: 'InPlaceUpdateReady' }] }));
    k.sync(t0);
    assert.equal(condition(k.pod, 'ContainersReady')?.status, 'True');
    assert.equal(condition(k.pod, 'Ready')?.status, 'False');
    assert.equal(condition(k.pod, 'Ready')?.reason, 'ReadinessGatesNotReady');
    assert.equal(condition(k.pod, 'Ready')?.message, 'corresponding condition of pod readiness gate "InPlaceUpdateReady" does not exist.');
    k.pod.status!.conditions!.push({ type: 'InPlaceUpdateReady', status: 'True' });
    k.sync(t0 + 1000);
    assert.equal(condition(k.pod, 'Ready')?.status, 'True');
  });

  it('a pod with restartPolicy Never runs for its run-seconds annotation, then Succeeds', () => {
    const p = pod({ restartPolicy: 'Never' });
    p.metadata.annotations = { [runSecondsAnnotation]: '30' };
    const k = new Kubelet(p);
    assert.equal(k.sync(t0).wakeAt, t0 + 30_000);
    assert.equal(k.pod.status?.phase, 'Running');
    const r = k.sync(t0 + 30_000);
    assert.equal(r.status.phase, 'Succeeded');
    assert.deepEqual(r.status.containerStatuses![0]!.state, {
      terminated: { exitCode: 0, reason: 'Completed', startedAt: '2024-05-01T10:00:00Z', finishedAt: '2024-05-01T10:00:30Z', containerID: containerId('uid-1', 'nginx', 0) },
    });
    assert.equal(condition(k.pod, 'Ready')?.reason, 'PodCompleted');
    // Done is done: later syncs change nothing.
    assert.deepEqual(k.sync(t0 + 90_000).status, r.status);
  });

  it('an exit-code annotation fails a Never pod, and restarts an OnFailure container in place', () => {
    const never = pod({ restartPolicy: 'Never' });
    never.metadata.annotations = { [exitCodeAnnotation]: '3' };
    const k = new Kubelet(never);
    k.sync(t0);
    const r = k.sync(t0 + defaultTiming.runSeconds * 1000);
    assert.equal(r.status.phase, 'Failed');
    assert.equal(r.status.containerStatuses![0]!.state?.terminated?.reason, 'Error');
    assert.equal(r.status.containerStatuses![0]!.state?.terminated?.exitCode, 3);
    assert.equal(condition(k.pod, 'Ready')?.reason, 'PodFailed');

    const onFailure = pod({ restartPolicy: 'OnFailure' });
    onFailure.metadata.annotations = { [exitCodeAnnotation]: '1', [runSecondsAnnotation]: '5' };
    const k2 = new Kubelet(onFailure);
    k2.sync(t0);
    const again = k2.sync(t0 + 5000);
    assert.equal(again.status.phase, 'Running');
    const c = again.status.containerStatuses![0]!;
    assert.equal(c.restartCount, 1);
    assert.equal(c.lastState?.terminated?.exitCode, 1);
    assert.deepEqual(c.state, { running: { startedAt: '2024-05-01T10:00:05Z' } });
  });

  it('OnFailure: a failing container restarts at once, then after kube\'s back-off (10 s doubling to 5 min) in CrashLoopBackOff', () => {
    const p = pod({ restartPolicy: 'OnFailure' });
    p.metadata.annotations = { [exitCodeAnnotation]: '2', [runSecondsAnnotation]: '3' };
    const k = new Kubelet(p);
    k.sync(t0);
    let at = t0 + 3000;
    assert.ok(k.sync(at).status.containerStatuses![0]!.state?.running, 'the first failure restarts at once');
    for (const wait of [10, 20, 40, 80, 160, 300, 300]) {
      at += 3000;
      const r = k.sync(at);
      const c = r.status.containerStatuses![0]!;
      const goWait = wait < 60 ? `${wait}s` : `${Math.floor(wait / 60)}m${wait % 60}s`;
      assert.deepEqual(c.state, { waiting: { reason: 'CrashLoopBackOff', message: `back-off ${goWait} restarting failed container=nginx pod=web_default(uid-1)` } });
      assert.equal(c.lastState?.terminated?.exitCode, 2);
      assert.equal(r.status.phase, 'Running', 'an OnFailure pod is not done while it restarts');
      assert.equal(r.wakeAt, at + wait * 1000);
      assert.equal(k.sync(at + wait * 1000 - 1).status.containerStatuses![0]!.state?.waiting?.reason, 'CrashLoopBackOff');
      at += wait * 1000;
      assert.ok(k.sync(at).status.containerStatuses![0]!.state?.running, `restarted after ${wait} s`);
    }
  });

  it('the back-off starts anew after a run that ended more than 10 min after its restart; a new kubelet has none', () => {
    const p = pod({ restartPolicy: 'OnFailure' });
    p.metadata.annotations = { [exitCodeAnnotation]: '1', [runSecondsAnnotation]: '5' };
    const k = new Kubelet(p);
    k.sync(t0);
    let at = t0 + 5000;
    k.sync(at); // restarted at once
    for (const wait of [10, 20]) {
      at += 5000;
      k.sync(at);
      at += wait * 1000;
      k.sync(at);
    }
    // The next failure would wait 40 s; but this run lasts 11 min.
    p.metadata.annotations[runSecondsAnnotation] = '660';
    k.pod = { ...k.pod, metadata: p.metadata };
    at += 660_000;
    const reset = k.sync(at).status.containerStatuses![0]!;
    assert.ok(reset.state?.running, 'restarted at once');
    assert.equal(reset.restartCount, 4);
    k.pod.metadata.annotations![runSecondsAnnotation] = '5';
    at += 5000;
    assert.equal(k.sync(at).status.containerStatuses![0]!.state?.waiting?.message, 'back-off 10s restarting failed container=nginx pod=web_default(uid-1)');
    // A kubelet that restarted remembers no back-off: the waiting container starts at once.
    k.backOffs.clear();
    assert.ok(k.sync(at + 1000).status.containerStatuses![0]!.state?.running);
  });

  it('a pod with restartPolicy Always never completes on its own', () => {
    const p = pod();
    p.metadata.annotations = { [runSecondsAnnotation]: '1' };
    const k = new Kubelet(p);
    k.sync(t0);
    assert.equal(k.sync(t0 + 60_000).status.phase, 'Running');
  });
});

describe('test knobs', () => {
  const reasons = (r: PodSyncResult) => r.events.map((e) => `${e.type} ${e.reason}: ${e.message}`);

  it('never-ready: the container runs but the pod never becomes Ready (on the pod, or on its node)', () => {
    const p = pod();
    p.metadata.annotations = { [neverReadyAnnotation]: 'true' };
    const k = new Kubelet(p);
    const r = k.sync(t0);
    assert.equal(r.status.phase, 'Running');
    assert.ok(r.status.containerStatuses![0]!.state?.running);
    assert.equal(r.status.containerStatuses![0]!.ready, false);
    assert.equal(r.wakeAt, undefined, 'nothing is due: it stays unready');
    assert.equal(condition(k.pod, 'Ready')?.status, 'False');
    assert.equal(condition(k.pod, 'Ready')?.message, 'containers with unready status: [nginx]');

    const onNode = new Kubelet(pod());
    onNode.nodeAnnotations = { [neverReadyAnnotation]: 'sidecar,nginx' };
    onNode.sync(t0);
    assert.equal(condition(onNode.pod, 'Ready')?.status, 'False');
    const other = new Kubelet(pod());
    other.nodeAnnotations = { [neverReadyAnnotation]: 'sidecar' };
    other.sync(t0);
    assert.equal(condition(other.pod, 'Ready')?.status, 'True', 'a knob naming other containers leaves this one alone');
  });

  it('crash-loop: exits after its run time, restarts at once, then waits in CrashLoopBackOff 10 s, 20 s, 40 s ... 5 min', () => {
    const p = pod();
    p.metadata.annotations = { [crashLoopAnnotation]: 'true', [runSecondsAnnotation]: '2' };
    const k = new Kubelet(p);
    assert.equal(k.sync(t0).wakeAt, t0 + 2000);
    // First crash: restarted at once (kube's back-off starts after the first restart).
    let r = k.sync(t0 + 2000);
    let c = r.status.containerStatuses![0]!;
    assert.equal(c.restartCount, 1);
    assert.ok(c.state?.running);
    assert.deepEqual(c.lastState?.terminated, { exitCode: 1, reason: 'Error', startedAt: '2024-05-01T10:00:00Z', finishedAt: '2024-05-01T10:00:02Z', containerID: containerId('uid-1', 'nginx', 0) });
    let at = t0 + 2000;
    for (const wait of [10, 20, 40, 80, 160, 300, 300]) {
      at += 2000;
      r = k.sync(at);
      c = r.status.containerStatuses![0]!;
      assert.equal(c.state?.waiting?.reason, 'CrashLoopBackOff');
      const goWait = wait < 60 ? `${wait}s` : `${Math.floor(wait / 60)}m${wait % 60}s`;
      assert.equal(c.state?.waiting?.message, `back-off ${goWait} restarting failed container=nginx pod=web_default(uid-1)`);
      assert.equal(c.ready, false);
      assert.equal(r.status.phase, 'Running');
      assert.equal(condition(k.pod, 'Ready')?.status, 'False');
      assert.deepEqual(reasons(r), ['Warning BackOff: Back-off restarting failed container nginx in pod web_default(uid-1)']);
      assert.equal(r.wakeAt, at + wait * 1000);
      // Still backing off just before it ends.
      assert.equal(k.sync(at + wait * 1000 - 1000).status.containerStatuses![0]!.state?.waiting?.reason, 'CrashLoopBackOff');
      at += wait * 1000;
      const restarts = c.restartCount!;
      r = k.sync(at);
      c = r.status.containerStatuses![0]!;
      assert.ok(c.state?.running, `restarted after ${wait} s`);
      assert.equal(c.restartCount, restarts + 1);
      assert.equal(c.lastState?.terminated?.exitCode, 1);
    }
  });

  it('image-pull-failure: ErrImagePull with kube\'s events, then ImagePullBackOff until the back-off ends; the pull works once the knob goes', () => {
    const p = pod();
    p.metadata.annotations = { [imagePullFailureAnnotation]: 'true' };
    const k = new Kubelet(p);
    let r = k.sync(t0);
    let c = r.status.containerStatuses![0]!;
    assert.equal(c.state?.waiting?.reason, 'ErrImagePull');
    assert.match(c.state?.waiting?.message ?? '', /^rpc error: code = NotFound desc = failed to pull and unpack image "docker.io\/library\/nginx:1.27"/);
    assert.equal(r.status.phase, 'Pending');
    assert.deepEqual(reasons(r).map((e) => e.replace(/: rpc error.*/, '')), [
      'Normal Pulling: Pulling image "nginx:1.27"',
      'Warning Failed: Failed to pull image "nginx:1.27"',
      'Warning Failed: Error: ErrImagePull',
    ]);
    r = k.sync(r.wakeAt!);
    c = r.status.containerStatuses![0]!;
    assert.equal(c.state?.waiting?.reason, 'ImagePullBackOff');
    assert.match(c.state?.waiting?.message ?? '', /^Back-off pulling image "nginx:1.27": ErrImagePull: rpc error/);
    assert.deepEqual(reasons(r), ['Normal BackOff: Back-off pulling image "nginx:1.27"', 'Warning Failed: Error: ImagePullBackOff']);
    assert.equal(r.wakeAt, t0 + 10_000);
    // The second pull fails too: now 20 s of back-off.
    r = k.sync(t0 + 10_000);
    assert.equal(r.status.containerStatuses![0]!.state?.waiting?.reason, 'ErrImagePull');
    r = k.sync(t0 + 11_000);
    assert.equal(r.wakeAt, t0 + 30_000);
    // The registry is back (the knob removed): the next pull after the back-off starts the container.
    k.pod = { ...k.pod, metadata: { ...k.pod.metadata, annotations: {} } };
    assert.equal(k.sync(t0 + 20_000).status.containerStatuses![0]!.state?.waiting?.reason, 'ImagePullBackOff');
    r = k.sync(t0 + 30_000);
    assert.ok(r.status.containerStatuses![0]!.state?.running);
    assert.equal(r.status.phase, 'Running');

    const onNode = new Kubelet(pod());
    onNode.nodeAnnotations = { [imagePullFailureAnnotation]: 'true' };
    assert.equal(onNode.sync(t0).status.containerStatuses![0]!.state?.waiting?.reason, 'ErrImagePull');
  });
});

describe('image references', () => {
  it('are normalized as containerd reports them', () => {
    assert.equal(normalizedImage('nginx'), 'docker.io/library/nginx:latest');
    assert.equal(normalizedImage('bitnami/redis:7'), 'docker.io/bitnami/redis:7');
    assert.equal(normalizedImage('ghcr.io/org/app:v1'), 'ghcr.io/org/app:v1');
    assert.equal(normalizedImage('localhost:5000/app'), 'localhost:5000/app:latest');
    assert.equal(imageId('nginx@sha256:abc'), 'docker.io/library/nginx@sha256:abc');
    assert.equal(imageId('nginx:1.27'), imageId('docker.io/library/nginx:1.27'));
    assert.notEqual(imageId('nginx:1.27'), imageId('nginx:1.28'));
  });
});

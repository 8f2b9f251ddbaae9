/**
 * What a simulated kubelet makes of one pod at a given moment: the status it
 * reports, the events it records, when it must look again, and whether the
 * pod can now be deleted. A pure function of the pod (its spec, and its
 * status as the record of what runs), the time, and the in-place restarts
 * already scheduled, so a restarted kubelet picks up where the last left off.
 *
 * The life of a pod, one step per sync (each status write brings the next):
 *  1. the sandbox: startTime, hostIP, podIP; containers wait (ContainerCreating,
 *     or PodInitializing behind init containers);
 *  2. init containers, one at a time: each runs for `initSeconds`, then
 *     terminates Completed (a restartable one, a sidecar, starts and stays);
 *  3. the app containers start together `startSeconds` after their turn
 *     came: Running; a container is started once its startupProbe's
 *     initialDelaySeconds passed, ready once its readinessProbe's did too
 *     (probes always succeed); the pod is Ready when every container is and
 *     its readiness gates hold;
 *  4. a container whose image changed in the spec keeps running the old
 *     image for `restartSeconds`, then restarts in place: same pod, new
 *     container ID, the new image and imageID, restartCount + 1, the old run
 *     in lastState;
 *  5. a pod whose restartPolicy is not Always (a Job's) runs to
 *     completion: its app containers exit after the run time of the
 *     {@link runSecondsAnnotation} annotation (default `runSeconds`) with the
 *     code of {@link exitCodeAnnotation} (default 0); with Never the pod then
 *     Succeeds or Fails, with OnFailure a failed container restarts in place
 *     after kube's crash back-off (see {@link RestartBackOff});
 *  6. once the kubelet sees the deletion, containers stop after
 *     `stopSeconds` (exit 143, SIGTERM's, or the {@link stopExitCodeAnnotation}
 *     annotation's code) or are killed at the end of
 *     deletionGracePeriodSeconds (exit 137), whichever is first; the pod then
 *     reports its containers terminated, takes a terminal phase (Succeeded
 *     only if every app container exited 0) and may be deleted for good.
 */
import type * as corev1 from 'kubernetes-types/core/v1.js';
import { rfc3339, timeOf } from '../clock.js';
import type { Container, ContainerStatus, PodObject, PodStatus } from '../objects.js';
import { containerId, imageId, normalizedImage } from './images.js';
import { backOffSeconds, crashLoopAnnotation, formatPod, goDuration, imagePullFailureAnnotation, knobCovers, maxBackOffSeconds, neverReadyAnnotation } from './knobs.js';
import { podConditions, terminatedConditions } from './pod-conditions.js';

/**
 * How long a simulated node takes for each step of a pod's life, in seconds
 * of cluster time.
 *
 * @example
 * ```ts
 * import type { NodeTiming } from '@operant/controllers';
 *
 * const slowPulls: Partial<NodeTiming> = { startSeconds: 5, stopSeconds: 30 }; // a 5 s pull; containers that use their grace period
 * ```
 */
export interface NodeTiming {
  /** From a container's turn to its start (image pull, create); default 0. */
  startSeconds: number;
  /** How long each init container runs; default 0. */
  initSeconds: number;
  /** From an image change in the spec to the container's restart with the new image; default 1. */
  restartSeconds: number;
  /** How long containers take to stop once deletion is asked, if the grace period is longer; default 1 (kwok's delay). */
  stopSeconds: number;
  /** How long the containers of a pod that runs to completion (restartPolicy Never or OnFailure) run, unless the pod says; default 1. */
  runSeconds: number;
}

export const defaultTiming: NodeTiming = { startSeconds: 0, initSeconds: 0, restartSeconds: 1, stopSeconds: 1, runSeconds: 1 };

/**
 * Pod annotation: seconds (cluster time) the app containers of a pod with
 * restartPolicy Never or OnFailure run before they exit, e.g. `"30"`.
 */
export const runSecondsAnnotation = 'sim.operant.dev/run-seconds';
/** Pod annotation: the exit code those containers exit with, e.g. `"1"` for a pod that fails; default 0. */
export const exitCodeAnnotation = 'sim.operant.dev/exit-code';
/**
 * Pod or node annotation: the exit code a container stops with when its pod
 * is deleted and it ends within the grace period (an app that exits on
 * SIGTERM), e.g. `"0"` for one that shuts down cleanly; default 143 (128 +
 * SIGTERM). One still running at the grace period's end is killed: 137.
 */
export const stopExitCodeAnnotation = 'sim.operant.dev/stop-exit-code';

/** 128 + SIGTERM and 128 + SIGKILL: what the runtime reports of a container the signal ended. */
const sigtermExitCode = 143;
const sigkillExitCode = 137;

/**
 * Pod or node annotation: seconds (cluster time) a pod's containers take to start once their turn comes (the
 * image pull and the container's creation), e.g. `"5"`: meanwhile they wait in `ContainerCreating` (init
 * containers in `PodInitializing`); default the node's `startSeconds`.
 */
export const startSecondsAnnotation = 'sim.operant.dev/start-seconds';

/** A non-negative number from an annotation, or undefined when absent or unreadable. */
function annotationNumber(pod: PodObject, key: string): number | undefined {
  return nonNegative(pod.metadata.annotations?.[key]);
}

function nonNegative(raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** A number knob read from the pod's annotation, else its node's (see knobs.ts); undefined when neither is readable. */
function podOrNodeNumber(input: PodSyncInput, key: string): number | undefined {
  return annotationNumber(input.pod, key) ?? nonNegative(input.nodeAnnotations?.[key]);
}

/** How long the pod's containers take to start: its start-seconds annotation, then its node's, then `startSeconds`. */
function startMsOf(input: PodSyncInput): number {
  return (podOrNodeNumber(input, startSecondsAnnotation) ?? input.timing.startSeconds) * 1000;
}

/** An event the kubelet records about the pod (`container` names the container it concerns). */
export interface KubeletEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  container?: { name: string; init: boolean };
}

export interface PodSyncInput {
  pod: PodObject;
  hostIP: string;
  /** The pod's address; none on a node without a pod CIDR (only its deletion is carried out there). */
  podIP?: string;
  /** Cluster time, epoch ms. */
  now: number;
  timing: NodeTiming;
  /** When each scheduled in-place restart is due (epoch ms), by container name; updated in place. */
  restarts: Map<string, number>;
  /**
   * When this kubelet first saw the pod's deletion (epoch ms, cluster time):
   * the grace period runs from there, as a kubelet's kill does (the
   * deletionTimestamp is the API server's clock). Default `now`.
   */
  deletionSeenAt?: number;
  /** The node's annotations, where the test knobs (see knobs.ts) are looked up after the pod's. */
  nodeAnnotations?: Readonly<Record<string, string>>;
  /**
   * Failed image pulls by container name (the kubelet's image back-off, kept
   * in its memory as kube's is); updated in place. Default none kept.
   */
  pulls?: Map<string, PullFailures>;
  /**
   * The restart back-off of each container by name, kept in the kubelet's
   * memory as kube's is; updated in place. Without it, the back-off is read
   * from the container's restartCount (a run of any length does not reset it).
   */
  backOffs?: Map<string, RestartBackOff>;
}

/**
 * A container's entry in the kubelet's restart back-off (kube's
 * flowcontrol.Backoff, 10 s doubling to 5 min): the first restart after an
 * exit is at once, each later one waits `seconds` from the exit, doubling; a
 * run that ends more than 10 min (twice the cap) after the last restart
 * starts the back-off anew.
 */
export interface RestartBackOff {
  /** The wait before the next restart. */
  seconds: number;
  /** When the container was last restarted (epoch ms). */
  lastUpdate: number;
}

/** kube's hasExpired: an entry not updated for twice the 5 min cap is forgotten. */
const backOffExpiryMs = 2 * maxBackOffSeconds * 1000;

/** A container's failed pulls so far and when the last one failed (epoch ms). */
export interface PullFailures {
  failures: number;
  lastAt: number;
}

export interface PodSyncResult {
  status: PodStatus;
  events: KubeletEvent[];
  /** When to sync again (epoch ms), if something is due later. */
  wakeAt?: number;
  /** The containers have stopped: delete the pod with grace period 0. */
  deletePod: boolean;
  /**
   * A sync of the pod with this status, at once, would step further: an init
   * container started or finished (the next one's turn comes with the next
   * sync), an image pull failed (the next sync finds it backing off), or a
   * container restarted (the next sync looks at its new run: its probes, its
   * exit). Any other status written is where the pod rests until `wakeAt` or
   * a change made by someone else.
   */
  stepsOn?: boolean;
}

type Status = { -readonly [K in keyof PodStatus]: PodStatus[K] };
type ProbeState = { started: boolean; ready: boolean; next?: number };


export function syncPod(input: PodSyncInput): PodSyncResult {
  const { pod, now, timing } = input;
  const old = pod.status ?? {};
  const t = rfc3339(now);
  const events: KubeletEvent[] = [];
  const wakes: number[] = [];
  const status: Status = JSON.parse(JSON.stringify(old)) as Status;
  status.startTime ??= t;
  status.hostIP = input.hostIP;
  status.hostIPs = [{ ip: input.hostIP }];
  if (input.podIP !== undefined) {
    status.podIP = input.podIP;
    status.podIPs = [{ ip: input.podIP }];
  }
  const sandboxAt = timeOf(status.startTime) ?? now;
  const initSpecs = pod.spec?.initContainers ?? [];
  const appSpecs = pod.spec?.containers ?? [];
  const oldInit = new Map((old.initContainerStatuses ?? []).map((s) => [s.name, s]));
  const oldApp = new Map((old.containerStatuses ?? []).map((s) => [s.name, s]));

  if (pod.metadata.deletionTimestamp) return terminate(input, status, oldInit, oldApp);
  // A pod that ran to completion stays as it ended.
  if (old.phase === 'Succeeded' || old.phase === 'Failed') return { status: old, events, deletePod: false };

  // Init containers, in order, one step per sync.
  const initStatuses: ContainerStatus[] = [];
  let initDone = true;
  let stepped = false;
  let turnAt = sandboxAt;
  const incomplete: string[] = [];
  for (const c of initSpecs) {
    const cs = oldInit.get(c.name);
    const sidecar = c.restartPolicy === 'Always';
    if (!initDone || stepped) {
      initStatuses.push(cs ?? waiting(c, 'PodInitializing'));
      if (sidecar ? !cs?.state?.running : cs?.state?.terminated?.exitCode !== 0) incomplete.push(c.name);
      continue;
    }
    if (!sidecar && cs?.state?.terminated?.exitCode === 0) {
      turnAt = Math.max(turnAt, timeOf(cs.state.terminated.finishedAt) ?? turnAt);
      initStatuses.push(cs);
      continue;
    }
    if (!cs?.state?.running) {
      const startAt = turnAt + startMsOf(input);
      if (now >= startAt) {
        initStatuses.push(startContainer(input, c, cs?.restartCount ?? 0, undefined, true, events, wakes).status);
        if (!sidecar) wakes.push(now + timing.initSeconds * 1000);
        stepped = true;
      } else {
        initStatuses.push(cs ?? waiting(c, 'PodInitializing'));
        wakes.push(startAt);
      }
      initDone = false;
      incomplete.push(c.name);
      continue;
    }
    if (sidecar) {
      // A sidecar runs on; the next init container waits for it to have started.
      const probes = probeState(c, cs, now, wakes);
      initStatuses.push({ ...restartIfChanged(input, c, cs, true, events, wakes), ready: probes.ready, started: probes.started });
      if (!probes.started) {
        initDone = false;
        incomplete.push(c.name);
      }
      continue;
    }
    const doneAt = (timeOf(cs.state.running.startedAt) ?? now) + timing.initSeconds * 1000;
    if (now >= doneAt) {
      initStatuses.push({
        ...cs,
        ready: true,
        started: false,
        state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: cs.state.running.startedAt, finishedAt: t, containerID: cs.containerID } },
      });
      stepped = true;
    } else {
      initStatuses.push(cs);
      wakes.push(doneAt);
    }
    initDone = false;
    incomplete.push(c.name);
  }

  // App containers, together, once the init containers are done.
  const appStatuses: ContainerStatus[] = [];
  for (const c of appSpecs) {
    const cs = oldApp.get(c.name);
    if (!initDone) {
      appStatuses.push(cs?.state?.running ? cs : waiting(c, initSpecs.length ? 'PodInitializing' : 'ContainerCreating'));
      continue;
    }
    if (cs?.state?.terminated && (pod.spec?.restartPolicy ?? 'Always') !== 'Always') {
      // It ran to completion (runToCompletion restarts the ones OnFailure restarts).
      appStatuses.push(cs);
      continue;
    }
    if (!cs?.state?.running) {
      const startAt = turnAt + startMsOf(input);
      if (now >= startAt) appStatuses.push(crashIfDue(input, c, runToCompletion(input, c, startOrWait(input, c, cs, events, wakes), events, wakes), events, wakes));
      else {
        appStatuses.push(cs ?? waiting(c, 'ContainerCreating'));
        wakes.push(startAt);
      }
      continue;
    }
    const current = crashIfDue(input, c, runToCompletion(input, c, restartIfChanged(input, c, cs, false, events, wakes), events, wakes), events, wakes);
    if (!current.state?.running) {
      appStatuses.push(current);
      continue;
    }
    const probes = probeState(c, current, now, wakes, knobCovers(input, neverReadyAnnotation, c.name));
    appStatuses.push({ ...current, ready: probes.ready, started: probes.started });
  }

  if (initSpecs.length) status.initContainerStatuses = initStatuses;
  status.containerStatuses = appStatuses;
  if (initDone && appStatuses.length > 0 && appStatuses.every((s) => s.state?.terminated)) {
    // Every app container exited for good: the pod is done (kube's getPhase).
    const failed = appStatuses.some((s) => s.state?.terminated?.exitCode !== 0);
    status.phase = failed ? 'Failed' : 'Succeeded';
    status.conditions = terminatedConditions(old.conditions ?? [], t, failed ? 'PodFailed' : 'PodCompleted');
    return { status, events, deletePod: false };
  }
  const allRunning = initDone && appStatuses.every((s) => s.state?.running);
  status.phase = allRunning || old.phase === 'Running' ? 'Running' : 'Pending';
  status.conditions = podConditions(pod, old.conditions ?? [], {
    sandbox: true,
    initialized: initDone,
    incomplete,
    unready: appStatuses.filter((s) => !s.ready).map((s) => s.name),
    t,
  });
  const stepsOn = stepped || appStatuses.some((s) => s.state?.waiting?.reason === 'ErrImagePull') || restartedNow(initStatuses, oldInit) || restartedNow(appStatuses, oldApp);
  return { status, events, wakeAt: wakes.length ? Math.min(...wakes) : undefined, deletePod: false, stepsOn };
}

/** Whether a container restarted in this sync: its restartCount grew. */
function restartedNow(statuses: readonly ContainerStatus[], old: ReadonlyMap<string, ContainerStatus>): boolean {
  return statuses.some((s) => (s.restartCount ?? 0) > (old.get(s.name)?.restartCount ?? 0));
}

function waiting(c: Container, reason: string): ContainerStatus {
  return { name: c.name, state: { waiting: { reason } }, lastState: {}, ready: false, restartCount: 0, image: c.image ?? '', imageID: '', started: false };
}

/** Mounts as kubelet 1.31+ reports them in container statuses. */
function mountsOf(c: Container): corev1.VolumeMountStatus[] | undefined {
  const mounts = c.volumeMounts ?? [];
  if (mounts.length === 0) return undefined;
  return mounts.map((m) => (m.readOnly ? { name: m.name, mountPath: m.mountPath, readOnly: true, recursiveReadOnly: 'Disabled' } : { name: m.name, mountPath: m.mountPath }));
}

/** A container started now (its `restartCount`-th restart), with the events kube records for it. */
function startContainer(
  input: PodSyncInput,
  c: Container,
  restartCount: number,
  lastState: corev1.ContainerState | undefined,
  init: boolean,
  events: KubeletEvent[],
  wakes: number[] = [],
): { status: ContainerStatus } {
  const image = c.image ?? '';
  const container = { name: c.name, init };
  if (c.imagePullPolicy === 'Always') {
    events.push({ type: 'Normal', reason: 'Pulling', message: `Pulling image ${JSON.stringify(image)}`, container });
    events.push({ type: 'Normal', reason: 'Pulled', message: `Successfully pulled image ${JSON.stringify(image)} in 0s (0s including waiting). Image size: 0 bytes.`, container });
  } else {
    events.push({ type: 'Normal', reason: 'Pulled', message: `Container image ${JSON.stringify(image)} already present on machine`, container });
  }
  events.push({ type: 'Normal', reason: 'Created', message: `Created container: ${c.name}`, container });
  events.push({ type: 'Normal', reason: 'Started', message: `Started container ${c.name}`, container });
  const status: ContainerStatus = {
    name: c.name,
    state: { running: { startedAt: rfc3339(input.now) } },
    lastState: lastState ?? {},
    ready: false,
    restartCount,
    image: normalizedImage(image),
    imageID: imageId(image),
    containerID: containerId(input.pod.metadata.uid ?? '', c.name, restartCount),
    started: false,
  };
  const mounts = mountsOf(c);
  if (mounts) (status as { volumeMounts?: corev1.VolumeMountStatus[] }).volumeMounts = mounts;
  if (init && c.restartPolicy !== 'Always') return { status: { ...status, started: true } };
  const probes = probeState(c, status, input.now, wakes, !init && knobCovers(input, neverReadyAnnotation, c.name));
  return { status: { ...status, ready: probes.ready, started: probes.started } };
}

/**
 * A running container whose spec image differs from the one it runs: the
 * restart is scheduled (a Killing event), and once due the container runs
 * again with the new image. Otherwise the container as it is.
 */
function restartIfChanged(input: PodSyncInput, c: Container, cs: ContainerStatus, init: boolean, events: KubeletEvent[], wakes: number[]): ContainerStatus {
  const { now, restarts, timing } = input;
  if (normalizedImage(c.image ?? '') === cs.image) {
    restarts.delete(c.name);
    return cs;
  }
  let due = restarts.get(c.name);
  if (due === undefined) {
    due = now + timing.restartSeconds * 1000;
    restarts.set(c.name, due);
    events.push({ type: 'Normal', reason: 'Killing', message: `Container ${c.name} definition changed, will be restarted`, container: { name: c.name, init } });
  }
  if (now < due) {
    wakes.push(due);
    return cs;
  }
  restarts.delete(c.name);
  const previous: corev1.ContainerState = {
    terminated: { exitCode: 0, reason: 'Completed', startedAt: cs.state?.running?.startedAt, finishedAt: rfc3339(now), containerID: cs.containerID },
  };
  return startContainer(input, c, (cs.restartCount ?? 0) + 1, previous, init, events, wakes).status;
}

/**
 * A running container of a pod that runs to completion: once its run time is
 * over it exits with the pod's exit code, and restarts in place (after the
 * crash back-off) when it failed under OnFailure. Other containers are
 * returned as they are.
 */
function runToCompletion(input: PodSyncInput, c: Container, cs: ContainerStatus, events: KubeletEvent[], wakes: number[]): ContainerStatus {
  const { pod, now } = input;
  const policy = pod.spec?.restartPolicy ?? 'Always';
  const run = cs.state?.running;
  if (policy === 'Always' || !run) return cs;
  const exited = exitOfRun(input, cs, run, 0, wakes);
  if (!exited) return cs;
  if (exited.exitCode !== 0 && policy === 'OnFailure') return restartOrBackOff(input, c, cs, exited, events, wakes);
  return { ...cs, ready: false, started: false, state: { terminated: exited } };
}

/**
 * How a run ends once its run time (the run-seconds annotation, default
 * `runSeconds`) is up: terminated with the exit-code annotation's code
 * (default `defaultExitCode`) at that moment, whenever this sync comes to see
 * it; undefined (and a wake) while it still runs.
 */
function exitOfRun(input: PodSyncInput, cs: ContainerStatus, run: corev1.ContainerStateRunning, defaultExitCode: number, wakes: number[]): corev1.ContainerStateTerminated | undefined {
  const { pod, now } = input;
  const runSeconds = annotationNumber(pod, runSecondsAnnotation) ?? input.timing.runSeconds;
  const exitAt = (timeOf(run.startedAt) ?? now) + runSeconds * 1000;
  if (now < exitAt) {
    wakes.push(exitAt);
    return undefined;
  }
  const exitCode = Math.trunc(annotationNumber(pod, exitCodeAnnotation) ?? defaultExitCode);
  return { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: run.startedAt, finishedAt: rfc3339(exitAt), containerID: cs.containerID };
}

/**
 * Probes that always succeed, at their initialDelaySeconds after the
 * container started: started after the startupProbe's, ready after the
 * readinessProbe's (and never before started).
 */
function probeState(c: Container, cs: ContainerStatus, now: number, wakes: number[], neverReady = false): ProbeState {
  const startedAt = timeOf(cs.state?.running?.startedAt) ?? now;
  const startupAt = startedAt + (c.startupProbe ? (c.startupProbe.initialDelaySeconds ?? 0) * 1000 : 0);
  const readyAt = Math.max(startupAt, startedAt + (c.readinessProbe ? (c.readinessProbe.initialDelaySeconds ?? 0) * 1000 : 0));
  const started = now >= startupAt;
  // A never-ready container's readiness probe keeps failing: nothing to wake for.
  const ready = !neverReady && now >= readyAt;
  if (!started) wakes.push(startupAt);
  else if (!ready && !neverReady) wakes.push(readyAt);
  return { started, ready };
}

/**
 * Deletion asked: containers get SIGTERM and stop after stopSeconds, or are
 * killed at the grace period's end, whichever is first; then the pod may go.
 *
 * What kubelet 1.32 reports of it: each container's exit as the runtime
 * saw it, 128 + the signal (143 after SIGTERM, unless the stop-exit-code
 * annotation says how the app exits on SIGTERM; 137 when SIGKILL came at the
 * end of the grace period), reason `Error` (`Completed` for 0); a container
 * that never ran is reported terminated with 137, reason
 * `ContainerStatusUnknown` (the status manager's TerminatePod). The pod then
 * gets a terminal phase whatever its restartPolicy (getPhase with
 * podIsTerminal): Succeeded when every app container exited 0, else Failed.
 */
function terminate(input: PodSyncInput, status: Status, oldInit: Map<string, ContainerStatus>, oldApp: Map<string, ContainerStatus>): PodSyncResult {
  const { pod, now, timing } = input;
  const grace = Math.max(0, pod.metadata.deletionGracePeriodSeconds ?? 0);
  const running = [...oldInit.values(), ...oldApp.values()].some((s) => s.state?.running);
  const stopAt = running ? (input.deletionSeenAt ?? now) + Math.min(grace, timing.stopSeconds) * 1000 : now;
  const events: KubeletEvent[] = [];
  if (now < stopAt) {
    return { status: pod.status ?? {}, events, wakeAt: stopAt, deletePod: false };
  }
  const t = rfc3339(now);
  // The app gets SIGTERM and ends by itself within the grace period, or is killed with SIGKILL at its end.
  const killed = grace < timing.stopSeconds;
  const onTerm = Math.trunc(podOrNodeNumber(input, stopExitCodeAnnotation) ?? sigtermExitCode);
  const exitCode = killed ? sigkillExitCode : onTerm;
  const stop = (cs: ContainerStatus): ContainerStatus => {
    const run = cs.state?.running;
    if (!run) return cs;
    return { ...cs, ready: false, started: false, state: { terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: run.startedAt, finishedAt: t, containerID: cs.containerID } } };
  };
  const initialized = (status.conditions ?? []).some((c) => c.type === 'Initialized' && c.status === 'True');
  // The status manager's TerminatePod: a container of an initialized pod with no exit of its own is reported lost.
  const lost = (cs: ContainerStatus): ContainerStatus =>
    cs.state?.terminated || !initialized
      ? cs
      : { ...cs, ready: false, started: false, state: { terminated: { exitCode: sigkillExitCode, reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was terminated' } } };
  if (status.initContainerStatuses) status.initContainerStatuses = status.initContainerStatuses.map(stop);
  status.containerStatuses = (status.containerStatuses ?? []).map(stop).map(lost);
  if (status.phase !== 'Failed' && status.phase !== 'Succeeded') {
    const apps = status.containerStatuses;
    const allSucceeded = apps.length > 0 && apps.every((s) => s.state?.terminated?.exitCode === 0);
    status.phase = allSucceeded ? 'Succeeded' : 'Failed';
  }
  status.conditions = terminatedConditions(status.conditions ?? [], t, status.phase === 'Failed' ? 'PodFailed' : 'PodCompleted');
  return { status, events, deletePod: true };
}

/**
 * An app container that is not running and whose turn came: it starts, unless
 * it waits out kube's crash back-off (CrashLoopBackOff) or its image pull
 * fails (the image-pull-failure knob): ErrImagePull, then ImagePullBackOff
 * until the pull back-off ends and the pull is tried again.
 */
function startOrWait(input: PodSyncInput, c: Container, cs: ContainerStatus | undefined, events: KubeletEvent[], wakes: number[]): ContainerStatus {
  const { now } = input;
  const container = { name: c.name, init: false };
  const crashed = cs?.state?.waiting?.reason === 'CrashLoopBackOff' ? cs.lastState?.terminated : undefined;
  const crashedAt = crashed ? (timeOf(crashed.finishedAt) ?? now) : 0;
  if (crashed) {
    const { due } = restartDue(input, c.name, cs?.restartCount ?? 1, crashedAt);
    if (now < due) {
      wakes.push(due);
      return cs!;
    }
  }
  const image = c.image ?? '';
  const pulls = input.pulls ?? new Map<string, PullFailures>();
  const last = pulls.get(c.name);
  const base: ContainerStatus = { ...(cs ?? waiting(c, 'ContainerCreating')), ready: false, started: false, image, imageID: '' };
  // The back-off holds the next pull, whether or not it would work now.
  if (last && now < last.lastAt + backOffSeconds(last.failures) * 1000) {
    wakes.push(last.lastAt + backOffSeconds(last.failures) * 1000);
    if (cs?.state?.waiting?.reason === 'ImagePullBackOff') return cs;
    events.push({ type: 'Normal', reason: 'BackOff', message: `Back-off pulling image ${JSON.stringify(image)}`, container });
    events.push({ type: 'Warning', reason: 'Failed', message: 'Error: ImagePullBackOff', container });
    const previous = cs?.state?.waiting?.message ?? '';
    return { ...base, state: { waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image ${JSON.stringify(image)}: ErrImagePull: ${previous}` } } };
  }
  if (knobCovers(input, imagePullFailureAnnotation, c.name)) {
    const ref = JSON.stringify(normalizedImage(image));
    const error = `rpc error: code = NotFound desc = failed to pull and unpack image ${ref}: failed to resolve reference ${ref}: ${normalizedImage(image)}: not found (simulated by the ${imagePullFailureAnnotation} annotation)`;
    pulls.set(c.name, { failures: (last?.failures ?? 0) + 1, lastAt: now });
    events.push({ type: 'Normal', reason: 'Pulling', message: `Pulling image ${JSON.stringify(image)}`, container });
    events.push({ type: 'Warning', reason: 'Failed', message: `Failed to pull image ${JSON.stringify(image)}: ${error}`, container });
    events.push({ type: 'Warning', reason: 'Failed', message: 'Error: ErrImagePull', container });
    // The pod worker syncs again shortly and finds the pull backing off.
    wakes.push(now + 1000);
    return { ...base, state: { waiting: { reason: 'ErrImagePull', message: error } } };
  }
  input.pulls?.delete(c.name);
  if (crashed) {
    noteRestart(input, c.name, crashedAt);
    return startContainer(input, c, (cs?.restartCount ?? 0) + 1, { terminated: crashed }, false, events, wakes).status;
  }
  return startContainer(input, c, cs?.restartCount ?? 0, undefined, false, events, wakes).status;
}

/**
 * A running container of the crash-loop knob under restartPolicy Always: it
 * exits after its run time (code of the exit-code annotation, default 1) and
 * restarts at once the first time, then after kube's back-off (10 s doubling
 * to 5 min), waiting in CrashLoopBackOff meanwhile with a BackOff event.
 */
function crashIfDue(input: PodSyncInput, c: Container, cs: ContainerStatus, events: KubeletEvent[], wakes: number[]): ContainerStatus {
  const { pod, now } = input;
  const run = cs.state?.running;
  if (!run || (pod.spec?.restartPolicy ?? 'Always') !== 'Always' || !knobCovers(input, crashLoopAnnotation, c.name)) return cs;
  const terminated = exitOfRun(input, cs, run, 1, wakes);
  if (!terminated) return cs;
  return restartOrBackOff(input, c, cs, terminated, events, wakes);
}

/**
 * kube's doBackOff for a container that exited: when its restart is due
 * (epoch ms) and the back-off it waits (0: at once).
 */
function restartDue(input: PodSyncInput, name: string, restartCount: number, exitedAt: number): { due: number; seconds: number } {
  if (!input.backOffs) {
    const seconds = restartCount === 0 ? 0 : backOffSeconds(restartCount);
    return { due: exitedAt + seconds * 1000, seconds };
  }
  const entry = input.backOffs.get(name);
  if (!entry || exitedAt - entry.lastUpdate > backOffExpiryMs) return { due: exitedAt, seconds: 0 };
  return { due: exitedAt + entry.seconds * 1000, seconds: entry.seconds };
}

/** kube's Backoff.Next, at a restart: a new (or expired) entry waits 10 s next time, an existing one twice as long. */
function noteRestart(input: PodSyncInput, name: string, exitedAt: number): void {
  const entry = input.backOffs?.get(name);
  const fresh = !entry || exitedAt - entry.lastUpdate > backOffExpiryMs;
  input.backOffs?.set(name, { seconds: fresh ? backOffSeconds(1) : Math.min(maxBackOffSeconds, entry.seconds * 2), lastUpdate: input.now });
}

/**
 * A container that exited and is to run again: restarted now when its
 * back-off allows, else waiting in CrashLoopBackOff with kube's BackOff event.
 */
function restartOrBackOff(input: PodSyncInput, c: Container, cs: ContainerStatus, terminated: corev1.ContainerStateTerminated, events: KubeletEvent[], wakes: number[]): ContainerStatus {
  const { pod, now } = input;
  const exitedAt = timeOf(terminated.finishedAt) ?? now;
  const { due, seconds } = restartDue(input, c.name, cs.restartCount ?? 0, exitedAt);
  if (now >= due) {
    noteRestart(input, c.name, exitedAt);
    return startContainer(input, c, (cs.restartCount ?? 0) + 1, { terminated }, false, events, wakes).status;
  }
  const container = { name: c.name, init: false };
  events.push({ type: 'Warning', reason: 'BackOff', message: `Back-off restarting failed container ${c.name} in pod ${formatPod(pod)}`, container });
  wakes.push(due);
  return {
    ...cs,
    ready: false,
    started: false,
    lastState: { terminated },
    state: { waiting: { reason: 'CrashLoopBackOff', message: `back-off ${goDuration(seconds)} restarting failed container=${c.name} pod=${formatPod(pod)}` } },
  };
}

/**
 * Test knobs: annotations that make a simulated kubelet misbehave the way
 * real nodes do, so operators can be tested against it. Each is read from
 * the pod first, then from its node (a node's knob applies to every pod on
 * it). The value `"true"` (or `"*"`) covers every container; otherwise it is
 * a comma-separated list of container names (`"app,sidecar"`); `"false"` or
 * an empty value turns it off.
 *
 * | annotation                          | what the kubelet does                                                       |
 * |-------------------------------------|-----------------------------------------------------------------------------|
 * | `sim.operant.dev/never-ready`       | the containers run but their readiness probe never passes                   |
 * | `sim.operant.dev/crash-loop`        | the containers exit (after `run-seconds`, with `exit-code`, default 1) and restart with kube's back-off: CrashLoopBackOff |
 * | `sim.operant.dev/image-pull-failure`| pulling the containers' images fails: ErrImagePull, then ImagePullBackOff   |
 * | `sim.operant.dev/heartbeats-paused` | (node only) the kubelet stops: no Lease renewals, no status writes          |
 */
import type { PodObject } from '../objects.js';

/** Pod or node annotation: the named containers never become ready. */
export const neverReadyAnnotation = 'sim.operant.dev/never-ready';
/** Pod or node annotation: the named containers crash after their run time and restart with back-off. */
export const crashLoopAnnotation = 'sim.operant.dev/crash-loop';
/** Pod or node annotation: pulling the named containers' images fails. */
export const imagePullFailureAnnotation = 'sim.operant.dev/image-pull-failure';
/** Node annotation: the node's kubelet stops reporting (as if it hung or its host died) while it is set to `"true"`. */
export const heartbeatsPausedAnnotation = 'sim.operant.dev/heartbeats-paused';

/** The annotations a knob is looked up in: the pod's, then its node's. */
export interface KnobSources {
  pod: PodObject;
  nodeAnnotations?: Readonly<Record<string, string>>;
}

/** Whether the knob `key` covers the container `name`. */
export function knobCovers(sources: KnobSources, key: string, name: string): boolean {
  const raw = sources.pod.metadata.annotations?.[key] ?? sources.nodeAnnotations?.[key];
  return valueCovers(raw, name);
}

/** Whether an annotation value (`true`, `*`, or a list of names) covers `name`. */
export function valueCovers(raw: string | undefined, name: string): boolean {
  if (raw === undefined) return false;
  const value = raw.trim();
  if (value === '' || value === 'false') return false;
  if (value === 'true' || value === '*') return true;
  return value.split(',').some((n) => n.trim() === name);
}

/**
 * The kubelet's back-off (flowcontrol.Backoff with 10 s initial, 5 min max)
 * before the retry that follows failure number `failures` (1 for the first):
 * 10 s, 20 s, 40 s ... 300 s.
 */
export function backOffSeconds(failures: number): number {
  return Math.min(maxBackOffSeconds, 10 * 2 ** Math.max(0, failures - 1));
}

/** The kubelet's back-off cap (5 min). */
export const maxBackOffSeconds = 300;

/** A duration as Go's time.Duration prints it: `10s`, `1m20s`, `5m0s`. */
export function goDuration(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return m < 60 ? `${m}m${s}s` : `${Math.floor(m / 60)}h${m % 60}m${s}s`;
}

/** A pod as the kubelet names it in messages (format.Pod): `web-1_default(uid)`. */
export function formatPod(pod: PodObject): string {
  return `${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`;
}

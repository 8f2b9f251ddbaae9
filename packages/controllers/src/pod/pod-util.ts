/**
 * What kube's podutil answers about a pod, shared by the controllers: is it
 * ready, is it available (ready for minReadySeconds), when will it be, is it
 * still active.
 */
import { timeOf } from '../clock.js';
import type { PodCondition, PodObject } from '../objects.js';

/** The condition of a type in a list of conditions. */
export function conditionOf<C extends { type: string }>(conditions: readonly C[] | undefined, type: string): C | undefined {
  if (!conditions) return undefined;
  for (const c of conditions) if (c.type === type) return c;
  return undefined;
}

/** kube's GetPodReadyCondition. */
export function podReadyCondition(pod: PodObject): PodCondition | undefined {
  return conditionOf(pod.status?.conditions, 'Ready');
}

/** kube's IsPodReady: the Ready condition is True. */
export function isPodReady(pod: PodObject): boolean {
  return podReadyCondition(pod)?.status === 'True';
}

/**
 * kube's IsPodAvailable: ready, and (with minReadySeconds) ready since strictly
 * more than minReadySeconds before `nowMs`.
 */
export function isPodAvailable(pod: PodObject, minReadySeconds: number, nowMs: number): boolean {
  return isPodAvailableSince(podReadyCondition(pod), minReadySeconds, nowMs);
}

/** {@link isPodAvailable} from the pod's Ready condition, for callers that have it already. */
export function isPodAvailableSince(ready: PodCondition | undefined, minReadySeconds: number, nowMs: number): boolean {
  if (ready?.status !== 'True') return false;
  if (minReadySeconds <= 0) return true;
  const since = timeOf(ready.lastTransitionTime);
  return since !== undefined && since + minReadySeconds * 1000 < nowMs;
}

/**
 * When a ready pod that is not yet available becomes so (epoch ms), for a
 * requeue at that moment; undefined when it never will by waiting alone.
 */
export function availableAt(pod: PodObject, minReadySeconds: number): number | undefined {
  const ready = podReadyCondition(pod);
  if (ready?.status !== 'True' || minReadySeconds <= 0) return undefined;
  const since = timeOf(ready.lastTransitionTime);
  return since === undefined ? undefined : since + minReadySeconds * 1000 + 1;
}

/** kube's IsPodActive: not Succeeded, not Failed, not being deleted. */
export function isPodActive(pod: PodObject): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata.deletionTimestamp;
}

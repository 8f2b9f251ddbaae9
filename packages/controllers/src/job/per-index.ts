/**
 * An Indexed Job's `backoffLimitPerIndex` (kube's JobBackoffLimitPerIndex, on
 * in 1.32; pkg/controller/job/indexed_job_utils.go and backoff_utils.go):
 * each index has its own failure count and back-off.
 *
 * - A pod carries the failures of its index so far in the
 *   `batch.kubernetes.io/job-index-failure-count` annotation (and those an
 *   Ignore rule let go in `batch.kubernetes.io/job-index-ignored-failure-count`),
 *   one more than the pod it replaces;
 * - a failed pod fails its index when its count already reached the limit,
 *   or when it matched a FailIndex rule; a failed index is in
 *   `status.failedIndexes` and is never run again;
 * - a new pod of an index waits for the index's back-off (10 s doubling per
 *   failure of the index, at most 6 min) from when its last pod finished.
 */
import type * as batchv1 from 'kubernetes-types/batch/v1.js';
import { timeOf } from '../clock.js';
import type { PodObject } from '../objects.js';
import { indexOf } from './indexes.js';
import { matchPodFailurePolicy } from './pod-failure-policy.js';

/** The annotation with the number of counted failures of the pod's index before it. */
export const indexFailureCountKey = 'batch.kubernetes.io/job-index-failure-count';
/** The annotation with the number of the index's failures an Ignore rule let go before it (set only when above 0). */
export const indexIgnoredFailureCountKey = 'batch.kubernetes.io/job-index-ignored-failure-count';

/** Whether the Job limits failures per index (kube's hasBackoffLimitPerIndex). */
export function hasBackoffLimitPerIndex(spec: batchv1.JobSpec | undefined): boolean {
  return spec?.backoffLimitPerIndex !== undefined && spec.backoffLimitPerIndex !== null;
}

/** A count annotation's value; 0 when absent, unreadable, negative or past int32 (kube's parseInt32). */
function countOf(pod: PodObject, key: string): number {
  const raw = pod.metadata.annotations?.[key];
  if (raw === undefined || !/^\d+$/.test(raw)) return 0;
  const n = Number(raw);
  return n > 2147483647 ? 0 : n;
}

export const indexFailureCount = (pod: PodObject): number => countOf(pod, indexFailureCountKey);
/** Counted and ignored failures of the pod's index before it (kube's getIndexAbsoluteFailureCount). */
export const indexAbsoluteFailureCount = (pod: PodObject): number => countOf(pod, indexFailureCountKey) + countOf(pod, indexIgnoredFailureCountKey);

/**
 * kube's isIndexFailed, for a pod already known to have failed: it matched a
 * FailIndex rule, or it counts and its index had used up backoffLimitPerIndex.
 */
export function failsItsIndex(spec: batchv1.JobSpec, pod: PodObject): boolean {
  const verdict = matchPodFailurePolicy(spec.podFailurePolicy, pod);
  if (verdict.action === 'FailIndex') return true;
  return verdict.countFailed && indexFailureCount(pod) >= (spec.backoffLimitPerIndex ?? 0);
}

/** The annotations of the pod that replaces `replaced` in its index (kube's getNewIndexFailureCounts); none replaced: 0. */
export function failureCountAnnotations(spec: batchv1.JobSpec, replaced: PodObject | undefined): Record<string, string> {
  let failures = 0;
  let ignored = 0;
  if (replaced) {
    failures = indexFailureCount(replaced);
    ignored = countOf(replaced, indexIgnoredFailureCountKey);
    if (matchPodFailurePolicy(spec.podFailurePolicy, replaced).countFailed) failures++;
    else ignored++;
  }
  return ignored > 0 ? { [indexFailureCountKey]: String(failures), [indexIgnoredFailureCountKey]: String(ignored) } : { [indexFailureCountKey]: String(failures) };
}

/**
 * When a finished pod ended (kube's getFinishedTime): its containers' last
 * finishedAt, else when it became not Ready, else its deletion or creation.
 */
export function finishedAt(pod: PodObject): number | undefined {
  const statuses = [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])];
  const finished = statuses.map((s) => timeOf(s.state?.terminated?.finishedAt)).filter((t): t is number => t !== undefined);
  if (finished.length) return Math.max(...finished);
  const ready = (pod.status?.conditions ?? []).find((c) => c.type === 'Ready' && c.status === 'False');
  return timeOf(ready?.lastTransitionTime) ?? timeOf(pod.metadata.deletionTimestamp) ?? timeOf(pod.metadata.creationTimestamp);
}

/**
 * The last failed pod of each index (the highest absolute failure count, then
 * the latest to finish): the one a new pod of that index replaces.
 */
export function lastFailedPodPerIndex(failed: readonly PodObject[]): Map<number, PodObject> {
  const last = new Map<number, PodObject>();
  for (const pod of failed) {
    const i = indexOf(pod);
    if (i === undefined) continue;
    const current = last.get(i);
    if (
      !current ||
      indexAbsoluteFailureCount(pod) > indexAbsoluteFailureCount(current) ||
      (indexAbsoluteFailureCount(pod) === indexAbsoluteFailureCount(current) && (finishedAt(pod) ?? 0) >= (finishedAt(current) ?? 0))
    ) {
      last.set(i, pod);
    }
  }
  return last;
}

/**
 * A SidecarSet's status from the pods (Kruise's getMatchingPods and
 * calculateStatus, pkg/controller/sidecarset/sidecarset_processor.go):
 *
 * | count            | the pods that...                                                          |
 * |------------------|---------------------------------------------------------------------------|
 * | matchedPods      | are active, in scope, selected, list the SidecarSet in their injected-list |
 * |                  | annotation, and contain each of its current containers                    |
 * | updatedPods      | are matched and record the SidecarSet's current hash                      |
 * | readyPods        | are matched, Running, Ready, not being deleted, and consistent            |
 * | updatedReadyPods | are both                                                                  |
 *
 * A pod is consistent when every container has a status and each of the
 * SidecarSet's sidecars runs the image its spec names (one that does not is in
 * the middle of an upgrade). latestRevision and collisionCount come from the
 * SidecarSet's ControllerRevisions (revision/history.ts).
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { labelSelectorFromObject } from '@operant/apimachinery';
import type { SidecarSet, SidecarSetStatus } from '../../api/v1alpha1/sidecarset-types.js';
import { injectedSidecarSetNames, podSidecarSetHash, SidecarSetHashAnnotation } from '../annotations.js';
import { isActivePod, podNamespace, sidecarSetCoversNamespace } from '../injection/matching.js';
import type { NamespaceLabels } from '../validation/conflicts.js';
import { sameImage } from './images.js';

/** The pods the SidecarSet counts, from any list of pods. */
export function matchedPods(sidecarSet: SidecarSet, pods: readonly Pod[], namespaceLabels: NamespaceLabels): Pod[] {
  const name = sidecarSet.metadata?.name ?? '';
  let selector: ReturnType<typeof labelSelectorFromObject>;
  try {
    selector = labelSelectorFromObject(sidecarSet.spec?.selector);
  } catch {
    return [];
  }
  const sidecars = (sidecarSet.spec?.containers ?? []).map((c) => c.name);
  return pods.filter(
    (pod) =>
      sidecarSetCoversNamespace(sidecarSet, podNamespace(pod), namespaceLabels) &&
      selector.matches(pod.metadata?.labels ?? {}) &&
      isActivePod(pod) &&
      injectedSidecarSetNames(pod.metadata?.annotations).includes(name) &&
      sidecars.every((s) => pod.spec?.containers.some((c) => c.name === s)),
  );
}

/** What the status records of the SidecarSet's ControllerRevisions. */
export interface RevisionStatus {
  latestRevision: string;
  collisionCount: number;
}

/**
 * The status the SidecarSet should have, given all the pods that may match
 * it, and its latest revision (without one, the status keeps what it has).
 */
export function calculateStatus(sidecarSet: SidecarSet, pods: readonly Pod[], namespaceLabels: NamespaceLabels, revision?: RevisionStatus): SidecarSetStatus {
  return statusOfMatched(sidecarSet, matchedPods(sidecarSet, pods, namespaceLabels), revision);
}

/** The same, from the pods {@link matchedPods} already chose (the controller has them at hand). */
export function statusOfMatched(sidecarSet: SidecarSet, matched: readonly Pod[], revision?: RevisionStatus): SidecarSetStatus {
  let updatedPods = 0;
  let readyPods = 0;
  let updatedReadyPods = 0;
  for (const pod of matched) {
    const updated = isPodUpdated(sidecarSet, pod);
    const ready = isPodConsistent(pod, sidecarSet) && isRunningAndReady(pod);
    if (updated) updatedPods++;
    if (ready) readyPods++;
    if (updated && ready) updatedReadyPods++;
  }
  const { latestRevision, collisionCount } = revision ?? sidecarSet.status ?? {};
  return {
    observedGeneration: sidecarSet.metadata?.generation ?? 0,
    matchedPods: matched.length,
    updatedPods,
    readyPods,
    updatedReadyPods,
    ...(latestRevision ? { latestRevision } : {}),
    ...(collisionCount !== undefined ? { collisionCount } : {}),
  };
}

/** The pod records the SidecarSet's current hash (Kruise's IsPodSidecarUpdated). */
export function isPodUpdated(sidecarSet: SidecarSet, pod: Pod): boolean {
  const name = sidecarSet.metadata?.name ?? '';
  return podSidecarSetHash(pod.metadata?.annotations, name) === (sidecarSet.metadata?.annotations?.[SidecarSetHashAnnotation] ?? '');
}

/** Whether `next` differs from the status the SidecarSet has (Kruise's inconsistentStatus). */
export function statusChanged(current: SidecarSetStatus | undefined, next: SidecarSetStatus): boolean {
  const keys = ['observedGeneration', 'matchedPods', 'updatedPods', 'readyPods', 'updatedReadyPods', 'latestRevision', 'collisionCount'] as const;
  return keys.some((k) => current?.[k] !== next[k]);
}

/** Every container has a status, and each of the SidecarSet's sidecars runs the image its spec names. */
export function isPodConsistent(pod: Pod, sidecarSet: SidecarSet): boolean {
  if ((pod.spec?.containers ?? []).length !== (pod.status?.containerStatuses ?? []).length) return false;
  return (sidecarSet.spec?.containers ?? []).every((sidecar) => isContainerConsistent(pod, sidecar.name));
}

/** The pod's container of that name has a status, and runs the image its spec names (not mid-restart). */
export function isContainerConsistent(pod: Pod, name: string): boolean {
  const spec = pod.spec?.containers.find((c) => c.name === name);
  const status = pod.status?.containerStatuses?.find((s) => s.name === name);
  return spec !== undefined && status !== undefined && sameImage(spec.image ?? '', status.image);
}

/** Running, Ready, and not being deleted (Kruise's util.IsRunningAndReady). */
export function isRunningAndReady(pod: Pod): boolean {
  return pod.status?.phase === 'Running' && isPodReady(pod) && !pod.metadata?.deletionTimestamp;
}

/** The pod's Ready condition is True. */
export function isPodReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

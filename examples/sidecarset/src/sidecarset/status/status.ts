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
 * the middle of an upgrade). latestRevision and collisionCount belong to the
 * ControllerRevisions, which this slice does not record yet: they are kept.
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

/** The status the SidecarSet should have, given all the pods that may match it. */
export function calculateStatus(sidecarSet: SidecarSet, pods: readonly Pod[], namespaceLabels: NamespaceLabels): SidecarSetStatus {
  const matched = matchedPods(sidecarSet, pods, namespaceLabels);
  const name = sidecarSet.metadata?.name ?? '';
  const currentHash = sidecarSet.metadata?.annotations?.[SidecarSetHashAnnotation] ?? '';
  let updatedPods = 0;
  let readyPods = 0;
  let updatedReadyPods = 0;
  for (const pod of matched) {
    const updated = podSidecarSetHash(pod.metadata?.annotations, name) === currentHash;
    const ready = isPodConsistent(pod, sidecarSet) && isRunningAndReady(pod);
    if (updated) updatedPods++;
    if (ready) readyPods++;
    if (updated && ready) updatedReadyPods++;
  }
  const { latestRevision, collisionCount } = sidecarSet.status ?? {};
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

/** Whether `next` differs from the status the SidecarSet has (Kruise's inconsistentStatus). */
export function statusChanged(current: SidecarSetStatus | undefined, next: SidecarSetStatus): boolean {
  const keys = ['observedGeneration', 'matchedPods', 'updatedPods', 'readyPods', 'updatedReadyPods', 'latestRevision', 'collisionCount'] as const;
  return keys.some((k) => current?.[k] !== next[k]);
}

/** Every container has a status, and each of the SidecarSet's sidecars runs the image its spec names. */
export function isPodConsistent(pod: Pod, sidecarSet: SidecarSet): boolean {
  const statuses = pod.status?.containerStatuses ?? [];
  const containers = pod.spec?.containers ?? [];
  if (containers.length !== statuses.length) return false;
  for (const sidecar of sidecarSet.spec?.containers ?? []) {
    const spec = containers.find((c) => c.name === sidecar.name);
    const status = statuses.find((s) => s.name === sidecar.name);
    if (!spec || !status || !sameImage(spec.image ?? '', status.image)) return false;
  }
  return true;
}

/** Running, Ready, and not being deleted (Kruise's util.IsRunningAndReady). */
export function isRunningAndReady(pod: Pod): boolean {
  return pod.status?.phase === 'Running' && isPodReady(pod) && !pod.metadata?.deletionTimestamp;
}

/** The pod's Ready condition is True. */
export function isPodReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/**
 * Which pod events concern a SidecarSet (Kruise's enqueueRequestForPod,
 * pkg/controller/sidecarset/sidecarset_pod_event_handler.go). A pod concerns
 * the SidecarSets its injected-list annotation names: always when it is
 * created; on update only when something the status counts may have changed:
 * its deletion starts, its readiness flips, its sidecars' images become
 * consistent or stop being so, or its labels or injected list change.
 *
 * Two differences from Kruise, both for a status that is never stale: a
 * deleted pod concerns its SidecarSets too (Kruise waits for the next event),
 * and a label change always counts (Kruise counts it only for SidecarSets
 * with an updateStrategy.selector, which this filter cannot see).
 */
import { isDeepStrictEqual } from 'node:util';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { injectedSidecarSetNames, SidecarSetListAnnotation } from '../annotations.js';
import { isInjectedContainer } from '../injection/sidecar-env.js';
import { sameImage } from './images.js';
import { isPodReady } from './status.js';

/** The SidecarSets (cluster-scoped: names only) a pod concerns. */
export function sidecarSetsOfPod(pod: Pod): Array<{ namespace: string; name: string }> {
  return injectedSidecarSetNames(pod.metadata?.annotations).map((name) => ({ namespace: '', name }));
}

/** Whether an update of a pod may change the status of its SidecarSets. */
export function podUpdateMatters(old: Pod, pod: Pod): boolean {
  if (old.metadata?.resourceVersion === pod.metadata?.resourceVersion) return false;
  if (!old.metadata?.deletionTimestamp && pod.metadata?.deletionTimestamp) return true;
  if (old.metadata?.deletionTimestamp) return false;
  if (isPodReady(old) !== isPodReady(pod)) return true;
  if (sidecarsConsistent(old) !== sidecarsConsistent(pod)) return true;
  if (!isDeepStrictEqual(old.metadata?.labels ?? {}, pod.metadata?.labels ?? {})) return true;
  return old.metadata?.annotations?.[SidecarSetListAnnotation] !== pod.metadata?.annotations?.[SidecarSetListAnnotation];
}

/** Every container has a status, and every injected container runs its spec's image. */
function sidecarsConsistent(pod: Pod): boolean {
  const statuses = pod.status?.containerStatuses ?? [];
  if ((pod.spec?.containers ?? []).length !== statuses.length) return false;
  return (pod.spec?.containers ?? []).filter(isInjectedContainer).every((c) => {
    const status = statuses.find((s) => s.name === c.name);
    return status !== undefined && sameImage(c.image ?? '', status.image);
  });
}

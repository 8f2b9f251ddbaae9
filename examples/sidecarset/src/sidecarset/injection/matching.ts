/**
 * Which pods a SidecarSet is for (Kruise's PodMatchedSidecarSet and
 * IsActivePod): an active pod, in the SidecarSet's namespace if it names one,
 * in a namespace its namespaceSelector matches if it has one, whose labels its
 * selector matches. An empty or absent selector matches no pod.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { labelSelectorFromObject } from '@operant/apimachinery';
import type { SidecarSet } from '../../api/v1alpha1/sidecarset-types.js';
import type { NamespaceLabels } from '../validation/conflicts.js';

/** Kubernetes' controller.IsPodActive: not Succeeded, not Failed, not being deleted. */
export function isActivePod(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata?.deletionTimestamp;
}

/** The pod's namespace, `default` when it has none yet (a pod being created may not). */
export function podNamespace(pod: Pod): string {
  return pod.metadata?.namespace || 'default';
}

/** Whether the SidecarSet selects the pod (its paused flags aside). */
export function sidecarSetMatchesPod(sidecarSet: SidecarSet, pod: Pod, namespaceLabels: NamespaceLabels): boolean {
  const spec = sidecarSet.spec ?? {};
  const namespace = podNamespace(pod);
  if (spec.namespace && spec.namespace !== namespace) return false;
  if (spec.namespaceSelector && !selects(spec.namespaceSelector, namespaceLabels(namespace))) return false;
  const selector = spec.selector;
  if (!selector || Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions ?? []).length === 0) return false;
  return selects(selector, pod.metadata?.labels ?? {});
}

/** Whether the SidecarSet covers the namespace (its namespace and namespaceSelector only). */
export function sidecarSetCoversNamespace(sidecarSet: SidecarSet, namespace: string, namespaceLabels: NamespaceLabels): boolean {
  const spec = sidecarSet.spec ?? {};
  if (spec.namespace) return spec.namespace === namespace;
  return !spec.namespaceSelector || selects(spec.namespaceSelector, namespaceLabels(namespace));
}

function selects(selector: Parameters<typeof labelSelectorFromObject>[0], labels: Readonly<Record<string, string>> | undefined): boolean {
  if (!labels) return false;
  try {
    return labelSelectorFromObject(selector).matches(labels);
  } catch {
    return false;
  }
}

/** The SidecarSets to inject into a new pod: those that match it and do not pause injection, by name. */
export function sidecarSetsForPod(pod: Pod, sidecarSets: readonly SidecarSet[], namespaceLabels: NamespaceLabels): SidecarSet[] {
  return sidecarSets
    .filter((s) => !s.spec?.injectionStrategy?.paused && sidecarSetMatchesPod(s, pod, namespaceLabels))
    .sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
}

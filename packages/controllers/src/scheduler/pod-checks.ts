/**
 * What the filters that look at other pods (PodTopologySpread and
 * InterPodAffinity) share: the view of the cluster they read beyond one
 * node's usage, and the shape of a per-decision check. kube computes their
 * state once per scheduling cycle (PreFilter) over every node, then asks
 * each node in turn (Filter); {@link NodeCheck} is that second half.
 */
import type { LabelSelector } from '@operant/apimachinery';
import type { NodeObject, PodObject } from '../objects.js';
import type { FilterFailure } from './filters.js';
import type { NodeUsage } from './resources.js';

/** A filter prepared for one pod's decision: undefined when the node passes. */
export type NodeCheck = (node: NodeObject) => FilterFailure | undefined;

/** What the pod-to-pod filters read of the cluster beyond each node's usage. */
export interface ClusterPods {
  /** The nodes where a counted pod has required pod anti-affinity terms (kube's HavePodsWithRequiredAntiAffinityList). */
  nodesWithRequiredAntiAffinity(): Iterable<string>;
  /** A namespace's labels; undefined when the namespace is not known. */
  namespaceLabels(namespace: string): Readonly<Record<string, string>> | undefined;
  /** Every known namespace, for an incoming pod's namespaceSelector. */
  namespaces(): Iterable<{ name: string; labels: Readonly<Record<string, string>> }>;
  /**
   * The nodes where a counted pod has pod affinity or anti-affinity terms of
   * any kind (kube's HavePodsWithAffinityList), for the InterPodAffinity score;
   * without it every node's pods are looked at.
   */
  nodesWithPodAffinity?(): Iterable<string>;
  /**
   * How many pods on a node in `namespace` match `selector`, not being
   * deleted (kube's countPodsMatchSelector), as a function of the node, for
   * the PodTopologySpread filter and score; without it each node's pods are counted.
   */
  podCounter?(namespace: string, selector: LabelSelector): (node: string) => number;
  /**
   * The selector of kube's system default spread constraints for `pod` (its
   * Services' selectors and its ReplicationController's, ReplicaSet's or
   * StatefulSet's; kube's DefaultSelector); undefined or empty: no default
   * spreading. Without it, pods get none.
   */
  defaultSpreadSelector?(pod: PodObject): LabelSelector | undefined;
}

/** A cluster where no placed pod has pod affinity or anti-affinity terms and no namespace is known. */
export const noClusterPods: ClusterPods = { nodesWithRequiredAntiAffinity: () => [], namespaceLabels: () => undefined, namespaces: () => [], nodesWithPodAffinity: () => [] };

/**
 * The view worked out from the nodes' usage, for callers without a cache
 * (tests): it looks at every node's usage, and knows no namespace.
 */
export function clusterPodsOf(nodes: readonly NodeObject[], usageOf: (node: string) => NodeUsage): ClusterPods {
  return {
    nodesWithRequiredAntiAffinity: () => nodes.map((n) => n.metadata.name ?? '').filter((name) => !isEmpty(usageOf(name).podsWithRequiredAntiAffinity)),
    nodesWithPodAffinity: () => nodes.map((n) => n.metadata.name ?? '').filter((name) => !isEmpty(usageOf(name).podsWithAffinity)),
    namespaceLabels: () => undefined,
    namespaces: () => [],
  };
}

/** A topology domain (kube's topologyPair) as one map key. */
/** Whether an iterable (a live set of node names) has nothing in it. */
export function isEmpty(items: Iterable<unknown>): boolean {
  for (const _ of items) return false;
  return true;
}

export const topologyPair = (key: string, value: string): string => `${key}\u0000${value}`;

/** Adds `by` to a count, dropping it at zero (kube deletes a pair whose count comes back to 0). */
export function addCount(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next === 0) counts.delete(key);
  else counts.set(key, next);
}

/** Whether a pod counts for a spread selector (kube's countPodsMatchSelector): in the namespace, not being deleted, its labels matched. */
export function matchesSpreadSelector(pod: PodObject, selector: LabelSelector, namespace: string): boolean {
  return !pod.metadata.deletionTimestamp && pod.metadata.namespace === namespace && selector.matches(pod.metadata.labels);
}

/** Whether a pod has pod affinity or anti-affinity (kube's podWithAffinity: the InterPodAffinity score reads only such placed pods' terms). */
export function hasPodAffinity(pod: PodObject): boolean {
  const affinity = pod.spec?.affinity;
  return !!affinity && (affinity.podAffinity != null || affinity.podAntiAffinity != null);
}

/** Whether a pod has required anti-affinity terms (such pods are tracked per node, as kube's NodeInfo tracks them). */
export function hasRequiredAntiAffinity(pod: PodObject): boolean {
  return (pod.spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.length ?? 0) > 0;
}

/**
 * Whether where other pods are placed can decide where this pod fits (its
 * required pod affinity or anti-affinity, its DoNotSchedule spread): such a
 * pod, once unschedulable, is tried again when a pod is bound or a bound
 * pod's labels change (the events kube's InterPodAffinity and
 * PodTopologySpread register for).
 */
export function dependsOnOtherPods(pod: PodObject): boolean {
  const affinity = pod.spec?.affinity;
  return (
    (affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.length ?? 0) > 0 ||
    hasRequiredAntiAffinity(pod) ||
    (pod.spec?.topologySpreadConstraints ?? []).some((c) => c.whenUnsatisfiable === 'DoNotSchedule')
  );
}

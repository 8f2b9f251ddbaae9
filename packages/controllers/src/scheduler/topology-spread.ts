/**
 * kube-scheduler's PodTopologySpread filter, for the pod's
 * `whenUnsatisfiable: DoNotSchedule` constraints.
 *
 * Once per decision, over every node that has all the constraints'
 * topology keys and passes each constraint's node inclusion policies
 * (nodeAffinityPolicy Honor and nodeTaintsPolicy Ignore by default), the
 * pods of the pod's namespace that match the constraint's selector (its
 * labelSelector plus the pod's own values of matchLabelKeys), not being
 * deleted, are counted per domain of the topology key. A node then fits when
 * placing the pod there leaves its domain at most maxSkew above the least
 * populated domain (taken as 0 while there are fewer domains than
 * minDomains). A node without the topology key cannot take the pod at all.
 */
import { labelSelectorFromObject, type LabelSelector, type LabelSelectorObject } from '@operant/apimachinery';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import type { NodeObject, PodObject } from '../objects.js';
import { nodeAffinityMatches, untoleratedTaint, type FilterFailure } from './filters.js';
import { matchesSpreadSelector, type ClusterPods, type NodeCheck } from './pod-checks.js';
import type { NodeUsage } from './resources.js';

/** kube's failure texts: a missing topology label is unresolvable, a skew is not (preemption could even it). */
export const spreadMismatch: FilterFailure = { reasons: ["node(s) didn't match pod topology spread constraints"], unresolvable: false };
export const spreadLabelMissing: FilterFailure = { reasons: ["node(s) didn't match pod topology spread constraints (missing required label)"], unresolvable: true };

/** One constraint made ready to count (kube's topologySpreadConstraint). */
export interface SpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  selector: LabelSelector;
  minDomains: number;
  honorNodeAffinity: boolean;
  honorTaints: boolean;
}

/**
 * kube's filterTopologySpreadConstraints for one action: the selector is the
 * labelSelector (absent: nothing) with `key=value` added for each of
 * matchLabelKeys the pod has a label for.
 */
export function spreadConstraints(pod: PodObject, action: 'DoNotSchedule' | 'ScheduleAnyway'): SpreadConstraint[] {
  const out: SpreadConstraint[] = [];
  for (const c of pod.spec?.topologySpreadConstraints ?? []) {
    if (c.whenUnsatisfiable !== action) continue;
    out.push({
      maxSkew: c.maxSkew,
      topologyKey: c.topologyKey,
      selector: withMatchLabelKeys(c, pod.metadata.labels ?? {}),
      minDomains: c.minDomains ?? 1,
      honorNodeAffinity: (c.nodeAffinityPolicy ?? 'Honor') === 'Honor',
      honorTaints: (c.nodeTaintsPolicy ?? 'Ignore') === 'Honor',
    });
  }
  return out;
}

function withMatchLabelKeys(c: corev1.TopologySpreadConstraint, labels: Readonly<Record<string, string>>): LabelSelector {
  const sel = c.labelSelector as LabelSelectorObject | undefined;
  // The pod's own `key in (value)` for each key it has; an absent selector stays "nothing" (kube's mergeLabelSetWithSelector).
  const own = (c.matchLabelKeys ?? []).filter((key) => Object.hasOwn(labels, key)).map((key) => ({ key, operator: 'In', values: [labels[key]!] }));
  const merged = sel == null || own.length === 0 ? sel : { ...sel, matchExpressions: [...(sel.matchExpressions ?? []), ...own] };
  try {
    return labelSelectorFromObject(merged);
  } catch {
    // One the API server should have refused selects nothing here (kube fails the pod's cycle).
    return labelSelectorFromObject(undefined);
  }
}

/** kube's matchNodeInclusionPolicies. */
export function includesNode(c: SpreadConstraint, pod: PodObject, node: NodeObject): boolean {
  if (c.honorNodeAffinity && !nodeAffinityMatches(pod, node)) return false;
  return !c.honorTaints || untoleratedTaint(pod, node) === undefined;
}

/** kube's countPodsMatchSelector: an empty selector counts nothing; pods being deleted and other namespaces' pods do not count. */
export function countMatching(pods: Iterable<PodObject>, selector: LabelSelector, namespace: string): number {
  if (selector.empty()) return 0;
  let n = 0;
  for (const p of pods) if (matchesSpreadSelector(p, selector, namespace)) n++;
  return n;
}

/**
 * How many of a node's pods count for a selector: the scheduler cache's
 * running count when it keeps one (`cluster.podCounter`), else a count of the
 * node's pods.
 */
export function matchingPodCounter(selector: LabelSelector, namespace: string, cluster: ClusterPods, usageOf: (node: string) => NodeUsage): (node: string) => number {
  return cluster.podCounter?.(namespace, selector) ?? ((node) => countMatching(usageOf(node).pods, selector, namespace));
}

/** Per constraint: the matching pods in each domain of its topology key (every eligible domain present, 0 included). */
export function domainCounts(
  pod: PodObject,
  constraints: readonly SpreadConstraint[],
  nodes: readonly NodeObject[],
  usageOf: (node: string) => NodeUsage,
  cluster: ClusterPods,
): Map<string, number>[] {
  const counts = constraints.map(() => new Map<string, number>());
  const namespace = pod.metadata.namespace ?? '';
  const counters = constraints.map((c) => matchingPodCounter(c.selector, namespace, cluster, usageOf));
  for (const node of nodes) {
    const labels = node.metadata.labels ?? {};
    if (!constraints.every((c) => Object.hasOwn(labels, c.topologyKey))) continue;
    constraints.forEach((c, i) => {
      if (!includesNode(c, pod, node)) return;
      const value = labels[c.topologyKey]!;
      counts[i]!.set(value, (counts[i]!.get(value) ?? 0) + counters[i]!(node.metadata.name ?? ''));
    });
  }
  return counts;
}

/**
 * Prepares the PodTopologySpread filter for one decision about `pod`
 * (kube's PreFilter); undefined when the pod has no DoNotSchedule constraint.
 */
export function topologySpreadCheck(pod: PodObject, nodes: readonly NodeObject[], usageOf: (node: string) => NodeUsage, cluster: ClusterPods): NodeCheck | undefined {
  if (!pod.spec?.topologySpreadConstraints?.length) return undefined;
  const constraints = spreadConstraints(pod, 'DoNotSchedule');
  if (constraints.length === 0) return undefined;
  const counts = domainCounts(pod, constraints, nodes, usageOf, cluster);
  const minimums = constraints.map((c, i) => {
    const domains = counts[i]!;
    // Fewer domains than minDomains: the global minimum is taken as 0.
    if (domains.size < c.minDomains) return 0;
    let min = Infinity;
    for (const n of domains.values()) min = Math.min(min, n);
    return min;
  });
  const selfMatch = constraints.map((c) => (c.selector.matches(pod.metadata.labels) ? 1 : 0));
  return (node) => {
    const labels = node.metadata.labels ?? {};
    for (let i = 0; i < constraints.length; i++) {
      const c = constraints[i]!;
      if (!Object.hasOwn(labels, c.topologyKey)) return spreadLabelMissing;
      const skew = (counts[i]!.get(labels[c.topologyKey]!) ?? 0) + selfMatch[i]! - minimums[i]!;
      if (skew > c.maxSkew) return spreadMismatch;
    }
    return undefined;
  };
}

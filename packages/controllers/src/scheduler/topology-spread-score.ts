/**
 * kube-scheduler's PodTopologySpread score: the pod's `whenUnsatisfiable:
 * ScheduleAnyway` constraints or, for a pod with no constraints of its own,
 * kube's system defaults (hostname with maxSkew 3 and zone with maxSkew 5,
 * over the pods its Services and its ReplicationController, ReplicaSet or
 * StatefulSet select). Fewer matching pods in a node's domains is better.
 *
 * As kube does it: once per decision, each constraint's domains among the
 * feasible nodes, and the matching pods in each of them counted over every
 * node (the hostname's are counted per node when scored); a node's raw score
 * is the sum over its constraints of count x log(domains + 2) + maxSkew - 1,
 * rounded; normalized so the lowest raw score gets 100. Feasible nodes that
 * lack one of the pod's own constraints' topology keys get 0.
 */
import type { LabelSelector } from '@operant/apimachinery';
import type { NodeObject, PodObject } from '../objects.js';
import { maxNodeScore, type Candidate, type NodeScorer } from './node-scorer.js';
import type { ClusterPods } from './pod-checks.js';
import type { NodeUsage } from './resources.js';
import { includesNode, matchingPodCounter, spreadConstraints, type SpreadConstraint } from './topology-spread.js';

const hostnameKey = 'kubernetes.io/hostname';
const zoneKey = 'topology.kubernetes.io/zone';

/** kube's systemDefaultConstraints, with the pod's default selector. */
function systemDefaultConstraints(selector: LabelSelector): SpreadConstraint[] {
  return [
    { selector, minDomains: 1, honorNodeAffinity: true, honorTaints: false, maxSkew: 3, topologyKey: hostnameKey },
    { selector, minDomains: 1, honorNodeAffinity: true, honorTaints: false, maxSkew: 5, topologyKey: zoneKey },
  ];
}

const hasKeys = (labels: Readonly<Record<string, string>>, constraints: readonly SpreadConstraint[]): boolean => constraints.every((c) => Object.hasOwn(labels, c.topologyKey));

/**
 * Prepares the PodTopologySpread score for one decision (kube's PreScore);
 * undefined (Skip) when the pod has no soft constraint and no default one.
 */
export function podTopologySpreadScorer(
  pod: PodObject,
  candidates: readonly Candidate[],
  nodes: readonly NodeObject[],
  usageOf: (node: string) => NodeUsage,
  cluster: ClusterPods,
): NodeScorer | undefined {
  const ownCount = pod.spec?.topologySpreadConstraints?.length ?? 0;
  let constraints: SpreadConstraint[];
  if (ownCount > 0) constraints = spreadConstraints(pod, 'ScheduleAnyway');
  else {
    const selector = cluster.defaultSpreadSelector?.(pod);
    constraints = selector && !selector.empty() ? systemDefaultConstraints(selector) : [];
  }
  if (constraints.length === 0) return undefined;
  // Only the pod's own constraints require every topology key on a node: with the defaults, a node without a zone still spreads by hostname.
  const requireAll = ownCount > 0;
  const namespace = pod.metadata.namespace ?? '';

  // The domains of the feasible nodes, per constraint by label value (the hostname's are the nodes themselves), and the nodes left out.
  const ignored = new Set<string>();
  const domainCounts = constraints.map(() => new Map<string, number>());
  // Whether a feasible node has the constraint's key: only then are its counts read (a node without a zone scores no zone).
  const read = constraints.map(() => false);
  for (const { node, name } of candidates) {
    const labels = node.metadata.labels ?? {};
    if (requireAll && !hasKeys(labels, constraints)) {
      ignored.add(name);
      continue;
    }
    for (let i = 0; i < constraints.length; i++) {
      const key = constraints[i]!.topologyKey;
      const value = labels[key];
      if (value !== undefined && Object.hasOwn(labels, key)) read[i] = true;
      if (key !== hostnameKey && !domainCounts[i]!.has(value ?? '')) domainCounts[i]!.set(value ?? '', 0);
    }
  }
  const weights = constraints.map((c, i) => Math.log((c.topologyKey === hostnameKey ? candidates.length - ignored.size : domainCounts[i]!.size) + 2));
  const counters = constraints.map((c) => matchingPodCounter(c.selector, namespace, cluster, usageOf));

  // The matching pods of every node, by domain (only the feasible nodes' domains, and only where a score reads them).
  const counted = constraints.map((c, i) => i).filter((i) => constraints[i]!.topologyKey !== hostnameKey && read[i]);
  if (counted.length > 0) {
    for (const node of nodes) {
      const labels = node.metadata.labels ?? {};
      if (requireAll && !hasKeys(labels, constraints)) continue;
      const name = node.metadata.name ?? '';
      for (const i of counted) {
        const c = constraints[i]!;
        if (!includesNode(c, pod, node)) continue;
        const value = labels[c.topologyKey] ?? '';
        const count = domainCounts[i]!.get(value);
        if (count !== undefined) domainCounts[i]!.set(value, count + counters[i]!(name));
      }
    }
  }

  return {
    weight: 2,
    score: ({ node, name }) => {
      if (ignored.has(name)) return 0;
      const labels = node.metadata.labels ?? {};
      let score = 0;
      for (let i = 0; i < constraints.length; i++) {
        const c = constraints[i]!;
        if (!Object.hasOwn(labels, c.topologyKey)) continue;
        const count = c.topologyKey === hostnameKey ? counters[i]!(name) : (domainCounts[i]!.get(labels[c.topologyKey]!) ?? 0);
        score += count * weights[i]! + (c.maxSkew - 1);
      }
      return Math.round(score);
    },
    normalize: (scores, scored) => {
      let min = Infinity;
      let max = 0;
      scored.forEach(({ name }, i) => {
        if (ignored.has(name)) return;
        min = Math.min(min, scores[i]!);
        max = Math.max(max, scores[i]!);
      });
      scored.forEach(({ name }, i) => {
        if (ignored.has(name)) scores[i] = 0;
        else if (max === 0) scores[i] = maxNodeScore;
        else scores[i] = Math.trunc((maxNodeScore * (max + min - scores[i]!)) / max);
      });
    },
  };
}

/**
 * kube-scheduler's InterPodAffinity score: the incoming pod's preferred pod
 * affinity terms (plus their weight for each placed pod they match) and
 * anti-affinity terms (minus), and, the other way round, the placed pods'
 * required affinity terms (plus 1, kube's hardPodAffinityWeight) and
 * preferred affinity and anti-affinity terms that the incoming pod matches,
 * each added to the topology domain of the placed pod's node. A node's raw
 * score is the sum over its domains; normalized from the lowest (0) to the
 * highest (100).
 *
 * As kube's PreScore does: a pod with no preferred terms of its own looks
 * only at the placed pods that have affinity terms, on the nodes that hold
 * some (the cache knows them), so most pods pay nothing; and when no term
 * matched anything the plugin is skipped.
 */
import type * as corev1 from 'kubernetes-types/core/v1.js';
import type { NodeObject, PodObject } from '../objects.js';
import { incomingTerms, placedTerms, termMatches, type WeightedTerm } from './inter-pod-affinity.js';
import { maxNodeScore, type NodeScorer } from './node-scorer.js';
import { isEmpty, topologyPair, type ClusterPods } from './pod-checks.js';
import type { NodeUsage } from './resources.js';

/** kube's HardPodAffinityWeight default. */
const hardPodAffinityWeight = 1;

/**
 * Prepares the InterPodAffinity score for one decision (kube's PreScore);
 * undefined (Skip) when no term of the pod or of a placed pod matched.
 */
export function interPodAffinityScorer(
  pod: PodObject,
  nodes: readonly NodeObject[],
  usageOf: (node: string) => NodeUsage,
  cluster: ClusterPods,
): NodeScorer | undefined {
  const affinity = pod.spec?.affinity;
  const preferred = affinity?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? [];
  const preferredAnti = affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? [];
  const hasOwnTerms = preferred.length > 0 || preferredAnti.length > 0;
  let toVisit: readonly NodeObject[] = nodes;
  if (!hasOwnTerms) {
    const withAffinity = cluster.nodesWithPodAffinity?.();
    if (withAffinity) {
      if (isEmpty(withAffinity)) return undefined;
      const names = new Set(withAffinity);
      toVisit = nodes.filter((n) => names.has(n.metadata.name ?? ''));
    }
  }
  const ownTerms = (terms: readonly corev1.WeightedPodAffinityTerm[]): WeightedTerm[] => {
    const made = incomingTerms(pod, terms.map((t) => t.podAffinityTerm), cluster);
    return made.map((term, i) => ({ term, weight: terms[i]!.weight }));
  };
  const affinityTerms = ownTerms(preferred);
  const antiTerms = ownTerms(preferredAnti);
  const nsLabels = cluster.namespaceLabels(pod.metadata.namespace ?? '');

  // Scores by topology domain, and the topology keys that have some (an entry even when it sums to 0, as kube keeps it).
  const byDomain = new Map<string, number>();
  const keys = new Set<string>();
  for (const node of toVisit) {
    const labels = node.metadata.labels ?? {};
    let any = false;
    for (const _ in labels) {
      any = true;
      break;
    }
    if (!any) continue;
    const add = (topologyKey: string, by: number): void => {
      if (!Object.hasOwn(labels, topologyKey)) return;
      const pair = topologyPair(topologyKey, labels[topologyKey]!);
      byDomain.set(pair, (byDomain.get(pair) ?? 0) + by);
      keys.add(topologyKey);
    };
    const usage = usageOf(node.metadata.name ?? '');
    for (const placed of hasOwnTerms ? usage.pods : usage.podsWithAffinity) {
      // The incoming pod's terms against the placed pod (its namespaceSelectors were made into names).
      for (const t of affinityTerms) if (termMatches(t.term, placed, undefined)) add(t.term.topologyKey, t.weight);
      for (const t of antiTerms) if (termMatches(t.term, placed, undefined)) add(t.term.topologyKey, -t.weight);
      // The placed pod's terms against the incoming pod.
      const theirs = placedTerms(placed);
      for (const t of theirs.required) if (termMatches(t, pod, nsLabels)) add(t.topologyKey, hardPodAffinityWeight);
      for (const t of theirs.preferred) if (termMatches(t.term, pod, nsLabels)) add(t.term.topologyKey, t.weight);
      for (const t of theirs.preferredAnti) if (termMatches(t.term, pod, nsLabels)) add(t.term.topologyKey, -t.weight);
    }
  }
  if (keys.size === 0) return undefined;

  return {
    weight: 2,
    score: ({ node }) => {
      const labels = node.metadata.labels ?? {};
      let score = 0;
      for (const key of keys) if (Object.hasOwn(labels, key)) score += byDomain.get(topologyPair(key, labels[key]!)) ?? 0;
      return score;
    },
    normalize: (scores) => {
      let min = Infinity;
      let max = -Infinity;
      for (const s of scores) {
        min = Math.min(min, s);
        max = Math.max(max, s);
      }
      const spread = max - min;
      for (let i = 0; i < scores.length; i++) scores[i] = spread > 0 ? Math.trunc(maxNodeScore * ((scores[i]! - min) / spread)) : 0;
    },
  };
}

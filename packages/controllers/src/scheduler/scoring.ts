/**
 * Scoring the feasible nodes as kube-scheduler's default profile does: each
 * score plugin gives every feasible node 0..100 (after its NormalizeScore),
 * times the plugin's weight (apis/config/v1/default_plugins.go), summed:
 *
 * | plugin                           | weight | what scores higher                                   |
 * |----------------------------------|--------|------------------------------------------------------|
 * | TaintToleration                  | 3      | fewer untolerated PreferNoSchedule taints            |
 * | NodeAffinity                     | 2      | more weight of preferred node affinity terms matched |
 * | NodeResourcesFit (LeastAllocated)| 1      | more cpu and memory left free                        |
 * | PodTopologySpread                | 2      | fewer matching pods in the node's domains            |
 * | InterPodAffinity                 | 2      | preferred (anti-)affinity, both ways                 |
 * | NodeResourcesBalancedAllocation  | 1      | cpu and memory shares closer to each other           |
 * | ImageLocality                    | 1      | the pod's images already on the node (status.images) |
 *
 * A plugin with nothing to say for a pod is
 * skipped (kube's PreScore Skip): it adds 0 everywhere and costs nothing;
 * so is one that would give every node the same score (TaintToleration when
 * no feasible node has a PreferNoSchedule taint), since only the order of
 * the totals decides.
 */
import type { NodeObject, PodObject } from '../objects.js';
import { imageLocalityScorer } from './image-locality.js';
import { interPodAffinityScorer } from './inter-pod-affinity-score.js';
import type { Candidate, NodeScorer } from './node-scorer.js';
import { nodeAffinityScorer, taintTolerationScorer } from './node-scores.js';
import type { ClusterPods } from './pod-checks.js';
import { BalancedAllocationScorer, balancedAllocationSkips, LeastAllocatedScorer } from './resource-scores.js';
import type { NodeUsage, PodFootprint } from './resources.js';
import { podTopologySpreadScorer } from './topology-spread-score.js';

/** What one decision's scoring reads. */
export interface ScoringInput {
  pod: PodObject;
  footprint: PodFootprint;
  /** The feasible nodes, in the order they were found. */
  candidates: readonly Candidate[];
  /** Every node of the cluster, for the plugins that count pods cluster-wide. */
  nodes: readonly NodeObject[];
  usageOf: (node: string) => NodeUsage;
  cluster: ClusterPods;
}

/** The score plugins of the default profile, prepared for one decision; the skipped ones left out. */
function scorers({ pod, footprint, candidates, nodes, usageOf, cluster }: ScoringInput): NodeScorer[] {
  const out: NodeScorer[] = [];
  const taints = taintTolerationScorer(pod, candidates);
  if (taints) out.push(taints);
  const nodeAffinity = nodeAffinityScorer(pod);
  if (nodeAffinity) out.push(nodeAffinity);
  out.push(new LeastAllocatedScorer(footprint));
  const spread = podTopologySpreadScorer(pod, candidates, nodes, usageOf, cluster);
  if (spread) out.push(spread);
  const podAffinity = interPodAffinityScorer(pod, nodes, usageOf, cluster);
  if (podAffinity) out.push(podAffinity);
  if (!balancedAllocationSkips(footprint)) out.push(new BalancedAllocationScorer(footprint));
  const images = imageLocalityScorer(pod, nodes);
  if (images) out.push(images);
  return out;
}

/** Each candidate's total: the plugins' normalized scores times their weights, summed (kube's RunScorePlugins). */
export function totalScores(input: ScoringInput): number[] {
  const { candidates } = input;
  const totals = new Array<number>(candidates.length).fill(0);
  const scores = new Array<number>(candidates.length);
  for (const scorer of scorers(input)) {
    for (let i = 0; i < candidates.length; i++) scores[i] = scorer.score(candidates[i]!);
    scorer.normalize?.(scores, candidates);
    for (let i = 0; i < totals.length; i++) totals[i]! += scores[i]! * scorer.weight;
  }
  return totals;
}

/** Where the round robin among equally good nodes stands; the caller keeps it across decisions. */
export interface TieBreaker {
  ties: number;
}

/**
 * The index of the highest total. kube picks among equal totals at random
 * (reservoir sampling in selectHost); here the ties, in the order the nodes
 * were found, take turns: the `n`th decision with a tie takes tie number
 * n mod (number of ties). Without a tie breaker, the first. Deterministic,
 * so that tests are reproducible, and equal pods still spread over equal
 * nodes.
 */
export function selectHost(totals: readonly number[], tieBreaker?: TieBreaker): number {
  let best = -Infinity;
  const ties: number[] = [];
  totals.forEach((t, i) => {
    if (t > best) {
      best = t;
      ties.length = 0;
    }
    if (t === best) ties.push(i);
  });
  if (ties.length === 1 || !tieBreaker) return ties[0]!;
  return ties[tieBreaker.ties++ % ties.length]!;
}

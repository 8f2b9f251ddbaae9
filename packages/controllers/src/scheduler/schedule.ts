/**
 * One scheduling decision (kube-scheduler's schedulePod, without preemption):
 * filter the nodes, score those that fit as the default profile scores them
 * (scoring.ts), take the best; or, when none fits, the FitError message
 * kube-scheduler puts in the FailedScheduling event and the PodScheduled
 * condition:
 *
 *     0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are
 *     available: 3 No preemption victims found for incoming pod..
 *
 * (the double period is kube's: the preemption message ends with one, and
 * FitError adds its own). kube breaks ties between equal totals at random;
 * here they take turns (scoring.ts's selectHost), so that decisions are
 * reproducible.
 */
import type { NodeObject, PodObject } from '../objects.js';
import { filterNode, type FilterFailure } from './filters.js';
import { interPodAffinityCheck } from './inter-pod-affinity.js';
import { noClusterPods, type ClusterPods, type NodeCheck } from './pod-checks.js';
import type { Candidate } from './node-scorer.js';
import { footprintOf, type NodeUsage } from './resources.js';
import { selectHost, totalScores, type TieBreaker } from './scoring.js';
import { topologySpreadCheck } from './topology-spread.js';

export type ScheduleResult = { node: string } | { message: string };

/** kube's ErrNoNodesAvailable. */
export const noNodesMessage = 'no nodes available to schedule pods';

/**
 * Where the next search of a large cluster starts (kube's nextStartNodeIndex),
 * and where the round robin among equally good nodes stands; the caller
 * keeps it across decisions.
 */
export interface SearchCursor extends Partial<TieBreaker> {
  next: number;
}

/**
 * kube's numFeasibleNodesToFind with the default, adaptive
 * percentageOfNodesToScore: every node of a cluster under 100 nodes, else
 * 50% less 1% per 125 nodes (at least 5%), and never fewer than 100.
 */
export function feasibleNodesToFind(total: number): number {
  if (total < 100) return total;
  const percentage = Math.max(5, 50 - Math.trunc(total / 125));
  return Math.max(100, Math.trunc((total * percentage) / 100));
}

/**
 * Chooses a node for `pod`, given each node's current usage. In a cluster
 * where {@link feasibleNodesToFind} is less than every node, the search
 * starts at `cursor` and stops once that many nodes fit (kube scores a
 * sample of a large cluster, and the next pod's search goes on from there).
 * `cluster`: what the pod-to-pod filters and scores read beyond the nodes'
 * usage (the scheduler's cache and listers; pod-checks.ts's clusterPodsOf
 * works it out from the usage of every node). Without it, no placed pod's
 * pod affinity or anti-affinity is seen, and no pod gets kube's default
 * spreading. With a cursor, ties between equal totals take turns.
 */
export function schedulePod(
  pod: PodObject,
  nodes: readonly NodeObject[],
  usageOf: (node: string) => NodeUsage,
  cursor?: SearchCursor,
  cluster: ClusterPods = noClusterPods,
): ScheduleResult {
  if (nodes.length === 0) return { message: noNodesMessage };
  const ordered = inNameOrder(nodes);
  // kube's filter order puts PodTopologySpread and InterPodAffinity after the node's own filters;
  // their counting over every node is done once here, and only for a pod (or cluster) that has such terms.
  const podChecks: NodeCheck[] = [];
  const spread = topologySpreadCheck(pod, ordered, usageOf, cluster);
  if (spread) podChecks.push(spread);
  const affinity = interPodAffinityCheck(pod, ordered, usageOf, cluster);
  if (affinity) podChecks.push(affinity);
  const wanted = feasibleNodesToFind(ordered.length);
  const start = cursor && wanted < ordered.length ? cursor.next % ordered.length : 0;
  const failures = new Map<string, FilterFailure>();
  const candidates: Candidate[] = [];
  let processed = 0;
  const footprint = footprintOf(pod);
  for (; processed < ordered.length && candidates.length < wanted; processed++) {
    const node = ordered[(start + processed) % ordered.length]!;
    const name = node.metadata.name ?? '';
    const usage = usageOf(name);
    const failure = filterNode(pod, node, usage, footprint) ?? (podChecks.length > 0 ? runChecks(podChecks, node) : undefined);
    if (failure) failures.set(name, failure);
    else candidates.push({ node, name, usage });
  }
  if (cursor) cursor.next = (start + processed) % ordered.length;
  if (candidates.length === 0) return { message: fitErrorMessage(pod, nodes.length, failures) };
  // One node fits: kube takes it without scoring.
  if (candidates.length === 1) return { node: candidates[0]!.name };
  const totals = totalScores({ pod, footprint, candidates, nodes: ordered, usageOf, cluster });
  const tieBreaker = cursor ? ((cursor.ties ??= 0), cursor as TieBreaker) : undefined;
  return { node: candidates[selectHost(totals, tieBreaker)]!.name };
}

function runChecks(checks: readonly NodeCheck[], node: NodeObject): FilterFailure | undefined {
  for (const check of checks) {
    const failure = check(node);
    if (failure) return failure;
  }
  return undefined;
}

const nameOf = (n: NodeObject): string => n.metadata.name ?? '';

/** The nodes in name order: as given when they already are (the scheduler keeps them so), else a sorted copy. */
function inNameOrder(nodes: readonly NodeObject[]): readonly NodeObject[] {
  for (let i = 1; i < nodes.length; i++) {
    if (nameOf(nodes[i - 1]!) > nameOf(nodes[i]!)) return [...nodes].sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0));
  }
  return nodes;
}

/** `N reason` for each distinct reason, sorted as strings (kube's sortReasonsHistogram). */
function histogram(reasons: Iterable<string>): string {
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts].map(([r, n]) => `${n} ${r}`).sort().join(', ');
}

/**
 * kube's FitError.Error, with DefaultPreemption's message after it: nodes
 * that failed for an unresolvable reason are ones where preemption "is not
 * helpful"; on the others no lower-priority pod could make room (preemption
 * itself is not simulated).
 */
export function fitErrorMessage(pod: PodObject, totalNodes: number, failures: ReadonlyMap<string, FilterFailure>): string {
  let message = `0/${totalNodes} nodes are available: ${histogram([...failures.values()].flatMap((f) => f.reasons))}.`;
  const preemption =
    pod.spec?.preemptionPolicy === 'Never'
      ? 'preemption: not eligible due to preemptionPolicy=Never.'
      : `preemption: 0/${totalNodes} nodes are available: ${histogram(
          [...failures.values()].map((f) => (f.unresolvable ? 'Preemption is not helpful for scheduling' : 'No preemption victims found for incoming pod')),
        )}.`;
  message += ` ${preemption}.`;
  return message;
}

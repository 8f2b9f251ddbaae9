/**
 * The NodeResourcesFit score (its default strategy, LeastAllocated) and
 * NodeResourcesBalancedAllocation, over cpu and memory with equal weights, as
 * kube-scheduler's default profile scores them: whole numbers from 0 to 100,
 * in kube's units (millicores, bytes), with no normalization step.
 */
import type { NodeObject } from '../objects.js';
import type { Candidate, NodeScorer } from './node-scorer.js';
import { allocatable, type NodeUsage, type PodFootprint } from './resources.js';

/** The resources both scores read (kube's default NodeResourcesFitArgs and BalancedAllocationArgs: cpu and memory, weight 1 each). */
const scored = ['cpu', 'memory'] as const;

/** An amount in kube's unit for scoring: millicores for cpu, whole units (bytes) for the rest, rounded up as Quantity.Value rounds. */
const inKubeUnits = (name: string, thousandths: number): number => (name === 'cpu' ? thousandths : Math.ceil(thousandths / 1000));

/** Each node object's cpu and memory allocatable in kube's units, worked out once (every decision scores every feasible node). */
const capacities = new WeakMap<NodeObject, readonly number[]>();

function capacityOf(node: NodeObject): readonly number[] {
  let out = capacities.get(node);
  if (!out) {
    const alloc = allocatable(node);
    capacities.set(node, (out = scored.map((name) => inKubeUnits(name, alloc.get(name) ?? 0))));
  }
  return out;
}

/** kube's leastRequestedScore: the share left free, 0 to 100, rounded down; 0 when the node has none of it or is over. */
function leastRequested(requested: number, capacity: number): number {
  if (capacity === 0 || requested > capacity) return 0;
  return Math.trunc(((capacity - requested) * 100) / capacity);
}

/** The pod's non-zero cpu and memory (thousandths), in the order of {@link scored}. */
const nonZeroWants = (footprint: PodFootprint): readonly number[] => scored.map((name) => footprint.nonZero.get(name) ?? 0);

/**
 * NodeResourcesFit's LeastAllocated score: for cpu and memory the node has,
 * the share left free once the pod is placed, counting every pod (this one
 * included) that requests no cpu or memory as 100m and 200Mi (kube's
 * non-zero requests); their mean, rounded down. 100 is an empty node.
 */
export function leastAllocatedScore(node: NodeObject, usage: NodeUsage, footprint: PodFootprint): number {
  return leastAllocated(node, usage, nonZeroWants(footprint));
}

/** {@link leastAllocatedScore} with the pod's non-zero requests already looked up. */
function leastAllocated(node: NodeObject, usage: NodeUsage, wants: readonly number[]): number {
  const capacities = capacityOf(node);
  let total = 0;
  let weights = 0;
  for (let i = 0; i < scored.length; i++) {
    const capacity = capacities[i]!;
    if (capacity === 0) continue;
    const name = scored[i]!;
    total += leastRequested(inKubeUnits(name, (usage.nonZero.get(name) ?? 0) + wants[i]!), capacity);
    weights++;
  }
  return weights === 0 ? 0 : Math.trunc(total / weights);
}

/**
 * Whether BalancedAllocation skips the pod (kube's PreScore Skip, since 1.33,
 * kubernetes#129138): it requests no cpu and no memory, and balancing its
 * zero requests only drew such pods onto the same nodes.
 */
export function balancedAllocationSkips(footprint: PodFootprint): boolean {
  return scored.every((name) => (footprint.requested.get(name) ?? 0) === 0);
}

/**
 * NodeResourcesBalancedAllocation: how close the node's cpu and memory
 * shares requested (its pods' real requests plus the pod's, each share at
 * most 1) are to each other: 100 times one minus their standard deviation,
 * rounded down (with two resources the deviation is half the difference).
 */
export function balancedAllocationScore(node: NodeObject, usage: NodeUsage, footprint: PodFootprint): number {
  const capacities = capacityOf(node);
  const fractions: number[] = [];
  for (let i = 0; i < scored.length; i++) {
    const name = scored[i]!;
    const capacity = capacities[i]!;
    if (capacity === 0) continue;
    const requested = inKubeUnits(name, (usage.requested.get(name) ?? 0) + (footprint.requested.get(name) ?? 0));
    fractions.push(Math.min(1, requested / capacity));
  }
  let std = 0;
  if (fractions.length === 2) std = Math.abs((fractions[0]! - fractions[1]!) / 2);
  else if (fractions.length > 2) {
    const mean = fractions.reduce((a, b) => a + b, 0) / fractions.length;
    std = Math.sqrt(fractions.reduce((a, f) => a + (f - mean) ** 2, 0) / fractions.length);
  }
  return Math.trunc((1 - std) * 100);
}

/** NodeResourcesFit's score plugin for one pod (weight 1; its scores need no normalizing). */
export class LeastAllocatedScorer implements NodeScorer {
  readonly weight = 1;
  /** The pod's non-zero cpu and memory, looked up once for every node. */
  private readonly wants: readonly number[];

  constructor(footprint: PodFootprint) {
    this.wants = nonZeroWants(footprint);
  }

  score({ node, usage }: Candidate): number {
    return leastAllocated(node, usage, this.wants);
  }
}

/** BalancedAllocation's score plugin for one pod (weight 1). */
export class BalancedAllocationScorer implements NodeScorer {
  readonly weight = 1;

  constructor(private readonly footprint: PodFootprint) {}

  score({ node, usage }: Candidate): number {
    return balancedAllocationScore(node, usage, this.footprint);
  }
}

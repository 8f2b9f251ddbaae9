/**
 * The score plugins that read only the pod and the node: TaintToleration
 * (fewer PreferNoSchedule taints the pod does not tolerate is better) and
 * NodeAffinity (the weights of the pod's preferred node affinity terms the
 * node matches), with kube's NormalizeScore for each.
 */
import type * as corev1 from 'kubernetes-types/core/v1.js';
import type { NodeObject, PodObject } from '../objects.js';
import { nodeSelectorTermMatches, tolerates } from './filters.js';
import { defaultNormalize, type Candidate, type NodeScorer } from './node-scorer.js';

/** Each node object's PreferNoSchedule taints, found once (the cache replaces a node's object when it changes). */
const softTaints = new WeakMap<NodeObject, readonly corev1.Taint[]>();

function softTaintsOf(node: NodeObject): readonly corev1.Taint[] {
  let taints = softTaints.get(node);
  if (!taints) softTaints.set(node, (taints = (node.spec?.taints ?? []).filter((t) => t.effect === 'PreferNoSchedule')));
  return taints;
}

/**
 * TaintToleration's score (kube's PreScore, Score and NormalizeScore): the
 * node's PreferNoSchedule taints that none of the pod's PreferNoSchedule (or
 * effect-less) tolerations tolerates, counted; normalized in reverse, so the
 * nodes with the fewest get 100. When no feasible node has such a taint all
 * would get 100: the same for every node, so the plugin is left out.
 */
export function taintTolerationScorer(pod: PodObject, candidates: readonly Candidate[]): NodeScorer | undefined {
  // No feasible node with such a taint: every node would get the same 100, which changes no choice.
  if (!candidates.some(({ node }) => softTaintsOf(node).length > 0)) return undefined;
  return new TaintTolerationScorer((pod.spec?.tolerations ?? []).filter((t) => !t.effect || t.effect === 'PreferNoSchedule'));
}

// The scorers are classes, not object literals of closures: one is made per decision, and a class's methods are made once.
class TaintTolerationScorer implements NodeScorer {
  readonly weight = 3;

  constructor(private readonly tolerations: readonly corev1.Toleration[]) {}

  score({ node }: Candidate): number {
    let n = 0;
    for (const taint of softTaintsOf(node)) if (!this.tolerations.some((t) => tolerates(t, taint))) n++;
    return n;
  }

  normalize(scores: number[]): void {
    defaultNormalize(scores, true);
  }
}

/**
 * NodeAffinity's score: the sum of the weights of the pod's preferred node
 * affinity terms that the node matches (an empty term matches nothing, a
 * term of weight 0 counts nothing), normalized to the best node's 100.
 * undefined (kube's PreScore Skip) when the pod has no preferred terms.
 */
export function nodeAffinityScorer(pod: PodObject): NodeScorer | undefined {
  const preferred = pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution;
  return preferred ? new NodeAffinityScorer(preferred.filter((t) => t.weight !== 0)) : undefined;
}

class NodeAffinityScorer implements NodeScorer {
  readonly weight = 2;

  constructor(private readonly terms: readonly corev1.PreferredSchedulingTerm[]) {}

  score({ node }: Candidate): number {
    let sum = 0;
    for (const t of this.terms) if (nodeSelectorTermMatches(t.preference, node)) sum += t.weight;
    return sum;
  }

  normalize(scores: number[]): void {
    defaultNormalize(scores, false);
  }
}

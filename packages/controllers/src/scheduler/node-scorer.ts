/**
 * The shape of a score plugin prepared for one decision (kube's PreScore
 * done): a raw score per feasible node, then kube's NormalizeScore over all
 * of them, then its weight. See scoring.ts for the plugins and their sum.
 */
import type { NodeObject } from '../objects.js';
import type { NodeUsage } from './resources.js';

/** kube's framework.MaxNodeScore. */
export const maxNodeScore = 100;

/** A feasible node as the score plugins see it. */
export interface Candidate {
  readonly node: NodeObject;
  readonly name: string;
  readonly usage: NodeUsage;
}

/** One score plugin for one decision. */
export interface NodeScorer {
  /** The plugin's weight in kube's default profile. */
  readonly weight: number;
  /** The raw score of one candidate (kube's Score). */
  score(candidate: Candidate): number;
  /** Turns the raw scores, in the candidates' order, into 0..100 in place (kube's NormalizeScore); absent: already 0..100. */
  normalize?(scores: number[], candidates: readonly Candidate[]): void;
}

/**
 * kube's helper.DefaultNormalizeScore: scores scaled so the highest is 100
 * (whole numbers, rounded down); `reverse` then takes each from 100. When
 * every score is 0 they stay 0, or all become 100 in reverse.
 */
export function defaultNormalize(scores: number[], reverse: boolean): void {
  let max = 0;
  for (const s of scores) if (s > max) max = s;
  if (max === 0) {
    if (reverse) scores.fill(maxNodeScore);
    return;
  }
  for (let i = 0; i < scores.length; i++) {
    const s = Math.trunc((maxNodeScore * scores[i]!) / max);
    scores[i] = reverse ? maxNodeScore - s : s;
  }
}

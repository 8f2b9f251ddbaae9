/**
 * updateStrategy.scatterStrategy: spreading the pods that carry a label
 * (`key=value`) evenly over an upgrade's order, so that e.g. the pods of one
 * zone are not all upgraded in the same round (Kruise's scatterSort,
 * pkg/util/updatesort/scatter_sort.go, and parseUpdateScatterTerms).
 *
 * A term whose value is `*` stands for every value of the key among the pods.
 * With several terms, those matching more of the waiting pods are applied
 * first. Each term interleaves the matching pods with the others in groups
 * sized by their density among all the SidecarSet's pods, keeping one
 * matching pod for the very end.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { UpdateScatterTerm } from '../../api/v1alpha1/sidecarset-types.js';

/** The terms with `*` expanded to each value the pods have for the key, duplicates dropped. */
export function expandScatterTerms(terms: readonly UpdateScatterTerm[], pods: readonly Pod[]): UpdateScatterTerm[] {
  const out: UpdateScatterTerm[] = [];
  const add = (term: UpdateScatterTerm) => {
    if (!out.some((t) => t.key === term.key && t.value === term.value)) out.push(term);
  };
  for (const term of terms) {
    if (term.value !== '*') {
      add(term);
      continue;
    }
    for (const pod of pods) {
      const value = pod.metadata?.labels?.[term.key];
      if (value !== undefined) add({ key: term.key, value });
    }
  }
  return out;
}

/** `order` (indexes into `pods`) reordered by the terms. */
export function scatterOrder(terms: readonly UpdateScatterTerm[], pods: readonly Pod[], order: readonly number[]): number[] {
  if (terms.length === 0 || order.length <= 1) return [...order];
  let out = [...order];
  for (const term of termsByWeight(terms, pods, order)) out = scatterByTerm(term, pods, out);
  return out;
}

const labelOf = (pod: Pod, key: string): string | undefined => pod.metadata?.labels?.[key];

/** One term as it is; several: those that match waiting pods, most matches first (stable). */
function termsByWeight(terms: readonly UpdateScatterTerm[], pods: readonly Pod[], order: readonly number[]): UpdateScatterTerm[] {
  if (terms.length === 1) return [...terms];
  const counts = new Map<string, number>();
  const seen: UpdateScatterTerm[] = [];
  for (const term of terms) {
    for (const i of order) {
      if (labelOf(pods[i]!, term.key) !== term.value) continue;
      const id = `${term.key}:${term.value}`;
      if (!counts.has(id)) seen.push({ key: term.key, value: term.value });
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
  }
  const count = (t: UpdateScatterTerm) => counts.get(`${t.key}:${t.value}`)!;
  return seen.map((t, i) => ({ t, i })).sort((a, b) => count(b.t) - count(a.t) || a.i - b.i).map(({ t }) => t);
}

function scatterByTerm(term: UpdateScatterTerm, pods: readonly Pod[], order: readonly number[]): number[] {
  const matched = order.filter((i) => labelOf(pods[i]!, term.key) === term.value);
  const unmatched = order.filter((i) => labelOf(pods[i]!, term.key) !== term.value);
  if (matched.length <= 1 || unmatched.length <= 1) return [...order];
  let totalMatched = pods.filter((p) => labelOf(p, term.key) === term.value).length;
  const totalUnmatched = pods.length - totalMatched;
  // One matching pod goes last.
  const last = matched.pop()!;
  totalMatched--;
  const group = groupByDensity(totalMatched, totalUnmatched, matched.length, unmatched.length);
  const out: number[] = [];
  let restMatched = matched;
  let restUnmatched = unmatched;
  if (group.unmatchedRemainder > 0) {
    out.push(...restUnmatched.slice(0, group.unmatchedRemainder));
    restUnmatched = restUnmatched.slice(group.unmatchedRemainder);
  }
  for (let g = 0; g < group.groups; g++) {
    out.push(...restMatched.slice(0, group.matchedSize));
    restMatched = restMatched.slice(group.matchedSize);
    out.push(...restUnmatched.slice(0, group.unmatchedSize));
    restUnmatched = restUnmatched.slice(group.unmatchedSize);
  }
  out.push(...restMatched, ...restUnmatched, last);
  return out;
}

interface Group {
  groups: number;
  matchedSize: number;
  unmatchedSize: number;
  unmatchedRemainder: number;
}

/** As many groups as the smaller side has pods, each side's pods spread over them (Go's math.Round). */
function evenGroups(matched: number, unmatched: number): Group {
  const groups = Math.min(matched, unmatched);
  return { groups, matchedSize: Math.round(matched / groups), unmatchedSize: Math.round(unmatched / groups), unmatchedRemainder: 0 };
}

/**
 * The groups for the waiting pods: their own density, unless the unmatched
 * pods are rarer among all pods than among the waiting ones; then all pods'
 * group sizes, the unmatched pods left over going first. (Go compares the
 * ratios as float32.)
 */
function groupByDensity(totalMatched: number, totalUnmatched: number, waitingMatched: number, waitingUnmatched: number): Group {
  const all = evenGroups(totalMatched, totalUnmatched);
  const waiting = evenGroups(waitingMatched, waitingUnmatched);
  if (Math.fround(Math.fround(totalUnmatched) / Math.fround(totalMatched)) >= Math.fround(Math.fround(waitingUnmatched) / Math.fround(waitingMatched))) return waiting;
  const byMatched = Math.trunc(waitingMatched / all.matchedSize);
  const byUnmatched = Math.trunc(waitingUnmatched / all.unmatchedSize);
  const groups = byMatched < byUnmatched ? byMatched : byUnmatched;
  return { groups, matchedSize: all.matchedSize, unmatchedSize: all.unmatchedSize, unmatchedRemainder: waitingUnmatched - groups * all.unmatchedSize };
}

/**
 * The completion indexes of an Indexed Job: which index a pod runs (its
 * `batch.kubernetes.io/job-completion-index` annotation), and
 * `status.completedIndexes` and `status.failedIndexes`, kube's compressed
 * list of ranges (`1,3-5,7`).
 */
import type { PodObject } from '../objects.js';

/** The annotation and label that carry a pod's completion index. */
export const completionIndexKey = 'batch.kubernetes.io/job-completion-index';

/** A pod's completion index, or undefined when it has none (or an unreadable one). */
export function indexOf(pod: PodObject): number | undefined {
  const raw = pod.metadata.annotations?.[completionIndexKey] ?? pod.metadata.labels?.[completionIndexKey];
  return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : undefined;
}

/** The indexes of `1,3-5,7`, ignoring what is unreadable or not below `completions` (kube's parseIndexesFromString). */
export function parseIndexes(text: string | undefined, completions: number): Set<number> {
  const out = new Set<number>();
  for (const part of (text ?? '').split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) continue;
    const first = Number(m[1]);
    const last = m[2] === undefined ? first : Number(m[2]);
    for (let i = first; i <= last && i < completions; i++) out.add(i);
  }
  return out;
}

/** `1,3-5,7` for a set of indexes (kube's orderedIntervals.String, which writes a run of two as `0,1`). */
export function formatIndexes(indexes: Iterable<number>): string {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    // Two in a row are written as two (`1,2`), three or more as a range (`1-3`).
    parts.push(i === j ? String(sorted[i]) : `${sorted[i]}${j === i + 1 ? ',' : '-'}${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

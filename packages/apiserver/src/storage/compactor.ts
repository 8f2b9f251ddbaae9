/**
 * Timed compaction, as kube-apiserver's etcd compactor (`--etcd-compaction-interval`,
 * default 5m): at each tick it notes the current revision, and compacts
 * through the revision it noted at the tick before, so the history kept
 * covers the last one to two intervals. The first tick compacts nothing (kube
 * does not compact on bootstrap). etcd's Compact(rev) keeps `rev` itself, so
 * a watch from resourceVersion rev-1 is still served and one from before it
 * gets 410 Expired.
 *
 * Without it, a burst of large writes stays in the history (bounded by count
 * and bytes) until later writes push it out, however long ago it was.
 */

/** What the compactor needs of the store. */
export interface Compactable {
  readonly revision: number;
  /** Forgets the history through `rev` (in memory and on disk). */
  compact(rev: number): number;
}

/** kube-apiserver's default --etcd-compaction-interval. */
export const defaultCompactionIntervalMs = 5 * 60_000;

/**
 * Starts compacting `store` every `intervalMs` (0: never, as kube's flag),
 * calling `compacted` after each compaction; returns the function that stops
 * it. The timer does not keep the process alive.
 */
export function startCompactor(store: Compactable, intervalMs: number, compacted?: () => void): () => void {
  if (!(intervalMs > 0)) return () => undefined;
  let noted: number | undefined;
  const timer = setInterval(() => {
    if (noted !== undefined && noted > 1) {
      store.compact(noted - 1);
      compacted?.();
    }
    noted = store.revision;
  }, intervalMs);
  timer.unref?.();
  return () => clearInterval(timer);
}

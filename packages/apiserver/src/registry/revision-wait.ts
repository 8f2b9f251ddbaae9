/**
 * Reads at a resourceVersion the server has not reached yet. kube serves a
 * GET, and a LIST with NotOlderThan semantics, from its watch cache, which
 * waits for the revision to arrive (waitUntilFreshAndBlock) for up to 3 s
 * (its blockTimeout), then answers 504 Timeout "Too large resource
 * version". The wait ends as soon as the revision is there; a read at a
 * revision already reached never waits.
 */
import type { MvccStore } from '../storage/mvcc-store.js';
import type { ListOptions } from './options.js';

/** kube's watch cache blockTimeout. */
export const defaultResourceVersionWaitMs = 3000;

/**
 * Resolves true once the store's revision reaches `rev`, at once when it has;
 * false when `timeoutMs` passed first.
 */
export function waitForRevision(store: MvccStore, rev: number, timeoutMs: number): Promise<boolean> {
  if (rev <= store.revision) return Promise.resolve(true);
  return new Promise((resolve) => {
    let done = false;
    // A watch of every key from the revision on disk: it sees each write once it is there.
    const watch = store.watch('', store.durableRevision, (e) => {
      if (e.rev >= rev) finish(true);
    });
    const timer = setTimeout(() => finish(rev <= store.revision), timeoutMs);
    function finish(reached: boolean): void {
      if (done) return;
      done = true;
      clearTimeout(timer);
      watch.stop();
      resolve(reached);
    }
  });
}

/**
 * Whether kube 1.32 serves this list from its watch cache, with NotOlderThan
 * semantics, so that a resourceVersion beyond the current one waits
 * (cacher's shouldDelegateList): resourceVersionMatch=NotOlderThan, or none
 * with a resourceVersion other than "0" and neither a limit (the legacy exact
 * read, from etcd) nor a continue token. Exact reads go to etcd, and are
 * answered at once.
 */
export function listWaitsForRevision(opts: ListOptions): boolean {
  const rv = opts.resourceVersion;
  if (rv === undefined || rv === '' || rv === '0' || opts.continue) return false;
  if (opts.resourceVersionMatch === 'NotOlderThan') return true;
  return !opts.resourceVersionMatch && !(opts.limit !== undefined && opts.limit > 0);
}

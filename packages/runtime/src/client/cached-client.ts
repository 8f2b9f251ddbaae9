/**
 * The cache-backed half of a client (controller-runtime's delegating
 * client): reads served from the informer cache, and read-your-writes
 * tracking of the client's own writes, so that a cached read after a write
 * shows that write. The HTTP half ({@link Client}) builds URLs and talks to
 * the server; it hands its reads and writes here when it has a cache.
 */
import { isStatus } from './api-error.js';
import { keyFor } from '../cache/keys.js';
import type { CacheReader } from '../cache/reader.js';
import type { Kind } from '../kind.js';
import type { KubeObject, Status } from '@operant/apimachinery';
import { WriteTracker, type PendingWrite, type ReadYourWritesOptions, type WriteOutcome } from './read-your-writes.js';

/**
 * Options of {@link Client.withCache}.
 *
 * @example
 * ```ts
 * const cached = client.withoutCache().withCache(mgr.cache, { readYourWrites: true });
 * ```
 */
export interface CachedClientOptions {
  /**
   * After this client writes an object, a cached read of it waits until the
   * cache shows that write (or a later state), reading live if that takes
   * longer than the timeout (default 5 s). Covers create, update, updateStatus,
   * patch, apply, delete and updateScale (not deleteAllOf). Default off, as in
   * controller-runtime. Make one such client and share it: each registers an
   * event handler on the informers it tracks.
   */
  readYourWrites?: boolean | ReadYourWritesOptions;
}

/** A write as the read-your-writes tracker needs to know it. */
export interface TrackedWrite {
  kind: Kind;
  namespace: string | undefined;
  name: string | undefined;
  /** A dry run changes nothing, so there is nothing to wait for. */
  dryRun: boolean | undefined;
  /** A create: the object did not exist before, so any cached state with the answer's uid is this write or later. */
  created?: boolean;
  /** A delete: the cache must show the object gone (or past the answer's resourceVersion). */
  deleted?: boolean;
}

/** The cache a client reads through, and the tracker of its own writes when read-your-writes is on. */
export class ClientCache {
  readonly reader: CacheReader;
  private readonly tracker: WriteTracker | undefined;

  constructor(reader: CacheReader, options: CachedClientOptions = {}) {
    this.reader = reader;
    const ryw = options.readYourWrites;
    this.tracker = ryw ? new WriteTracker(reader, ryw === true ? {} : ryw) : undefined;
  }

  /**
   * Waits for this client's writes in `scope` to show in the cache; false
   * when they did not in time (the caller reads live then).
   */
  settle(kind: Kind, metadataOnly: boolean, scope: { namespace?: string; name?: string }, signal: AbortSignal | undefined): Promise<boolean> {
    const tracker = this.tracker;
    if (!tracker) return Promise.resolve(true);
    return this.reader.syncedInformer(kind, metadataOnly, signal).then(() => tracker.settle(kind, metadataOnly, scope, signal));
  }

  /** Runs a write, telling the tracker (when there is one) before it is sent and what the server answered after. */
  async track<R extends KubeObject | Status>(write: TrackedWrite, send: () => Promise<R>): Promise<R> {
    const tracker = this.tracker;
    if (!tracker || write.dryRun) return send();
    const pending: PendingWrite = tracker.begin(write.kind, write.namespace, write.name || undefined);
    let result: R;
    try {
      result = await send();
    } catch (e) {
      pending.cancel();
      throw e;
    }
    const outcome = writeOutcome(write, result);
    if (outcome) pending.complete(outcome);
    else pending.cancel();
    return result;
  }
}

/** What the cache must show after a write, from the server's answer. */
function writeOutcome({ kind, namespace, name, created = false, deleted = false }: TrackedWrite, result: KubeObject | Status): WriteOutcome | undefined {
  if (isStatus(result)) {
    return deleted && name ? { type: 'deleted', key: keyFor(kind.namespaced ? namespace : undefined, name) } : undefined;
  }
  const meta = result.metadata;
  const objName = meta?.name ?? name;
  if (!objName) return undefined;
  const key = keyFor(kind.namespaced ? (meta?.namespace ?? namespace) : undefined, objName);
  const resourceVersion = meta?.resourceVersion;
  if (deleted) return { type: 'deleted', key, resourceVersion };
  if (!resourceVersion) return undefined;
  return { type: 'written', key, resourceVersion, uid: meta?.uid, created };
}

/**
 * Read-your-own-writes for a cached client: after the client writes an
 * object, a cached read of it waits (bounded) until the informer has caught
 * up with that write, so the reader never sees an older version than its own.
 *
 * resourceVersions are compared for equality only, never ordered (kube says
 * they are opaque). Instead, before a write is sent, the informers that could
 * answer a later read start recording the resourceVersions they deliver for
 * that key; the write is visible once one of them carries the written
 * resourceVersion (later events cannot overtake it unseen, since recording
 * began before the write existed). A create is visible once the cache holds an
 * object with the created uid; a delete once the cache has dropped the key.
 * An informer created after the write lists after it, so it needs no tracking.
 */
import type { KubeObject } from '@operant/apimachinery';
import type { Informer } from '../cache/informer.js';
import { objectKey, keyFor, splitKey } from '../cache/keys.js';
import { deletedObject } from '../cache/tombstone.js';
import type { CacheReader } from '../cache/reader.js';
import type { Kind } from '../kind.js';

/**
 * Options of read-your-own-writes (see {@link Client.withCache}).
 *
 * @example
 * ```ts
 * const cached = client.withoutCache().withCache(mgr.cache, { readYourWrites: { timeoutMs: 2_000 } });
 * ```
 */
export interface ReadYourWritesOptions {
  /** How long a cached read waits for the cache to show this client's writes before it reads live instead; default 5 s. */
  timeoutMs?: number;
}

/** What the cache must show for a write to be visible. */
export type WriteOutcome =
  /** An object written (created, updated, patched) with this resourceVersion. */
  | { type: 'written'; key: string; resourceVersion: string; uid?: string; created: boolean }
  /** An object deleted: gone, or (finalizers) still present at this resourceVersion. */
  | { type: 'deleted'; key: string; resourceVersion?: string };

/** How long an unseen write is remembered (a read after that trusts the cache again). */
const ticketLifetimeMs = 60_000;

interface Observed {
  resourceVersions: Set<string>;
  deleted: boolean;
}

/** One write, from just before it was sent until the cache shows it. */
class Ticket {
  outcome: WriteOutcome | undefined;
  /** No longer tracked: seen by the cache, failed, or expired. */
  dropped = false;
  /** What each informer delivered for the key since the ticket was registered with it. */
  readonly observed = new Map<Informer<KubeObject>, Observed>();
  readonly waiters = new Set<() => void>();
  expiry: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly resource: string,
    public key: string | undefined,
  ) {}

  wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

/**
 * A write in progress: {@link complete} it with the server's answer, or {@link cancel} it when the write failed.
 *
 * @example
 * ```ts
 * import { ConfigMap } from '@operant/runtime';
 * import { WriteTracker } from './read-your-writes.js';
 *
 * const tracker = new WriteTracker(mgr.cache, {});
 * const live = client.withoutCache();
 * const obj = await live.get(ConfigMap, 'settings', { namespace: 'default' });
 * const pending = tracker.begin(ConfigMap, 'default', 'settings');
 * try {
 *   const cm = await live.update(ConfigMap, obj);
 *   pending.complete({ type: 'written', key: 'default/settings', resourceVersion: cm.metadata.resourceVersion!, created: false });
 * } catch (e) {
 *   pending.cancel();
 *   throw e;
 * }
 * ```
 */
export interface PendingWrite {
  complete(outcome: WriteOutcome): void;
  cancel(): void;
}

/**
 * Tracks one client's writes against a cache reader's informers.
 *
 * @example
 * ```ts
 * import { ConfigMap } from '@operant/runtime';
 * import { WriteTracker } from './read-your-writes.js';
 *
 * const tracker = new WriteTracker(mgr.cache, { timeoutMs: 5_000 });
 * // before a cached read of default/settings:
 * const visible = await tracker.settle(ConfigMap, false, { namespace: 'default', name: 'settings' }, signal);
 * const settings = visible ? await mgr.cache.get(ConfigMap, 'settings', { namespace: 'default' }) : await mgr.apiReader.get(ConfigMap, 'settings', { namespace: 'default' });
 * ```
 */
export class WriteTracker {
  private readonly timeoutMs: number;
  /** Completed and in-flight writes, by resource. */
  private readonly tickets = new Map<string, Set<Ticket>>();
  /** Completed writes by resource and key: a read of one object looks at its own, not at every write of the resource. */
  private readonly completed = new Map<string, Set<Ticket>>();
  /** For each informer we listen to: the tickets registered with it, by key. */
  private readonly routes = new Map<Informer<KubeObject>, Map<string, Set<Ticket>>>();

  constructor(
    private readonly reader: CacheReader,
    options: ReadYourWritesOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 5000;
  }

  /**
   * Call just before sending a write of `kind` (name unknown for a create with
   * generateName): the informers that exist start recording what they deliver for the key.
   */
  begin(kind: Kind, namespace: string | undefined, name: string | undefined): PendingWrite {
    const ticket = new Ticket(resourceOf(kind), name ? keyFor(kind.namespaced ? namespace : undefined, name) : undefined);
    const informers = [this.reader.informers.lookup(kind, {}, false), this.reader.informers.lookup(kind, {}, true)];
    for (const informer of informers) if (informer && ticket.key) this.register(ticket, informer);
    let set = this.tickets.get(ticket.resource);
    if (!set) this.tickets.set(ticket.resource, (set = new Set()));
    set.add(ticket);
    return {
      complete: (outcome) => {
        if (ticket.dropped) return;
        if (ticket.key !== outcome.key) {
          // Unknown before (generateName) or different from what was asked: track the key the server used.
          this.unroute(ticket);
          ticket.observed.clear();
        }
        ticket.key = outcome.key;
        ticket.outcome = outcome;
        const id = completedId(ticket.resource, outcome.key);
        let same = this.completed.get(id);
        if (!same) this.completed.set(id, (same = new Set()));
        same.add(ticket);
        // A create's key is known only now; an informer registered later checks the store, which suffices for creates.
        if (ticket.observed.size === 0) {
          for (const informer of informers) if (informer) this.register(ticket, informer);
        }
        if (ticket.observed.size === 0 || this.visibleEverywhere(ticket)) {
          // No informer existed when the write was sent: any informer lists after it.
          this.drop(ticket);
          return;
        }
        ticket.expiry = setTimeout(() => this.drop(ticket), ticketLifetimeMs);
        ticket.expiry.unref?.();
        ticket.wake();
      },
      cancel: () => this.drop(ticket),
    };
  }

  /**
   * Waits until the informer that answers reads of `kind` shows every
   * completed write of this client in scope (one key, or a namespace, or
   * all); resolves false when that takes longer than the timeout (read live
   * then). Rejects with the signal's reason when it aborts. The informer must have synced.
   */
  async settle(kind: Kind, metadataOnly: boolean, scope: { namespace?: string; name?: string }, signal?: AbortSignal): Promise<boolean> {
    const set = this.tickets.get(resourceOf(kind));
    if (!set || set.size === 0) return true;
    const wantedKey = scope.name !== undefined ? keyFor(kind.namespaced ? scope.namespace : undefined, scope.name) : undefined;
    const candidates = wantedKey !== undefined ? this.completed.get(completedId(resourceOf(kind), wantedKey)) : set;
    if (!candidates) return true;
    const relevant = [...candidates].filter((t) => t.outcome && t.key !== undefined && inScope(t.key, wantedKey, kind.namespaced ? scope.namespace : undefined));
    if (relevant.length === 0) return true;
    const informer = this.reader.informerOf(kind, metadataOnly);
    for (const ticket of relevant) if (!ticket.observed.has(informer)) this.register(ticket, informer);
    const pending = relevant.filter((t) => !this.visibleIn(t, informer));
    if (pending.length === 0) return true;
    signal?.throwIfAborted();
    return new Promise<boolean>((resolve, reject) => {
      const finish = (visible: boolean | Error): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        for (const t of pending) t.waiters.delete(check);
        if (visible instanceof Error) reject(visible);
        else resolve(visible);
      };
      const check = (): void => {
        if (pending.every((t) => t.dropped || this.visibleIn(t, informer))) finish(true);
      };
      const onAbort = (): void => finish(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      const timer = setTimeout(() => finish(false), this.timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      for (const t of pending) t.waiters.add(check);
    });
  }

  /** Number of writes not yet seen by the cache (for tests and debugging). */
  get pendingWrites(): number {
    let n = 0;
    for (const set of this.tickets.values()) n += set.size;
    return n;
  }

  private register(ticket: Ticket, informer: Informer<KubeObject>): void {
    if (ticket.key === undefined || ticket.observed.has(informer)) return;
    ticket.observed.set(informer, { resourceVersions: new Set(), deleted: false });
    let byKey = this.routes.get(informer);
    if (!byKey) {
      this.routes.set(informer, (byKey = new Map()));
      this.listen(informer, byKey);
    }
    let tickets = byKey.get(ticket.key);
    if (!tickets) byKey.set(ticket.key, (tickets = new Set()));
    tickets.add(ticket);
  }

  /** One handler per informer, routing deliveries to the tickets of their key. */
  private listen(informer: Informer<KubeObject>, byKey: Map<string, Set<Ticket>>): void {
    const deliver = (obj: KubeObject, deleted: boolean): void => {
      if (byKey.size === 0) return;
      let key: string;
      try {
        key = objectKey(obj);
      } catch {
        return;
      }
      const tickets = byKey.get(key);
      if (!tickets) return;
      for (const ticket of [...tickets]) {
        const observed = ticket.observed.get(informer);
        if (!observed) continue;
        if (deleted) observed.deleted = true;
        const rv = obj.metadata.resourceVersion;
        if (rv) observed.resourceVersions.add(rv);
        if (ticket.outcome && this.visibleEverywhere(ticket)) this.drop(ticket);
        else ticket.wake();
      }
    };
    informer.addEventHandler({
      add: (obj) => deliver(obj, false),
      update: (_old, obj) => deliver(obj, false),
      delete: (obj) => deliver(deletedObject(obj), true),
    });
  }

  private visibleEverywhere(ticket: Ticket): boolean {
    for (const informer of ticket.observed.keys()) if (!this.visibleIn(ticket, informer)) return false;
    return true;
  }

  /** Whether `informer`'s cache shows the ticket's write (or something that can only come after it). */
  private visibleIn(ticket: Ticket, informer: Informer<KubeObject>): boolean {
    const outcome = ticket.outcome;
    if (!outcome) return false;
    const cached = informer.store.get(outcome.key);
    const observed = ticket.observed.get(informer);
    if (outcome.type === 'written') {
      if (cached?.metadata.resourceVersion === outcome.resourceVersion) return true;
      if (observed?.resourceVersions.has(outcome.resourceVersion)) return true;
      // A created object's first event carries its uid: any cached state with that uid is the create or later.
      return outcome.created && outcome.uid !== undefined && cached?.metadata.uid === outcome.uid;
    }
    if (!cached || observed?.deleted) return true;
    const rv = outcome.resourceVersion;
    return rv !== undefined && (cached.metadata.resourceVersion === rv || observed?.resourceVersions.has(rv) === true);
  }

  private drop(ticket: Ticket): void {
    if (ticket.dropped) return;
    ticket.dropped = true;
    if (ticket.expiry) clearTimeout(ticket.expiry);
    const set = this.tickets.get(ticket.resource);
    set?.delete(ticket);
    if (set?.size === 0) this.tickets.delete(ticket.resource);
    if (ticket.outcome) {
      const id = completedId(ticket.resource, ticket.outcome.key);
      const same = this.completed.get(id);
      same?.delete(ticket);
      if (same?.size === 0) this.completed.delete(id);
    }
    this.unroute(ticket);
    ticket.wake();
  }

  private unroute(ticket: Ticket): void {
    if (ticket.key === undefined) return;
    for (const informer of ticket.observed.keys()) {
      const byKey = this.routes.get(informer);
      const tickets = byKey?.get(ticket.key);
      tickets?.delete(ticket);
      if (tickets?.size === 0) byKey?.delete(ticket.key);
    }
  }
}

function completedId(resource: string, key: string): string {
  return `${resource}\u0000${key}`;
}

function resourceOf(kind: Kind): string {
  return kind.group ? `${kind.plural}.${kind.group}` : kind.plural;
}

/** A ticket's key against a read: that key, or keys in that namespace, or any key. */
function inScope(key: string, wantedKey: string | undefined, namespace: string | undefined): boolean {
  if (wantedKey !== undefined) return key === wantedKey;
  if (namespace === undefined || namespace === '') return true;
  return splitKey(key).namespace === namespace;
}

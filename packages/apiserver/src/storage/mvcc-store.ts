/**
 * The in-memory MVCC store: current objects by key, a global revision, a bounded
 * event history, and watchers. All operations are synchronous, so each one is
 * atomic in Node's single thread. With persistence, writes are group
 * committed: a write is applied in memory at once (so the next write sees it),
 * and `durable(rev)` resolves once the flush that covers it is on disk; callers
 * acknowledge only then, and watchers see only flushed events. The writes made
 * in one turn of the event loop, or while a flush is under way, are written to
 * storage together, in one transaction, when the next flush starts (at the end
 * of the turn, or of the turn that flush ends in); if storage refuses that batch (a
 * full disk), every write of it is taken back from memory, and each one's
 * `durable` rejects with the error (see rollBack). Each revision
 * is encoded once, and its bytes kept for every read (encoded-json.ts).
 * Watchers get the events after the write that made them has returned (in
 * order, in rounds that yield to other work every few milliseconds): the
 * fan-out to thousands of watches never runs inside a write's path, nor holds
 * the server for long.
 */
import type { KubeObject } from '@operant/apimachinery';
import { keepEncoding, utf8Bytes } from './encoded-json.js';
import { EventHistory } from './history.js';
import { SortedKeys, upperBound } from './sorted-keys.js';
import { StoreError, type PersistedWrite, type Persistence, type StorageEvent, type Versioned } from './types.js';

export interface StoreOptions {
  /** How many recent events to keep for watches and snapshots. */
  historyCapacity?: number;
  /** About how many bytes of objects (as JSON) the kept events may hold; default 64 MiB. */
  historyMaxBytes?: number;
  persistence?: Persistence;
}

/** A registered watcher; `stop()` detaches it. */
export interface StoreWatch {
  stop(): void;
}

interface Bucket {
  items: Map<string, Versioned>;
  /** The keys in order: built at the first ordered read, then kept up to date by every write. */
  index?: SortedKeys;
}

/** Objects of a snapshot in key order, read as they are iterated (see MvccStore.range). */
export interface StoreRange {
  /** The revision the objects are read at. */
  revision: number;
  /** The objects in key order. */
  items(): IterableIterator<Versioned>;
  /** How many objects of the range have a key after `key`. */
  countAfter(key: string): number;
}

interface Watcher {
  prefix: string;
  deliver: (event: StorageEvent) => void;
  /** Told when a fan-out round has given it all its events of the round. */
  delivered?: () => void;
  /** Events up to this revision reached it as its replay (or predate it). */
  seen: number;
}

/** The bucket of a key is its first two segments: `/<group>/<resource>/`. */
function bucketOf(key: string): string {
  const second = key.indexOf('/', 1);
  const third = key.indexOf('/', second + 1);
  return key.slice(0, third + 1);
}

/** A write applied in memory, not yet written to storage: what taking it back needs. */
interface UnwrittenWrite extends PersistedWrite {
  /** What the write replaced (undefined for a create). */
  replaced: Versioned | undefined;
  /** The state's revision before it (not the revision before its own: that one may have been refused). */
  before: number;
}

/** Revisions whose writes storage refused after they were applied in memory, and why: they name no state, ever. */
interface RefusedRange {
  from: number;
  to: number;
  error: Error;
}

/** A revision about to be committed: the stamped, frozen value and its JSON, encoded once (as text and as the UTF-8 bytes kept for reads). */
interface Encoded {
  value: KubeObject;
  json: string;
  bytes: Buffer;
}

/**
 * Stamps `value` with the revision, encodes it once and refuses it if etcd
 * would (see storableBytes); only then is it frozen, with its bytes kept for
 * every later read. A refused value is left as it came.
 */
function stampAndEncode(key: string, value: KubeObject, rev: number, limit = maxStoredObjectBytes): Encoded {
  const had = Object.hasOwn(value.metadata, 'resourceVersion');
  const before = value.metadata.resourceVersion;
  value.metadata.resourceVersion = String(rev);
  const json = JSON.stringify(value);
  let bytes: Buffer;
  try {
    bytes = storableBytes(key, json, limit);
  } catch (e) {
    if (had) value.metadata.resourceVersion = before;
    else delete value.metadata.resourceVersion;
    throw e;
  }
  // The registry deletes metadata fields a write must not set (resourceVersion, generation...), which
  // turns the metadata into a hash table (V8's dictionary mode), several times its size: the stored
  // value gets a copy built afresh, with the same fields in the same order.
  value.metadata = { ...value.metadata };
  keepEncoding(Object.freeze(value), bytes);
  return { value, json, bytes };
}

export class MvccStore {
  /** The revision of the state in memory: of its newest write, or of the state a refused batch was taken back to. */
  private rev: number;
  /** The newest revision handed out; the next write gets the one after it (a refused batch's revisions are not handed out again). */
  private issued: number;
  private readonly buckets = new Map<string, Bucket>();
  private readonly history: EventHistory;
  private readonly watchers = new Set<Watcher>();
  /** Committed events not yet delivered to the watchers. */
  private undelivered: StorageEvent[] = [];
  private fanoutScheduled = false;
  private readonly persistence?: Persistence;
  /** Set while a flush is due at the end of this turn of the event loop (see scheduleFlush). */
  private flushScheduled = false;
  private closed = false;
  // ---- group commit (only with persistence)
  /** The newest revision on disk: watchers see no event, and callers acknowledge no write, past it. */
  private synced: number;
  /** Committed events not yet on disk, oldest first. */
  private unsynced: StorageEvent[] = [];
  /** Writes applied in memory but not yet written to storage (the next flush writes them), oldest first. */
  private unwritten: UnwrittenWrite[] = [];
  /** The newest revision written to storage (perhaps not yet flushed to disk). */
  private written: number;
  /** Revision ranges of refused batches (see rollBack), oldest first. */
  private refused: RefusedRange[] = [];
  /** The newest revision a flush was started for, and how many flushes are under way. */
  private syncRequested: number;
  private syncsInFlight = 0;
  private syncWaiters: Array<{ rev: number; resolve: () => void; reject: (e: Error) => void }> = [];
  /** Set when a flush failed: what is in memory may not be on disk, so no write is taken or acknowledged after it. */
  private syncFailure?: Error;

  constructor(options: StoreOptions = {}) {
    this.persistence = options.persistence;
    const bounds = { events: options.historyCapacity ?? 20_000, bytes: options.historyMaxBytes ?? 64 * 1024 * 1024 };
    const loaded = this.persistence?.load(bounds);
    this.rev = loaded?.revision ?? 1;
    this.issued = this.rev;
    this.written = this.rev;
    this.synced = this.rev;
    this.syncRequested = this.rev;
    const oldest = loaded?.events.length ? loaded.events[0].rev - 1 : this.rev;
    this.history = new EventHistory(bounds, oldest);
    for (const v of loaded?.objects ?? []) this.put(v.key, v);
    for (const e of loaded?.events ?? []) this.history.append(e);
  }

  /** The revision of the last commit. */
  get revision(): number {
    return this.rev;
  }

  /** The newest revision on disk (with persistence; else the same as `revision`): what watches and bookmarks may show. */
  get durableRevision(): number {
    return this.synced;
  }

  /**
   * Resolves once revision `rev` (default: the newest write's) is on disk, at
   * once without persistence. A write is acknowledged, and a read that saw it
   * is answered, only then. Rejects if the flush failed, or if storage refused
   * the batch that held that revision's write (then no state has it).
   */
  durable(rev: number = this.issued): Promise<void> {
    if (this.refused.length > 0) {
      const refusal = this.refusalOf(rev);
      if (refusal) return Promise.reject(refusal);
    }
    if (rev <= this.synced) return Promise.resolve();
    if (this.syncFailure) return Promise.reject(this.syncFailure);
    return new Promise((resolve, reject) => this.syncWaiters.push({ rev, resolve, reject }));
  }

  /**
   * Compacts the history through `rev` (default: the current revision), as
   * etcd's compaction (kube-apiserver asks for one every 5 minutes: see
   * compactor.ts): a watch or a paginated list from an older revision then
   * gets 410 Expired, and the stored event log is trimmed as well, at once.
   * Returns that revision. Writes not yet written to storage are not
   * compacted (a refused batch is taken back from the history): the
   * compaction stops before them. When no flush is under way, the writes
   * waiting for the flush at the end of the turn (scheduleFlush) are flushed
   * first: a compaction right after a write covers it, as when each write
   * started its flush at once.
   */
  compact(rev: number = this.rev): number {
    if (this.persistence) this.flush();
    if (rev > this.written) rev = this.written;
    if (rev <= this.history.oldestServable) return rev;
    this.history.compact(rev);
    this.persistence?.compact(rev);
    this.persistence?.trim();
    return rev;
  }

  /** The oldest revision a watch can start from or a snapshot can be read at. */
  get oldestRevision(): number {
    return this.history.oldestServable;
  }

  get(key: string): Versioned | undefined {
    return this.buckets.get(bucketOf(key))?.items.get(key);
  }

  /**
   * Objects whose key starts with `prefix`, sorted by key, as of `atRevision`
   * (default: now). Throws Expired if that revision is no longer retained.
   */
  list(prefix: string, atRevision?: number): { items: Versioned[]; revision: number } {
    if (atRevision === undefined || atRevision >= this.rev) {
      // The common case (admission reads its configurations at every write), without range's iterators.
      const bucket = this.buckets.get(bucketOf(prefix));
      if (!bucket) return { items: [], revision: this.rev };
      return { items: this.keysOf(bucket).withPrefix(prefix).map((k) => bucket.items.get(k)!), revision: this.rev };
    }
    const range = this.range(prefix, atRevision);
    return { items: [...range.items()], revision: range.revision };
  }

  /**
   * Objects whose key starts with `prefix` and comes after `after` (all of
   * them without it), in key order, as of `atRevision` (default: now), read as
   * they are iterated: a page of a paginated list costs its own items, not the
   * whole prefix. An older revision is the current state with the changes
   * after it rolled back, key by key. Iterate it before the next write. Throws
   * Expired if that revision is no longer retained.
   */
  range(prefix: string, atRevision?: number, after?: string): StoreRange {
    const bucket = this.buckets.get(bucketOf(prefix));
    if (!bucket && (atRevision === undefined || atRevision >= this.rev)) return { revision: this.rev, items: () => [][Symbol.iterator](), countAfter: () => 0 };
    const keys = bucket ? this.keysOf(bucket) : new SortedKeys();
    const items = bucket?.items ?? new Map<string, Versioned>();
    const end = prefixEnd(prefix);
    const startAt = after !== undefined && after >= prefix ? keys.seek(after, true) : keys.seek(prefix);
    /** Current keys of the range after `key`. */
    const currentAfter = (key: string): number => keys.countFrom(key >= prefix ? keys.seek(key, true) : keys.seek(prefix)) - keys.countFrom(keys.seek(end));
    function* current(): IterableIterator<string> {
      for (const k of keys.from(startAt)) {
        if (!k.startsWith(prefix)) return;
        yield k;
      }
    }
    if (atRevision === undefined || atRevision >= this.rev) {
      return {
        revision: this.rev,
        *items() {
          for (const k of current()) yield items.get(k)!;
        },
        countAfter: currentAfter,
      };
    }
    this.assertRetained(atRevision);
    // The value each key changed since had at that revision (undefined: it did not exist then). The
    // oldest change after the revision tells it, so the events are read newest first, each overriding.
    const then = new Map<string, Versioned | undefined>();
    for (const e of this.history.afterNewestFirst(atRevision)) {
      if (!e.key.startsWith(prefix)) continue;
      then.set(e.key, e.type === 'ADDED' ? undefined : { key: e.key, rev: Number(e.prev!.metadata.resourceVersion), value: e.prev! });
    }
    const changed = [...then.keys()].sort();
    return {
      revision: atRevision,
      *items() {
        // The current keys and the changed ones, merged in order; a changed key reads as it was then.
        let j = after === undefined ? 0 : upperBound(changed, after);
        for (const k of current()) {
          for (; j < changed.length && changed[j] <= k; j++) {
            const was = then.get(changed[j]);
            if (was) yield was;
          }
          if (!then.has(k)) yield items.get(k)!;
        }
        for (; j < changed.length; j++) {
          const was = then.get(changed[j]);
          if (was) yield was;
        }
      },
      countAfter(key: string): number {
        let n = currentAfter(key);
        for (let j = upperBound(changed, key); j < changed.length; j++) {
          const existedThen = then.get(changed[j]) !== undefined;
          const existsNow = items.has(changed[j]);
          if (existedThen && !existsNow) n++;
          else if (!existedThen && existsNow) n--;
        }
        return n;
      },
    };
  }

  /** Stores a new object; throws KeyExists if the key is taken. */
  create(key: string, value: KubeObject): Versioned {
    if (this.get(key)) throw new StoreError('KeyExists', `key ${key} exists`);
    const rev = this.issued + 1;
    const encoded = stampAndEncode(key, value, rev);
    const stored: Versioned = { key, rev, value: encoded.value };
    this.commit({ type: 'ADDED', key, rev, value: stored.value, size: encoded.json.length }, stored, undefined, encoded.bytes);
    return stored;
  }

  /** Replaces an object if its revision is still `expectedRev`; throws NotFound or Conflict. */
  update(key: string, expectedRev: number, value: KubeObject): Versioned {
    const current = this.get(key);
    if (!current) throw new StoreError('NotFound', `key ${key} not found`);
    if (current.rev !== expectedRev) throw new StoreError('Conflict', `key ${key} is at ${current.rev}, not ${expectedRev}`);
    const rev = this.issued + 1;
    const encoded = stampAndEncode(key, value, rev);
    const stored: Versioned = { key, rev, value: encoded.value };
    this.commit({ type: 'MODIFIED', key, rev, value: stored.value, prev: current.value, size: encoded.json.length }, stored, current, encoded.bytes);
    return stored;
  }

  /** Removes an object (if still at `expectedRev`, when given); returns its final state. */
  delete(key: string, expectedRev?: number): Versioned {
    const current = this.get(key);
    if (!current) throw new StoreError('NotFound', `key ${key} not found`);
    if (expectedRev !== undefined && current.rev !== expectedRev) {
      throw new StoreError('Conflict', `key ${key} is at ${current.rev}, not ${expectedRev}`);
    }
    const rev = this.issued + 1;
    // A deletion is never refused for size (its last state differs from the stored one only in the revision).
    const last = stampAndEncode(key, structuredClone(current.value) as KubeObject, rev, Infinity);
    this.commit({ type: 'DELETED', key, rev, value: last.value, prev: current.value, size: last.json.length }, undefined, current, last.bytes);
    return { key, rev, value: last.value };
  }

  /**
   * Calls `deliver` for every event under `prefix` after revision `fromRev`,
   * first the retained ones, then each new commit as it happens. Throws Expired
   * if `fromRev` is older than the retained history. `delivered` is called
   * after each round of events that gave it some (a watch sends them in one
   * write).
   */
  watch(prefix: string, fromRev: number, deliver: (event: StorageEvent) => void, delivered?: () => void): StoreWatch {
    if (fromRev < this.synced) {
      this.assertRetained(fromRev);
      for (const e of this.history.after(fromRev)) {
        if (e.rev > this.synced) break;
        if (e.key.startsWith(prefix)) deliver(e);
      }
    }
    // The replay read the history, which holds the events still on their way to the watchers too;
    // the events not on disk yet reach it once they are.
    const watcher: Watcher = { prefix, deliver, delivered, seen: Math.max(fromRev, this.synced) };
    this.watchers.add(watcher);
    return { stop: () => this.watchers.delete(watcher) };
  }

  /** Every stored object, of every kind (for controllers that index everything on start). */
  *all(): IterableIterator<Versioned> {
    for (const b of this.buckets.values()) yield* b.items.values();
  }

  /** Number of stored objects (all kinds). */
  get size(): number {
    let n = 0;
    for (const b of this.buckets.values()) n += b.items.size;
    return n;
  }

  close(): void {
    this.closed = true;
    this.watchers.clear();
    this.undelivered = [];
    // The writes still waiting for a flush are written first (or refused, and their waiters told).
    if (this.persistence && !this.syncFailure) this.writeUnwritten();
    this.persistence?.close();
    // Closing flushed the storage: what was waiting for the disk is on it.
    this.synced = Math.max(this.synced, this.written);
    for (const w of this.syncWaiters) {
      if (w.rev <= this.synced) w.resolve();
      else w.reject(this.syncFailure ?? new Error('the store was closed before the write reached the disk'));
    }
    this.syncWaiters = [];
  }

  private assertRetained(rev: number): void {
    const oldest = this.history.oldestServable;
    if (rev < oldest) throw new StoreError('Expired', `too old resource version: ${rev} (${oldest})`, oldest);
  }

  /**
   * Applies a write in memory. `replaced` is what it replaces (for a rollback); `bytes` are the event's
   * value as encoded for its size check (and kept for reads): persistence need not encode it again. With persistence the
   * write is written to storage by a flush, with the other writes of this turn of the event loop, or
   * of the turns until the flush under way ends (scheduleFlush); a refusal of that batch rejects its `durable`.
   */
  private commit(event: StorageEvent, stored: Versioned | undefined, replaced: Versioned | undefined, bytes: Buffer): void {
    if (this.syncFailure) throw this.syncFailure;
    // Nothing would ever write it (close wrote the writes before it).
    if (this.closed && this.persistence) throw new Error('the store is closed');
    const before = this.rev;
    this.rev = this.issued = event.rev;
    if (stored) this.put(event.key, stored);
    else this.remove(event.key);
    if (!this.persistence) {
      this.history.append(event);
      this.synced = this.written = event.rev;
      this.undelivered.push(event);
      this.scheduleFanOut();
      return;
    }
    // Older events are dropped from the history once the write is in storage (writeUnwritten): a refusal then takes it back exactly.
    this.history.push(event);
    this.unsynced.push(event);
    this.unwritten.push({ event, bytes, replaced, before });
    this.scheduleFlush();
  }

  /**
   * Writes the writes applied since the last flush to storage, in one
   * transaction; returns the newest revision written. If storage refuses
   * them, they are taken back (rollBack).
   */
  private writeUnwritten(): number {
    const batch = this.unwritten;
    if (batch.length === 0) return this.written;
    this.unwritten = [];
    try {
      this.persistence!.commit(batch);
    } catch (e) {
      this.rollBack(batch, e instanceof Error ? e : new Error(String(e)));
      return this.written;
    }
    this.written = batch[batch.length - 1]!.event.rev;
    const compacted = this.history.enforceBounds();
    if (compacted !== undefined) this.persistence!.compact(compacted);
    return this.written;
  }

  /**
   * Takes back a batch that storage refused (a full disk): the objects it
   * replaced are put back, its events leave the history and the events on
   * their way to the watchers, and the state's revision is the one before it,
   * so that reads, watches and later writes find the store exactly as it was
   * before the batch. Its revisions are never handed out again, and `durable`
   * rejects for each of them with the error: its writers answer it, and so do
   * the reads that saw any of its writes. No watcher saw them (they see only
   * what is on disk), nor will a restart (storage wrote none of them).
   *
   * The batch is every write not yet written, so no later write was made on
   * top of it; a write that read it in memory before making its own (an
   * admission check, say) may be made after it, as a write may that read a
   * state later deleted.
   */
  private rollBack(batch: UnwrittenWrite[], error: Error): void {
    for (let i = batch.length - 1; i >= 0; i--) {
      const { event, replaced } = batch[i]!;
      if (replaced) this.put(event.key, replaced);
      else this.remove(event.key);
    }
    const from = batch[0]!.event.rev;
    const to = batch[batch.length - 1]!.event.rev;
    this.rev = batch[0]!.before;
    this.history.dropNewerThan(this.rev);
    let keep = this.unsynced.length;
    while (keep > 0 && this.unsynced[keep - 1]!.rev >= from) keep--;
    this.unsynced.length = keep;
    const last = this.refused[this.refused.length - 1];
    if (last && last.to === from - 1 && last.error.message === error.message) last.to = to;
    else this.refused.push({ from, to, error });
    const waiting = this.syncWaiters;
    this.syncWaiters = [];
    for (const w of waiting) {
      if (w.rev >= from) w.reject(error);
      else this.syncWaiters.push(w);
    }
  }

  /** The error that refused the write of revision `rev`, if storage refused it. */
  private refusalOf(rev: number): Error | undefined {
    let lo = 0;
    let hi = this.refused.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.refused[mid]!.to < rev) lo = mid + 1;
      else hi = mid;
    }
    const range = this.refused[lo];
    return range && range.from <= rev ? range.error : undefined;
  }

  /** Queues events for the watchers, delivered on the next turn of the event loop. */
  private publish(events: StorageEvent[]): void {
    for (const e of events) this.undelivered.push(e);
    this.scheduleFanOut();
  }

  private scheduleFanOut(): void {
    if (!this.fanoutScheduled) {
      this.fanoutScheduled = true;
      setImmediate(() => this.fanOut());
    }
  }

  /**
   * Starts a flush at the end of this turn of the event loop (setImmediate runs
   * after the turn's I/O callbacks), not inside the write: the writes of the
   * requests read in the same turn, and, after a flush ends, those read while it
   * was under way, go together in one transaction and one fsync. Started in the
   * write, the turn's first write went alone, each batch paying its
   * transaction, its WAL pages, its fsync and its wake-ups for fewer writes
   * (idle bench, 16 connections: 4.5 creates per fsync against 7.8). A refused
   * batch is reported through `durable`, to each of its writes alike.
   */
  private scheduleFlush(): void {
    if (this.flushScheduled || this.syncFailure) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  /**
   * Group commit: a flush covers every write committed before it started, and
   * the writes that arrive meanwhile are written together by the next, which
   * starts when this one ends (see maxFlushesInFlight).
   */
  private flush(): void {
    if (this.syncFailure || this.syncsInFlight >= maxFlushesInFlight || this.closed) return;
    const through = this.writeUnwritten();
    if (through <= this.syncRequested) return;
    this.syncRequested = through;
    this.syncsInFlight++;
    this.persistence!.sync().then(
      () => {
        this.syncsInFlight--;
        // A later flush may have ended first (or the store closed): then this one adds nothing.
        if (through > this.synced) {
          this.synced = through;
          let n = 0;
          while (n < this.unsynced.length && this.unsynced[n].rev <= through) n++;
          this.publish(this.unsynced.splice(0, n));
          const waiting = this.syncWaiters;
          this.syncWaiters = [];
          for (const w of waiting) {
            if (w.rev <= through) w.resolve();
            else this.syncWaiters.push(w);
          }
        }
        if (this.unwritten.length > 0) this.scheduleFlush();
      },
      (e: unknown) => {
        this.syncsInFlight--;
        if (this.syncFailure) return;
        this.syncFailure = e instanceof Error ? e : new Error(String(e));
        console.error(`storage: ${this.syncFailure.message}; no further write is accepted`);
        for (const w of this.syncWaiters) w.reject(this.syncFailure);
        this.syncWaiters = [];
      },
    );
  }

  /**
   * Delivers the events committed since the last turn to every watcher whose
   * prefix they fall under, each watcher all of them in order. Thousands of
   * watchers are served a slice at a time (fanOutSliceNs), so the requests
   * in between are not held for the whole fan-out; commits made meanwhile
   * wait for the next round, which starts once this one is done.
   */
  private fanOut(): void {
    const events = this.undelivered;
    this.undelivered = [];
    const watchers = [...this.watchers];
    let next = 0;
    const slice = (): void => {
      // process.hrtime, not performance.now: the global `performance` loads eight of Node's modules at
      // its first use, which the first writes of every start would pay.
      const until = process.hrtime.bigint() + fanOutSliceNs;
      // The clock is wall time: a process the machine set aside mid-slice finds it spent without
      // having done the work. A slice therefore serves at least fanOutSliceMinWatchers before it
      // may end, so a round to fewer watchers is never split behind the requests that came in.
      const checkFrom = next + fanOutSliceMinWatchers;
      while (next < watchers.length) {
        const w = watchers[next++]!;
        if (this.watchers.has(w)) this.deliverAll(w, events);
        if (next >= checkFrom && next < watchers.length && process.hrtime.bigint() >= until) {
          setImmediate(slice);
          return;
        }
      }
      this.fanoutScheduled = false;
      if (this.undelivered.length) this.scheduleFanOut();
    };
    slice();
  }

  private deliverAll(w: Watcher, events: StorageEvent[]): void {
    let some = false;
    try {
      for (const event of events) {
        if (event.rev <= w.seen || !event.key.startsWith(w.prefix)) continue;
        some = true;
        w.deliver(event);
      }
      if (some) w.delivered?.();
    } catch (e) {
      // The write is committed; one failing watcher must not cost the others their event.
      console.error(`watcher on ${w.prefix} failed: ${(e as Error).stack ?? String(e)}`);
      this.watchers.delete(w);
    }
  }

  private put(key: string, stored: Versioned): void {
    const name = bucketOf(key);
    let bucket = this.buckets.get(name);
    if (!bucket) this.buckets.set(name, (bucket = { items: new Map() }));
    if (!bucket.items.has(key)) bucket.index?.add(key);
    bucket.items.set(key, stored);
  }

  private remove(key: string): void {
    const bucket = this.buckets.get(bucketOf(key));
    if (bucket?.items.delete(key)) bucket.index?.delete(key);
  }

  /** The bucket's key index, sorted once at its first ordered read (a restart loads every object unordered). */
  private keysOf(bucket: Bucket): SortedKeys {
    bucket.index ??= SortedKeys.fromSorted([...bucket.items.keys()].sort());
    return bucket.index;
  }
}

/** The first string after every string that starts with `prefix`. */
function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

/** How long one turn of the event loop may spend delivering events to watchers before it lets other work in (5 ms). */
const fanOutSliceNs = 5_000_000n;

/** How many watchers a fan-out slice serves before it looks at its clock (the whole round, below that many). */
export const fanOutSliceMinWatchers = 256;

/**
 * How many flushes (fsyncs) may be under way at once: one, as etcd's backend
 * commits one batch at a time. Two let a write that arrives during a flush
 * start its own at once, but then batches are half as large: each costs its
 * transaction, its WAL pages (the log's last page written again), its fsync
 * and its wake-ups. Idle bench, 16 connections: one made SQLite creates
 * 6,200/s against 4,800-5,200/s (CPU per create 165 against 194-206 us); at 2
 * and 4 connections the rates were the same within noise.
 */
const maxFlushesInFlight = 1;

/** etcd's default --max-request-bytes: no write may carry more. */
export const maxStoredObjectBytes = 1.5 * 1024 * 1024;

/**
 * The object's JSON as UTF-8, refusing one too large for etcd as etcd refuses
 * the write ("etcdserver: request is too large"): its JSON and key over
 * 1.5 MiB. (kube stores built-ins as protobuf, a little smaller than their
 * JSON; custom resources as JSON.)
 */
function storableBytes(key: string, json: string, limit: number): Buffer {
  // Each UTF-16 unit is at most 3 UTF-8 bytes: a text that cannot be too large is not counted first.
  if (json.length * 3 + key.length <= limit) return utf8Bytes(json);
  const size = Buffer.byteLength(json, 'utf8');
  if (size + key.length > limit) throw new StoreError('TooLarge', 'etcdserver: request is too large');
  return utf8Bytes(json, size);
}

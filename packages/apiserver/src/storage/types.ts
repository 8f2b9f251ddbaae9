/**
 * The storage contract: a key-value store with one global, ever-increasing
 * revision (kube's resourceVersion), as etcd offers it to kube-apiserver.
 */
import type { KubeObject } from '@operant/apimachinery';

/** A stored object and the revision of its last change. Values are never mutated once stored. */
export interface Versioned {
  key: string;
  /** The revision that wrote this value (its metadata.resourceVersion). */
  rev: number;
  value: KubeObject;
  /**
   * Set while the value has not been parsed yet (one loaded from disk is parsed when `value` is first read):
   * its stored JSON, for a reader that needs only a few of its fields, or its bytes, and can leave it unparsed.
   */
  readonly unparsed?: UnparsedValue;
}

/** The stored JSON of a value not parsed yet: what the store encoded when it wrote that revision. */
export interface UnparsedValue {
  /** The JSON text. */
  jsonText(): string;
  /** The same as UTF-8 bytes, made once and kept (they become the value's kept encoding when it is parsed). */
  jsonBytes(): Buffer;
}

export type StorageEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One committed change. For DELETED, `value` is the last state with the deletion revision as its resourceVersion. */
export interface StorageEvent {
  type: StorageEventType;
  key: string;
  rev: number;
  value: KubeObject;
  /** The value before this change (absent for ADDED). */
  prev?: KubeObject;
  /** The size of `value` as JSON, in UTF-16 units (what the history is bounded by). */
  size?: number;
}

/** How much event history is kept: at most `events` events and about `bytes` of their objects as JSON. */
export interface HistoryBounds {
  events: number;
  bytes: number;
}

export type StoreErrorCode = 'KeyExists' | 'NotFound' | 'Conflict' | 'Expired' | 'TooLarge' | 'NoSpace';

/** etcd's answer to a write while its NOSPACE alarm is raised (rpctypes.ErrGRPCNoSpace), which kube-apiserver passes on as a 500. */
export const noSpaceMessage = 'etcdserver: mvcc: database space exceeded';

/** A storage-level failure; the registry turns it into a kube Status. */
export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    /** For Expired: the oldest revision still available. */
    readonly oldestRevision?: number,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

/** A write for persistence to store: the event, and its value as the store encoded it (JSON, as UTF-8: the bytes it keeps for reads). */
export interface PersistedWrite {
  event: StorageEvent;
  bytes: Buffer;
}

/**
 * Durable backing for the in-memory store, with group commit: `commit` writes
 * a batch of events at once (all of it, or, when it throws, none of it), and
 * `sync` makes every batch committed before it durable, so that one flush to
 * disk covers many writes. The store acknowledges a write, and shows it to
 * watchers, only after the `sync` that covers it has resolved. The state is
 * read back on start.
 */
export interface Persistence {
  /**
   * The stored objects, and the newest events within `bounds` (oldest first): a restart reads no more history than is kept.
   * Values come frozen (or frozen when first read: they may be parsed lazily).
   */
  load(bounds: HistoryBounds): { revision: number; objects: Versioned[]; events: StorageEvent[] };
  /**
   * Writes the events, oldest first, in one transaction: all of them or, when
   * it throws, none of them. Throws StoreError NoSpace when the disk (or the
   * database's size limit) is full.
   */
  commit(writes: readonly PersistedWrite[]): void;
  /** Resolves once every commit made before the call is on disk; rejects if the flush failed. */
  sync(): Promise<void>;
  /** Called when the in-memory history drops events older than `rev`; may trim later, and never throws. */
  compact(rev: number): void;
  /** Trims the log through the revision compact() allowed, now rather than in a later batch (a timed compaction); never throws. */
  trim(): void;
  close(): void;
}

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

export type StoreErrorCode = 'KeyExists' | 'NotFound' | 'Conflict' | 'Expired' | 'TooLarge';

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

/**
 * Durable backing for the in-memory store: every commit is written (and synced)
 * before the store acknowledges it, and the state is read back on start.
 */
export interface Persistence {
  /** The stored objects, and the newest events within `bounds` (oldest first): a restart reads no more history than is kept. */
  load(bounds: HistoryBounds): { revision: number; objects: Versioned[]; events: StorageEvent[] };
  /** Must be durable when it returns. */
  commit(event: StorageEvent): void;
  /** Called when the in-memory history drops events older than `rev`. */
  compact(rev: number): void;
  close(): void;
}

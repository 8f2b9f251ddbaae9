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

/** The JSON text of an event's objects, as the store already encoded them. */
export interface EncodedEvent {
  /** `JSON.stringify(event.value)`. */
  value: string;
  /** `JSON.stringify(event.prev)`, when the event has a previous value (made when read). */
  readonly prev?: string;
}

/**
 * Durable backing for the in-memory store: every commit is written (and synced)
 * before the store acknowledges it, and the state is read back on start.
 */
export interface Persistence {
  /** The stored objects, and the newest events within `bounds` (oldest first): a restart reads no more history than is kept. */
  load(bounds: HistoryBounds): { revision: number; objects: Versioned[]; events: StorageEvent[] };
  /**
   * Must be durable when it returns. `encoded` holds the event's objects as JSON
   * text, made once by the store: an implementation may write it as it is
   * instead of encoding the objects again.
   */
  commit(event: StorageEvent, encoded?: EncodedEvent): void;
  /** Called when the in-memory history drops events older than `rev`. */
  compact(rev: number): void;
  close(): void;
}

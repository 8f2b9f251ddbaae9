/**
 * A bounded log of recent events, so watches can start from a past revision and
 * paginated lists can read a consistent snapshot. Older events are dropped; a
 * request that needs them gets 410 Expired, as from etcd after compaction.
 * Bounded by count and by the size of the objects the events hold, so a few
 * large objects updated often cannot fill the memory (the newest event is
 * always kept).
 */
import type { HistoryBounds, StorageEvent } from './types.js';

export class EventHistory {
  private events: StorageEvent[] = [];
  private start = 0;
  /** Revisions at or below this are no longer fully described by the log. */
  private compactedThrough: number;
  /** The sizes of the events kept, summed. */
  private bytes = 0;

  constructor(
    private readonly bounds: HistoryBounds,
    initialRevision: number,
  ) {
    this.compactedThrough = initialRevision;
  }

  /** The oldest revision from which a watch or snapshot can still be served. */
  get oldestServable(): number {
    return this.compactedThrough;
  }

  get size(): number {
    return this.events.length - this.start;
  }

  /** Appends an event; returns the revision through which history was compacted, if it was. */
  append(event: StorageEvent): number | undefined {
    this.push(event);
    return this.enforceBounds();
  }

  /**
   * Appends an event without dropping older ones yet (see enforceBounds): the
   * store's writes not yet on disk can then be taken back (dropNewerThan) and
   * leave the history as it was.
   */
  push(event: StorageEvent): void {
    this.events.push(event);
    this.bytes += event.size ?? 0;
  }

  /** Drops the oldest events while over the bounds (the newest is always kept); returns the revision through which history was compacted, if it was. */
  enforceBounds(): number | undefined {
    if (this.size <= this.bounds.events && this.bytes <= this.bounds.bytes) return undefined;
    while (this.size > 1 && (this.size > this.bounds.events || this.bytes > this.bounds.bytes)) {
      const dropped = this.events[this.start]!;
      this.events[this.start] = undefined as never;
      this.start++;
      this.bytes -= dropped.size ?? 0;
      this.compactedThrough = dropped.rev;
    }
    if (this.start > 1024 && this.start * 2 > this.events.length) {
      this.events = this.events.slice(this.start);
      this.start = 0;
    }
    return this.compactedThrough;
  }

  /** Takes back the events pushed after revision `rev` (newest first), which enforceBounds has not seen since. */
  dropNewerThan(rev: number): void {
    while (this.events.length > this.start && this.events[this.events.length - 1]!.rev > rev) {
      this.bytes -= this.events.pop()!.size ?? 0;
    }
  }

  /**
   * Forgets every event through `rev`, as etcd's compaction does: watches and
   * snapshots from before it get 410 Expired; open watches go on.
   */
  compact(rev: number): void {
    while (this.size > 0 && this.events[this.start]!.rev <= rev) {
      this.bytes -= this.events[this.start]!.size ?? 0;
      this.events[this.start] = undefined as never;
      this.start++;
    }
    this.compactedThrough = Math.max(this.compactedThrough, rev);
    this.events = this.events.slice(this.start);
    this.start = 0;
  }

  /** Events with revision greater than `rev`, oldest first. */
  *after(rev: number): IterableIterator<StorageEvent> {
    let lo = this.start;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.events[mid].rev <= rev) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.events.length; i++) yield this.events[i];
  }

  /** Events with revision greater than `rev`, newest first (for rolling a snapshot back). */
  *afterNewestFirst(rev: number): IterableIterator<StorageEvent> {
    for (let i = this.events.length - 1; i >= this.start && this.events[i].rev > rev; i--) yield this.events[i];
  }
}

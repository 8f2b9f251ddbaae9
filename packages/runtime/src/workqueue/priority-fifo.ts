/**
 * The order in which waiting keys are handed out: higher priority first, FIFO
 * within a priority, each key at most once. Internal to the queue.
 *
 * Priorities are few (low, normal, high and a handful of custom ones), so each
 * gets its own FIFO and a key's priority can be raised without searching: the
 * old entry is marked stale and skipped when it reaches the front.
 */

interface Entry<K> {
  readonly key: K;
  readonly priority: number;
  live: boolean;
}

/** An array-backed FIFO with O(1) amortised shift. */
class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.head++;
    // Compact now and then so the consumed prefix does not pin memory.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}

interface Bucket<K> {
  readonly fifo: Fifo<Entry<K>>;
  live: number;
}

export class PriorityFifo<K> {
  private readonly entries = new Map<K, Entry<K>>();
  private readonly buckets = new Map<number, Bucket<K>>();
  /** Priorities that have live entries, highest first. */
  private readonly order: number[] = [];

  get size(): number {
    return this.entries.size;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /**
   * Queues `key` at `priority`. A key already waiting keeps its place unless
   * the new priority is higher, in which case it moves to the back of that
   * priority's line (as controller-runtime's priority queue takes the max).
   */
  push(key: K, priority: number): void {
    const existing = this.entries.get(key);
    if (existing) {
      if (priority <= existing.priority) return;
      existing.live = false;
      this.release(existing.priority);
    }
    const entry: Entry<K> = { key, priority, live: true };
    this.entries.set(key, entry);
    this.bucket(priority).fifo.push(entry);
  }

  /** Removes and returns the next key, or undefined when empty. */
  pop(): K | undefined {
    const top = this.order[0];
    if (top === undefined) return undefined;
    const bucket = this.buckets.get(top)!;
    let entry = bucket.fifo.shift();
    while (entry && !entry.live) entry = bucket.fifo.shift();
    // A bucket is in `order` only while it has a live entry.
    const found = entry!;
    found.live = false;
    this.entries.delete(found.key);
    this.release(top);
    return found.key;
  }

  private bucket(priority: number): Bucket<K> {
    let bucket = this.buckets.get(priority);
    if (!bucket) {
      bucket = { fifo: new Fifo(), live: 0 };
      this.buckets.set(priority, bucket);
      let i = 0;
      while (i < this.order.length && this.order[i]! > priority) i++;
      this.order.splice(i, 0, priority);
    }
    bucket.live++;
    return bucket;
  }

  /** One live entry of `priority` left; drops the bucket (and its stale entries) when none remain. */
  private release(priority: number): void {
    const bucket = this.buckets.get(priority)!;
    if (--bucket.live > 0) return;
    this.buckets.delete(priority);
    this.order.splice(this.order.indexOf(priority), 1);
  }
}

/**
 * Keys waiting for their time to be added to a queue: a binary min-heap on the
 * time they are due, with an index by key so that adding a key again can only
 * bring it forward. Internal to the delaying queue.
 */

export interface Delayed<K> {
  readonly key: K;
  readyAt: number;
  priority: number;
  /** Ties on readyAt go in insertion order, so equal delays stay FIFO. */
  readonly seq: number;
  index: number;
}

export class DelayHeap<K> {
  private readonly heap: Delayed<K>[] = [];
  private readonly byKey = new Map<K, Delayed<K>>();
  private seq = 0;

  get size(): number {
    return this.heap.length;
  }

  /**
   * Schedules `key` for `readyAt`. A key already waiting keeps the earlier of
   * the two times and the higher of the two priorities.
   */
  insert(key: K, readyAt: number, priority: number): void {
    const existing = this.byKey.get(key);
    if (existing) {
      existing.priority = Math.max(existing.priority, priority);
      if (readyAt < existing.readyAt) {
        existing.readyAt = readyAt;
        this.up(existing.index);
      }
      return;
    }
    const item: Delayed<K> = { key, readyAt, priority, seq: this.seq++, index: this.heap.length };
    this.heap.push(item);
    this.byKey.set(key, item);
    this.up(item.index);
  }

  peek(): Delayed<K> | undefined {
    return this.heap[0];
  }

  pop(): Delayed<K> | undefined {
    const top = this.heap[0];
    if (!top) return undefined;
    const last = this.heap.pop()!;
    if (last !== top) {
      this.heap[0] = last;
      last.index = 0;
      this.down(0);
    }
    this.byKey.delete(top.key);
    return top;
  }

  clear(): void {
    this.heap.length = 0;
    this.byKey.clear();
  }

  private less(a: Delayed<K>, b: Delayed<K>): boolean {
    return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
  }

  private swap(i: number, j: number): void {
    const a = this.heap[i]!;
    const b = this.heap[j]!;
    this.heap[i] = b;
    this.heap[j] = a;
    a.index = j;
    b.index = i;
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(this.heap[i]!, this.heap[parent]!)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const n = this.heap.length;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < n && this.less(this.heap[left]!, this.heap[smallest]!)) smallest = left;
      if (right < n && this.less(this.heap[right]!, this.heap[smallest]!)) smallest = right;
      if (smallest === i) return;
      this.swap(i, smallest);
      i = smallest;
    }
  }
}

/**
 * A work queue that can add a key later (`requeueAfter`, backoff). Delayed keys
 * wait in a min-heap on their due time; one timer is armed for the earliest,
 * so a thousand delayed keys cost one timer, not a thousand.
 */
import type { Timer } from './clock.js';
import { DelayHeap } from './delay-heap.js';
import { checkPriority, WorkQueue, type AddOptions } from './queue.js';

/** setTimeout overflows past 2^31-1 ms (~24.8 days) and fires at once; longer waits re-arm. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A {@link WorkQueue} with `addAfter`.
 *
 * @example
 * ```ts
 * import { DelayingQueue } from '@operant/runtime/workqueue';
 *
 * const queue = new DelayingQueue();
 * queue.addAfter('default/web', 30_000); // reconcile again in 30 s
 * queue.addAfter('default/web', 5_000);  // the earlier time wins: 5 s
 * const { key } = await queue.get();
 * ```
 */
export class DelayingQueue<K = string> extends WorkQueue<K> {
  private readonly waiting = new DelayHeap<K>();
  private timer: Timer | undefined;
  private timerAt = Infinity;

  /**
   * Adds `key` once `delayMs` milliseconds have passed (at once if `delayMs <= 0`).
   * A key already waiting keeps the earlier due time and the higher priority.
   * Ignored once the queue is shutting down.
   */
  addAfter(key: K, delayMs: number, options?: AddOptions): void {
    if (this.shuttingDown()) return;
    if (Number.isNaN(delayMs)) throw new RangeError('work queue delay must be a number, got NaN');
    // Checked now: a bad priority must fail the caller, not a timer callback later.
    const priority = checkPriority(options?.priority);
    this.metrics.retried();
    if (delayMs <= 0) {
      this.add(key, { priority });
      return;
    }
    this.waiting.insert(key, this.clock.now() + delayMs, priority);
    this.arm();
  }

  protected override stop(): void {
    super.stop();
    this.timer?.cancel();
    this.timer = undefined;
    this.timerAt = Infinity;
    this.waiting.clear();
  }

  /** Keeps exactly one timer, set for the earliest waiting key. */
  private arm(): void {
    const next = this.waiting.peek();
    if (!next) return;
    if (this.timer && this.timerAt <= next.readyAt) return;
    this.timer?.cancel();
    const now = this.clock.now();
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, Math.ceil(next.readyAt - now)));
    this.timerAt = now + delay;
    this.timer = this.clock.setTimer(() => this.fire(), delay);
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = this.clock.now();
    for (let next = this.waiting.peek(); next && next.readyAt <= now; next = this.waiting.peek()) {
      this.waiting.pop();
      this.add(next.key, { priority: next.priority });
    }
    this.arm();
  }
}

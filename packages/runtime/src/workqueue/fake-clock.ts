import type { Clock, Timer } from './clock.js';

interface PendingTimer {
  at: number;
  seq: number;
  callback: () => void;
}

/**
 * A manually advanced {@link Clock} for tests: time stands still until
 * `advance` is called, which runs due timers in time order.
 *
 * @example
 * ```ts
 * import { DelayingQueue } from '@operant/runtime/workqueue';
 * import { FakeClock } from '@operant/runtime/testing';
 *
 * const clock = new FakeClock();
 * const queue = new DelayingQueue({ clock });
 * queue.addAfter('ns/a', 1000);
 * clock.advance(1000);
 * const { key } = await queue.get(); // 'ns/a'
 * ```
 */
export class FakeClock implements Clock {
  private current: number;
  private seq = 0;
  private readonly timers = new Set<PendingTimer>();

  constructor(start = 0) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimer(callback: () => void, delayMs: number): Timer {
    const timer: PendingTimer = { at: this.current + Math.max(0, delayMs), seq: this.seq++, callback };
    this.timers.add(timer);
    return { cancel: () => this.timers.delete(timer) };
  }

  /** Moves time forward by `ms`, running every timer that falls due on the way, in order. */
  advance(ms: number): void {
    const target = this.current + ms;
    for (let next = this.nextDue(target); next; next = this.nextDue(target)) {
      this.timers.delete(next);
      this.current = next.at;
      next.callback();
    }
    this.current = target;
  }

  /** How many timers are scheduled and not yet run or cancelled. */
  pendingTimers(): number {
    return this.timers.size;
  }

  private nextDue(limit: number): PendingTimer | undefined {
    let best: PendingTimer | undefined;
    for (const t of this.timers) {
      if (t.at > limit) continue;
      if (!best || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    }
    return best;
  }
}

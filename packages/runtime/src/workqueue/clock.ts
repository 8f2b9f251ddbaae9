/**
 * Time as the work queues see it. Queues and rate limiters take a Clock so that
 * tests can drive delays deterministically (see {@link FakeClock}) instead of sleeping.
 */

/**
 * A scheduled callback that can be cancelled, as {@link Clock.setTimer} returns it.
 *
 * @example
 * ```ts
 * import { type Timer } from '@operant/runtime';
 * import { realClock } from '@operant/runtime/workqueue';
 *
 * const timer: Timer = realClock.setTimer(() => console.log('timed out'), 5_000);
 * timer.cancel(); // done in time: the callback never runs
 * ```
 */
export interface Timer {
  /** Cancels the callback; a no-op once it has run. */
  cancel(): void;
}

/**
 * Options for {@link Clock.setTimer}.
 *
 * @example
 * ```ts
 * import { realClock } from '@operant/runtime/workqueue';
 *
 * realClock.setTimer(() => console.log('tick'), 15_000, { background: true }); // lets the process exit
 * ```
 */
export interface TimerOptions {
  /** A background timer must not keep the process alive (e.g. a metrics ticker). */
  background?: boolean;
}

/**
 * A monotonic millisecond clock with one-shot timers.
 *
 * @example
 * ```ts
 * import { type Clock } from '@operant/runtime';
 * import { realClock } from '@operant/runtime/workqueue';
 *
 * const clock: Clock = realClock;
 * const start = clock.now();
 * const timer = clock.setTimer(() => console.log(clock.now() - start), 100);
 * timer.cancel();
 * ```
 */
export interface Clock {
  /** Milliseconds from an arbitrary origin; never goes backwards. */
  now(): number;
  /** Calls `callback` once, `delayMs` milliseconds from now. */
  setTimer(callback: () => void, delayMs: number, options?: TimerOptions): Timer;
}

/**
 * The process clock: `performance.now()` (monotonic, unaffected by wall-clock
 * changes) and Node's timers.
 *
 * @example
 * ```ts
 * import { DelayingQueue, realClock } from '@operant/runtime/workqueue';
 *
 * const queue = new DelayingQueue({ clock: realClock });
 * ```
 */
export const realClock: Clock = {
  now: () => performance.now(),
  setTimer(callback, delayMs, options) {
    const handle = setTimeout(callback, delayMs);
    if (options?.background) handle.unref();
    return { cancel: () => clearTimeout(handle) };
  },
};

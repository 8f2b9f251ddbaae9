/**
 * Cluster time. Everything time-driven in the simulated cluster (readiness
 * delays, minReadySeconds, graceful termination, heartbeats, progress
 * deadlines) reads one clock, whose `now()` is wall time in epoch
 * milliseconds, and schedules on its timers; the controllers' work queues use
 * it too, so a `requeueAfter` is in cluster time. Tests pass an accelerated
 * clock so that a 30 s grace period takes 30 ms.
 */
import { type Clock } from '@operant/runtime';
import { realClock } from '@operant/runtime/workqueue';

/**
 * The wall clock: `Date.now()` and Node's timers.
 *
 * @example
 * ```ts
 * import { wallClock } from '@operant/controllers';
 *
 * new Date(wallClock.now()).toISOString(); // now
 * ```
 */
export const wallClock: Clock = {
  now: () => Date.now(),
  setTimer: (callback, delayMs, options) => realClock.setTimer(callback, delayMs, options),
};

/**
 * A clock that runs `factor` times faster than the wall clock, starting at
 * `start` (default now): its timers fire `factor` times sooner, and its
 * timestamps advance `factor` times faster. The cluster's timestamps then run
 * ahead of the API server's (creationTimestamp), which tests do not mind.
 *
 * @example
 * ```ts
 * import { acceleratedClock, startSimulatedCluster } from '@operant/controllers';
 *
 * // A readinessProbe's initialDelaySeconds of 10 passes in 10 ms.
 * const cluster = await startSimulatedCluster({ kubeconfig: { path: '.operant/kubeconfig' }, nodes: 3, clock: acceleratedClock(1000) });
 * ```
 */
export function acceleratedClock(factor: number, start = Date.now()): Clock {
  if (!(factor > 0) || !Number.isFinite(factor)) throw new RangeError(`an accelerated clock needs a positive factor, got ${factor}`);
  const origin = performance.now();
  return {
    now: () => start + (performance.now() - origin) * factor,
    setTimer: (callback, delayMs, options) => realClock.setTimer(callback, delayMs / factor, options),
  };
}

/**
 * An accelerated clock that other processes can share: cluster time is
 * `anchor + (wall - anchor) * factor`, so every process given the same
 * anchor and factor reads the same cluster time (a simulated cluster and
 * simulated nodes run in a process of their own, say), whenever it started.
 *
 * @example
 * ```ts
 * import { acceleratedClockSince } from '@operant/controllers';
 *
 * const anchor = Date.now(); // passed to every process, e.g. `operant nodes --time-anchor <anchor>`
 * const clock = acceleratedClockSince(anchor, 100);
 * ```
 */
export function acceleratedClockSince(anchor: number, factor: number): Clock {
  if (!(factor > 0) || !Number.isFinite(factor)) throw new RangeError(`an accelerated clock needs a positive factor, got ${factor}`);
  if (!Number.isFinite(anchor)) throw new RangeError(`an accelerated clock needs an anchor in epoch milliseconds, got ${anchor}`);
  return {
    now: () => anchor + (Date.now() - anchor) * factor,
    setTimer: (callback, delayMs, options) => realClock.setTimer(callback, delayMs / factor, options),
  };
}

/** RFC 3339 with second precision, as metav1.Time serializes: `2024-05-01T10:00:00Z`. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** RFC 3339 with microseconds, as metav1.MicroTime serializes (Lease times): `2024-05-01T10:00:00.123000Z`. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Epoch milliseconds of a timestamp, or undefined when absent or unreadable. */
export function timeOf(stamp: string | undefined | null): number | undefined {
  if (!stamp) return undefined;
  const ms = Date.parse(stamp);
  return Number.isNaN(ms) ? undefined : ms;
}

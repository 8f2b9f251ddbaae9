/**
 * The hooks a reflector reports through, so that a Prometheus module can expose
 * them (e.g. `informer_errors_total{name,phase,reason}` and
 * `informer_last_sync_timestamp_seconds{name}`). `name` is the informer's name.
 */

/**
 * Which request failed.
 *
 * @example
 * ```ts
 * import { type ReflectorMetricsProvider, type ReflectorPhase } from '@operant/runtime';
 * import { noopReflectorMetricsProvider } from '@operant/runtime/cache';
 *
 * const metrics: ReflectorMetricsProvider = {
 *   ...noopReflectorMetricsProvider,
 *   errored: (name: string, phase: ReflectorPhase, reason: string) => console.warn(`${name}: ${phase} failed: ${reason}`),
 * };
 * ```
 */
export type ReflectorPhase = 'list' | 'watch';

/**
 * Receives a reflector's measurements.
 *
 * @example
 * ```ts
 * import { Pod, type ReflectorMetricsProvider } from '@operant/runtime';
 * import { Informer, noopReflectorMetricsProvider } from '@operant/runtime/cache';
 *
 * const errors = new Map<string, number>();
 * const metrics: ReflectorMetricsProvider = {
 *   ...noopReflectorMetricsProvider,
 *   errored: (name, phase, reason) => errors.set(`${name} ${phase} ${reason}`, (errors.get(`${name} ${phase} ${reason}`) ?? 0) + 1),
 * };
 * new Informer(client.listerWatcher(Pod), { name: 'pods', metrics });
 * ```
 */
export interface ReflectorMetricsProvider {
  /**
   * Errors counter: a list or watch failed. `reason` is the Status reason when the
   * server gave one (`Expired` for a 410, `Forbidden`, ...), else the transport
   * error's code (`ECONNREFUSED`, ...), `WatchStalled`, or `Error`.
   */
  errored(name: string, phase: ReflectorPhase, reason: string): void;
  /**
   * Gauge: wall-clock time (seconds since the epoch) at which the cache was last
   * known to be in sync: after each list, and on each watch event or bookmark.
   */
  synced(name: string, epochSeconds: number): void;
  /** A list completed (the initial one and every relist), with its size and duration. */
  listed(name: string, items: number, seconds: number): void;
  /** Counter: a watch request was started (resumptions included). */
  watchStarted(name: string): void;
}

const noop = (): void => {};

/**
 * Records nothing.
 *
 * @example
 * ```ts
 * import { Pod } from '@operant/runtime';
 * import { Informer, noopReflectorMetricsProvider } from '@operant/runtime/cache';
 *
 * new Informer(client.listerWatcher(Pod), { metrics: noopReflectorMetricsProvider });
 * ```
 */
export const noopReflectorMetricsProvider: ReflectorMetricsProvider = Object.freeze({
  errored: noop,
  synced: noop,
  listed: noop,
  watchStarted: noop,
});

/**
 * The hooks a work queue reports through. Each callback carries the meaning of
 * one of controller-runtime's workqueue metrics, so a Prometheus module can
 * implement this interface and existing dashboards keep working. `queue` is the
 * queue's name (controller-runtime uses the controller name for both its
 * `name` and `controller` labels).
 */

/**
 * Receives a work queue's measurements. Times are in seconds, as Prometheus expects.
 *
 * @example
 * ```ts
 * import { type QueueMetricsProvider } from '@operant/runtime';
 * import { noopQueueMetricsProvider, WorkQueue } from '@operant/runtime/workqueue';
 *
 * const adds = new Map<string, number>();
 * const metrics: QueueMetricsProvider = {
 *   ...noopQueueMetricsProvider,
 *   added: (queue) => adds.set(queue, (adds.get(queue) ?? 0) + 1),
 * };
 * const queue = new WorkQueue({ name: 'sidecarset', metricsProvider: metrics });
 * ```
 */
export interface QueueMetricsProvider {
  /** `workqueue_depth` (gauge): keys added and not yet handed to a worker. */
  depth(queue: string, depth: number): void;
  /** `workqueue_adds_total` (counter): a key became pending (repeat adds that merge do not count). */
  added(queue: string): void;
  /** `workqueue_queue_duration_seconds` (histogram): time from first add to a worker taking the key. */
  queueDuration(queue: string, seconds: number): void;
  /** `workqueue_work_duration_seconds` (histogram): time from a worker taking the key to `done`. */
  workDuration(queue: string, seconds: number): void;
  /** `workqueue_retries_total` (counter): one delayed or rate-limited add. */
  retried(queue: string): void;
  /** `workqueue_unfinished_work_seconds` (gauge): summed age of all work in progress, sampled periodically. */
  unfinishedWork(queue: string, seconds: number): void;
  /** `workqueue_longest_running_processor_seconds` (gauge): age of the oldest work in progress, sampled periodically. */
  longestRunningProcessor(queue: string, seconds: number): void;
}

const noop = (): void => {};

/**
 * The default provider: records nothing, and queues using it skip their
 * bookkeeping and periodic sampling entirely.
 *
 * @example
 * ```ts
 * import { noopQueueMetricsProvider, WorkQueue } from '@operant/runtime/workqueue';
 *
 * const queue = new WorkQueue({ metricsProvider: noopQueueMetricsProvider });
 * ```
 */
export const noopQueueMetricsProvider: QueueMetricsProvider = Object.freeze({
  depth: noop,
  added: noop,
  queueDuration: noop,
  workDuration: noop,
  retried: noop,
  unfinishedWork: noop,
  longestRunningProcessor: noop,
});

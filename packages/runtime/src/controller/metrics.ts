/**
 * The hooks a controller reports through, one per controller-runtime metric,
 * so that a Prometheus module (the manager's) can implement them under
 * controller-runtime's names and labels and existing dashboards keep working.
 * `controller` is the controller's name (the `controller` label).
 */

/**
 * The `result` label of `controller_runtime_reconcile_total`.
 *
 * @example
 * ```ts
 * import type { ReconcileResultLabel } from '@operant/runtime';
 *
 * const results: ReconcileResultLabel[] = ['success', 'error', 'requeue', 'requeue_after'];
 * ```
 */
export type ReconcileResultLabel = 'success' | 'error' | 'requeue' | 'requeue_after';

/**
 * Receives a controller's measurements. Times are in seconds.
 *
 * @example
 * ```ts
 * import { controllerBuilder, type ControllerMetrics } from '@operant/runtime';
 * import { noopControllerMetrics } from '@operant/runtime/metrics';
 *
 * const totals = new Map<string, number>();
 * const metrics: ControllerMetrics = {
 *   ...noopControllerMetrics,
 *   reconcileTotal: (controller, result) => totals.set(`${controller}/${result}`, (totals.get(`${controller}/${result}`) ?? 0) + 1),
 * };
 * controllerBuilder('configmaps', { client, informers, metrics });
 * ```
 */
export interface ControllerMetrics {
  /**
   * `controller_runtime_max_concurrent_reconciles` (gauge). Called once when the
   * controller starts, before anything else: an implementation should also set
   * the controller's counters to zero for every label value here, as controller-runtime does.
   */
  maxConcurrentReconciles(controller: string, workers: number): void;
  /** `controller_runtime_active_workers` (gauge): workers reconciling right now. */
  activeWorkers(controller: string, active: number): void;
  /**
   * `controller_runtime_reconcile_total{result}` (counter): one finished reconcile.
   * A conflict (409) counts as `requeue`: it is an expected race, not a failure.
   */
  reconcileTotal(controller: string, result: ReconcileResultLabel): void;
  /** `controller_runtime_reconcile_errors_total` (counter): a reconcile that failed (terminal errors included, conflicts not). */
  reconcileErrors(controller: string): void;
  /** `controller_runtime_terminal_reconcile_errors_total` (counter): a failure marked with {@link TerminalError}, not retried. */
  terminalReconcileErrors(controller: string): void;
  /**
   * `controller_runtime_reconcile_panics_total` (counter): the reconciler crashed
   * rather than failed: it threw a JavaScript runtime error (TypeError,
   * ReferenceError, RangeError, ...) or a value that is not an Error. Also counted as an error.
   */
  reconcilePanics(controller: string): void;
  /** `controller_runtime_reconcile_time_seconds` (histogram): the duration of one reconcile. */
  reconcileTime(controller: string, seconds: number): void;
}

const noop = (): void => {};

/**
 * The default: records nothing.
 *
 * @example
 * ```ts
 * import { controllerBuilder } from '@operant/runtime';
 * import { noopControllerMetrics } from '@operant/runtime/metrics';
 *
 * controllerBuilder('configmaps', { client, informers, metrics: noopControllerMetrics });
 * ```
 */
export const noopControllerMetrics: ControllerMetrics = Object.freeze({
  maxConcurrentReconciles: noop,
  activeWorkers: noop,
  reconcileTotal: noop,
  reconcileErrors: noop,
  terminalReconcileErrors: noop,
  reconcilePanics: noop,
  reconcileTime: noop,
});

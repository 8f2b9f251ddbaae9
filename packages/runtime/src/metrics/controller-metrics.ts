/**
 * The controller's {@link ControllerMetrics} hook as Prometheus metrics with
 * controller-runtime's names, labels and buckets
 * (`controller_runtime_reconcile_total{controller,result}` and the rest).
 */
import { Counter, Gauge, Histogram, type Registry } from './prom-client.js';
import type { ControllerMetrics, ReconcileResultLabel } from '../controller/metrics.js';
import { reconcileTimeBuckets } from './buckets.js';

const resultLabels: readonly ReconcileResultLabel[] = ['success', 'error', 'requeue', 'requeue_after'];

/**
 * Records controllers' reconciles into a registry.
 *
 * @example
 * ```ts
 * import { Registry } from 'prom-client';
 * import { PrometheusControllerMetrics } from '@operant/runtime/metrics';
 *
 * const registry = new Registry();
 * const metrics = new PrometheusControllerMetrics(registry);
 * metrics.maxConcurrentReconciles('sidecarset', 4);
 * metrics.reconcileTotal('sidecarset', 'success');
 * console.log(await registry.metrics()); // controller_runtime_reconcile_total{controller="sidecarset",result="success"} 1
 * ```
 */
export class PrometheusControllerMetrics implements ControllerMetrics {
  private readonly total: Counter<'controller' | 'result'>;
  private readonly errors: Counter<'controller'>;
  private readonly terminalErrors: Counter<'controller'>;
  private readonly panics: Counter<'controller'>;
  private readonly time: Histogram<'controller'>;
  private readonly workers: Gauge<'controller'>;
  private readonly active: Gauge<'controller'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.total = new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
      registers,
    });
    this.errors = new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    });
    this.terminalErrors = new Counter({
      name: 'controller_runtime_terminal_reconcile_errors_total',
      help: 'Total number of terminal reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    });
    this.panics = new Counter({
      name: 'controller_runtime_reconcile_panics_total',
      help: 'Total number of reconciliation panics per controller',
      labelNames: ['controller'],
      registers,
    });
    this.time = new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: [...reconcileTimeBuckets],
      registers,
    });
    this.workers = new Gauge({
      name: 'controller_runtime_max_concurrent_reconciles',
      help: 'Maximum number of concurrent reconciles per controller',
      labelNames: ['controller'],
      registers,
    });
    this.active = new Gauge({
      name: 'controller_runtime_active_workers',
      help: 'Number of currently used workers per controller',
      labelNames: ['controller'],
      registers,
    });
  }

  /** Sets the gauge and, as controller-runtime's `initMetrics` does, makes every series of the controller exist at zero. */
  maxConcurrentReconciles(controller: string, workers: number): void {
    this.workers.set({ controller }, workers);
    this.active.set({ controller }, 0);
    for (const result of resultLabels) this.total.inc({ controller, result }, 0);
    this.errors.inc({ controller }, 0);
    this.terminalErrors.inc({ controller }, 0);
    this.panics.inc({ controller }, 0);
  }

  activeWorkers(controller: string, active: number): void {
    this.active.set({ controller }, active);
  }

  reconcileTotal(controller: string, result: ReconcileResultLabel): void {
    this.total.inc({ controller, result });
  }

  reconcileErrors(controller: string): void {
    this.errors.inc({ controller });
  }

  terminalReconcileErrors(controller: string): void {
    this.terminalErrors.inc({ controller });
  }

  reconcilePanics(controller: string): void {
    this.panics.inc({ controller });
  }

  reconcileTime(controller: string, seconds: number): void {
    this.time.observe({ controller }, seconds);
  }
}

/**
 * The informer cache's {@link ReflectorMetricsProvider} hook as Prometheus
 * metrics, so that a cache that cannot reach the server shows up on dashboards
 * and not only in logs. controller-runtime has no names for these; ours are
 * `informer_errors_total{name,phase,reason}`, `informer_last_sync_timestamp_seconds{name}`,
 * `informer_list_duration_seconds{name}`, `informer_list_items{name}` and `informer_watches_total{name}`.
 */
import { Counter, Gauge, Histogram, type Registry } from './prom-client.js';
import type { ReflectorMetricsProvider, ReflectorPhase } from '../cache/metrics.js';
import { restClientLatencyBuckets } from './buckets.js';

/**
 * Records informers into a registry.
 *
 * @example
 * ```ts
 * import { Registry } from 'prom-client';
 * import { SharedInformerFactory } from '@operant/runtime/cache';
 * import { PrometheusInformerMetrics } from '@operant/runtime/metrics';
 *
 * const registry = new Registry();
 * const informers = new SharedInformerFactory(client, { metrics: new PrometheusInformerMetrics(registry) });
 * ```
 */
export class PrometheusInformerMetrics implements ReflectorMetricsProvider {
  private readonly errors: Counter<'name' | 'phase' | 'reason'>;
  private readonly lastSync: Gauge<'name'>;
  private readonly listDuration: Histogram<'name'>;
  private readonly listItems: Gauge<'name'>;
  private readonly watches: Counter<'name'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.errors = new Counter({
      name: 'informer_errors_total',
      help: 'Failed lists and watches per informer, by phase (list, watch) and reason (Status reason or transport error code).',
      labelNames: ['name', 'phase', 'reason'],
      registers,
    });
    this.lastSync = new Gauge({
      name: 'informer_last_sync_timestamp_seconds',
      help: 'When the informer was last known to be in sync with the server (seconds since the epoch).',
      labelNames: ['name'],
      registers,
    });
    this.listDuration = new Histogram({
      name: 'informer_list_duration_seconds',
      help: 'How long the informer took to list its collection (the initial list and every relist).',
      labelNames: ['name'],
      buckets: [...restClientLatencyBuckets],
      registers,
    });
    this.listItems = new Gauge({ name: 'informer_list_items', help: 'Objects returned by the informer\'s last list.', labelNames: ['name'], registers });
    this.watches = new Counter({ name: 'informer_watches_total', help: 'Watch requests started per informer (resumptions included).', labelNames: ['name'], registers });
  }

  errored(name: string, phase: ReflectorPhase, reason: string): void {
    this.errors.inc({ name, phase, reason });
  }

  synced(name: string, epochSeconds: number): void {
    this.lastSync.set({ name }, epochSeconds);
  }

  listed(name: string, items: number, seconds: number): void {
    this.listDuration.observe({ name }, seconds);
    this.listItems.set({ name }, items);
  }

  watchStarted(name: string): void {
    this.watches.inc({ name });
  }
}

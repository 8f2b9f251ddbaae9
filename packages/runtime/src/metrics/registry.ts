/**
 * One Prometheus registry holding every metric the runtime exports, with the
 * hook implementations to hand to the parts that measure: the client, the
 * informer cache, work queues, controllers and leader election.
 */
import { Registry } from './prom-client.js';
import type { ReflectorMetricsProvider } from '../cache/metrics.js';
import type { RequestMetrics } from '../client/metrics.js';
import type { ControllerMetrics } from '../controller/metrics.js';
import type { WebhookMetrics } from '../webhook/metrics.js';
import type { QueueMetricsProvider } from '../workqueue/metrics.js';
import { PrometheusControllerMetrics } from './controller-metrics.js';
import { PrometheusInformerMetrics } from './informer-metrics.js';
import { processCollectors } from './process-metrics.js';
import { PrometheusLeaderElectionMetrics, type LeaderElectionMetrics } from './leader-election-metrics.js';
import { PrometheusRequestMetrics } from './rest-client-metrics.js';
import { PrometheusWebhookMetrics } from './webhook-metrics.js';
import { PrometheusQueueMetrics } from './workqueue-metrics.js';

/**
 * Options of {@link MetricsRegistry}.
 *
 * @example
 * ```ts
 * import { MetricsRegistry } from '@operant/runtime/metrics';
 *
 * const metrics = new MetricsRegistry({ processMetrics: false });
 * ```
 */
export interface MetricsRegistryOptions {
  /**
   * Also export prom-client's process and Node.js metrics (`process_cpu_seconds_total`,
   * `process_resident_memory_bytes`, `nodejs_heap_size_used_bytes`, ...), as
   * controller-runtime exports the process and Go collectors; default true.
   * One set of these collectors serves every registry of the process, so making
   * and dropping registries (or managers) leaves nothing running behind them.
   * The event-loop lag gauges are reset by each scrape, whichever registry it reads.
   */
  processMetrics?: boolean;
}

/**
 * The runtime's metrics, under controller-runtime's and client-go's names and labels.
 * A manager makes one; custom metrics can join it through {@link MetricsRegistry.registry}.
 *
 * @example
 * ```ts
 * import { Counter } from 'prom-client';
 * import { Client, loadKubeConfig } from '@operant/runtime';
 * import { WorkQueue } from '@operant/runtime/workqueue';
 * import { MetricsRegistry } from '@operant/runtime/metrics';
 *
 * const metrics = new MetricsRegistry();
 * const client = Client.fromConfig(await loadKubeConfig(), { metrics: metrics.restClient });
 * const queue = new WorkQueue({ name: 'sidecarset', metricsProvider: metrics.workqueue });
 * const injected = new Counter({ name: 'sidecarset_injections_total', help: 'Sidecars injected', registers: [metrics.registry] });
 * console.log(await metrics.text());
 * ```
 */
export class MetricsRegistry {
  /** The prom-client registry: register custom metrics here to serve them on `/metrics`. */
  readonly registry: Registry;
  /** For `Client.fromConfig(config, { metrics })`: `rest_client_*`. */
  readonly restClient: RequestMetrics;
  /** For work queues' `metricsProvider`: `workqueue_*`. */
  readonly workqueue: QueueMetricsProvider;
  /** For controllers: `controller_runtime_*`. */
  readonly controller: ControllerMetrics;
  /** For informers (`SharedInformerFactory` options): `informer_*`. */
  readonly informers: ReflectorMetricsProvider;
  /** For leader election: `leader_election_*`. */
  readonly leaderElection: LeaderElectionMetrics;
  /** For the webhook server (`new WebhookServer({ metrics })`): `controller_runtime_webhook_*`. */
  readonly webhook: WebhookMetrics;

  constructor(options: MetricsRegistryOptions = {}) {
    this.registry = new Registry();
    this.restClient = new PrometheusRequestMetrics(this.registry);
    this.workqueue = new PrometheusQueueMetrics(this.registry);
    this.controller = new PrometheusControllerMetrics(this.registry);
    this.informers = new PrometheusInformerMetrics(this.registry);
    this.leaderElection = new PrometheusLeaderElectionMetrics(this.registry);
    this.webhook = new PrometheusWebhookMetrics(this.registry);
    if (options.processMetrics ?? true) for (const metric of processCollectors()) this.registry.registerMetric(metric);
  }

  /** The Prometheus text exposition (format 0.0.4) of every metric. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** The Content-Type of {@link text}. */
  get contentType(): string {
    return this.registry.contentType;
  }
}

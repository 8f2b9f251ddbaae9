/**
 * The work queue's {@link QueueMetricsProvider} hook as Prometheus metrics with
 * controller-runtime's names, labels and buckets (`workqueue_depth{name,controller}`
 * and the rest). As in controller-runtime, the queue's name fills both labels.
 */
import { Counter, Gauge, Histogram, type Registry } from './prom-client.js';
import type { QueueMetricsProvider } from '../workqueue/metrics.js';
import { workqueueDurationBuckets } from './buckets.js';

type QueueLabels = 'name' | 'controller';

/**
 * Records work queues into a registry.
 *
 * @example
 * ```ts
 * import { Registry } from 'prom-client';
 * import { WorkQueue } from '@operant/runtime/workqueue';
 * import { PrometheusQueueMetrics } from '@operant/runtime/metrics';
 *
 * const registry = new Registry();
 * const queue = new WorkQueue({ name: 'sidecarset', metricsProvider: new PrometheusQueueMetrics(registry) });
 * queue.add('default/web');
 * console.log(await registry.metrics()); // workqueue_adds_total{name="sidecarset",controller="sidecarset"} 1
 * ```
 */
export class PrometheusQueueMetrics implements QueueMetricsProvider {
  private readonly depthGauge: Gauge<QueueLabels>;
  private readonly adds: Counter<QueueLabels>;
  private readonly latency: Histogram<QueueLabels>;
  private readonly work: Histogram<QueueLabels>;
  private readonly retries: Counter<QueueLabels>;
  private readonly unfinished: Gauge<QueueLabels>;
  private readonly longest: Gauge<QueueLabels>;

  constructor(registry: Registry) {
    const registers = [registry];
    const labelNames: QueueLabels[] = ['name', 'controller'];
    this.depthGauge = new Gauge({ name: 'workqueue_depth', help: 'Current depth of workqueue', labelNames, registers });
    this.adds = new Counter({ name: 'workqueue_adds_total', help: 'Total number of adds handled by workqueue', labelNames, registers });
    this.latency = new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames,
      buckets: [...workqueueDurationBuckets],
      registers,
    });
    this.work = new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes.',
      labelNames,
      buckets: [...workqueueDurationBuckets],
      registers,
    });
    this.retries = new Counter({ name: 'workqueue_retries_total', help: 'Total number of retries handled by workqueue', labelNames, registers });
    this.unfinished = new Gauge({
      name: 'workqueue_unfinished_work_seconds',
      help:
        'How many seconds of work has been done that is in progress and hasn\'t been observed by work_duration. ' +
        'Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.',
      labelNames,
      registers,
    });
    this.longest = new Gauge({
      name: 'workqueue_longest_running_processor_seconds',
      help: 'How many seconds has the longest running processor for workqueue been running.',
      labelNames,
      registers,
    });
  }

  depth(queue: string, depth: number): void {
    this.depthGauge.set(labels(queue), depth);
  }

  added(queue: string): void {
    this.adds.inc(labels(queue));
  }

  queueDuration(queue: string, seconds: number): void {
    this.latency.observe(labels(queue), seconds);
  }

  workDuration(queue: string, seconds: number): void {
    this.work.observe(labels(queue), seconds);
  }

  retried(queue: string): void {
    this.retries.inc(labels(queue));
  }

  unfinishedWork(queue: string, seconds: number): void {
    this.unfinished.set(labels(queue), seconds);
  }

  longestRunningProcessor(queue: string, seconds: number): void {
    this.longest.set(labels(queue), seconds);
  }
}

function labels(queue: string): Record<QueueLabels, string> {
  return { name: queue, controller: queue };
}

/**
 * Prometheus metrics under controller-runtime's and client-go's names and
 * labels (`controller_runtime_reconcile_total`, `workqueue_depth`,
 * `rest_client_requests_total`, `leader_election_master_status`, ...), so that
 * dashboards made for Go operators work unchanged, and an HTTP handler serving them.
 */
export { reconcileTimeBuckets, restClientLatencyBuckets, workqueueDurationBuckets } from './buckets.js';
export { PrometheusControllerMetrics } from './controller-metrics.js';
export { PrometheusQueueMetrics } from './workqueue-metrics.js';
export { PrometheusRequestMetrics } from './rest-client-metrics.js';
export { PrometheusInformerMetrics } from './informer-metrics.js';
export { PrometheusWebhookMetrics } from './webhook-metrics.js';
export {
  PrometheusLeaderElectionMetrics,
  noopLeaderElectionMetrics,
  type LeaderElectionMetrics,
} from './leader-election-metrics.js';
export { MetricsRegistry, type MetricsRegistryOptions } from './registry.js';
export { metricsHandler, type MetricsSource } from './handler.js';
export { noopControllerMetrics } from '../controller/metrics.js';
export { noopRequestMetrics } from '../client/metrics.js';
export { noopWebhookMetrics } from '../webhook/metrics.js';

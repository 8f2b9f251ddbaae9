/**
 * The client's {@link RequestMetrics} hook as Prometheus metrics with client-go's
 * names and labels: `rest_client_requests_total{code,method,host}` (the one
 * controller-runtime registers), `rest_client_request_duration_seconds{verb,host}`
 * and `rest_client_rate_limiter_duration_seconds{verb,host}`.
 */
import { Counter, Histogram, type Registry } from './prom-client.js';
import type { RequestMetrics, RequestObservation } from '../client/metrics.js';
import { restClientLatencyBuckets } from './buckets.js';

/**
 * Records a client's requests into a registry.
 *
 * @example
 * ```ts
 * import { Registry } from 'prom-client';
 * import { Client, loadKubeConfig, Pod } from '@operant/runtime';
 * import { PrometheusRequestMetrics } from '@operant/runtime/metrics';
 *
 * const registry = new Registry();
 * const client = Client.fromConfig(await loadKubeConfig(), { metrics: new PrometheusRequestMetrics(registry) });
 * await client.list(Pod);
 * console.log(await registry.metrics()); // rest_client_requests_total{code="200",method="GET",host="127.0.0.1:6443"} 1
 * ```
 */
export class PrometheusRequestMetrics implements RequestMetrics {
  private readonly requests: Counter<'code' | 'method' | 'host'>;
  private readonly latency: Histogram<'verb' | 'host'>;
  private readonly rateLimiter: Histogram<'verb' | 'host'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.requests = new Counter({
      name: 'rest_client_requests_total',
      help: 'Number of HTTP requests, partitioned by status code, method, and host.',
      labelNames: ['code', 'method', 'host'],
      registers,
    });
    this.latency = new Histogram({
      name: 'rest_client_request_duration_seconds',
      help: 'Request latency in seconds. Broken down by verb, and host.',
      labelNames: ['verb', 'host'],
      buckets: [...restClientLatencyBuckets],
      registers,
    });
    this.rateLimiter = new Histogram({
      name: 'rest_client_rate_limiter_duration_seconds',
      help: 'Client side rate limiter latency in seconds. Broken down by verb, and host.',
      labelNames: ['verb', 'host'],
      buckets: [...restClientLatencyBuckets],
      registers,
    });
  }

  observeRequest(r: RequestObservation): void {
    this.requests.inc({ code: r.code, method: r.method, host: r.host });
    this.latency.observe({ verb: r.method, host: r.host }, r.latencySeconds);
    this.rateLimiter.observe({ verb: r.method, host: r.host }, r.rateLimiterSeconds);
  }
}

/**
 * Histogram buckets, copied from the Go code whose metrics these mirror, so
 * that dashboards and alerts written for Go operators read the same quantiles.
 */

/**
 * controller-runtime's `controller_runtime_reconcile_time_seconds` buckets (5 ms to 60 s).
 *
 * @example
 * ```ts
 * import { Histogram } from 'prom-client';
 * import { reconcileTimeBuckets } from '@operant/runtime/metrics';
 *
 * new Histogram({ name: 'my_reconcile_seconds', help: '...', buckets: [...reconcileTimeBuckets] });
 * ```
 */
export const reconcileTimeBuckets: readonly number[] = Object.freeze([
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0,
  4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
]);

/**
 * controller-runtime's workqueue duration buckets: `ExponentialBuckets(10e-9, 10, 12)`,
 * 10 ns to 1000 s, written out so that the `le` labels print exactly.
 *
 * @example
 * ```ts
 * import { Histogram } from 'prom-client';
 * import { workqueueDurationBuckets } from '@operant/runtime/metrics';
 *
 * new Histogram({ name: 'my_wait_seconds', help: '...', buckets: [...workqueueDurationBuckets] });
 * ```
 */
export const workqueueDurationBuckets: readonly number[] = Object.freeze([1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1000]);

/**
 * client-go's (component-base) `rest_client_request_duration_seconds` and
 * `rest_client_rate_limiter_duration_seconds` buckets (5 ms to 60 s).
 *
 * @example
 * ```ts
 * import { Histogram } from 'prom-client';
 * import { restClientLatencyBuckets } from '@operant/runtime/metrics';
 *
 * new Histogram({ name: 'my_request_seconds', help: '...', buckets: [...restClientLatencyBuckets] });
 * ```
 */
export const restClientLatencyBuckets: readonly number[] = Object.freeze([0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0]);

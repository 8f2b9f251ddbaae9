/**
 * A hook for request metrics with client-go's meanings, so the manager can
 * export `rest_client_requests_total{code,method,host}` and
 * `rest_client_request_duration_seconds{verb,host}` (and the rate limiter's
 * `rest_client_rate_limiter_duration_seconds`) without the client knowing Prometheus.
 */

/**
 * One finished request (one HTTP attempt), as {@link RequestMetrics.observeRequest} receives it.
 *
 * @example
 * ```ts
 * import type { RequestObservation } from '@operant/runtime';
 *
 * const observeRequest = (r: RequestObservation): void => {
 *   if (r.code === '<error>' || r.latencySeconds > 1) console.warn(`${r.method} ${r.host}: ${r.code} in ${r.latencySeconds}s`);
 * };
 * ```
 */
export interface RequestObservation {
  /** The HTTP method: `GET`, `POST`, `PUT`, `PATCH`, `DELETE`. */
  method: string;
  /** `host:port` of the server. */
  host: string;
  /** The HTTP status code as a string, or `<error>` when no response came (client-go's label value). */
  code: string;
  /**
   * Seconds from the start of the request (rate-limiter wait included, as in
   * client-go) to the end of the response body; for watches, to the response headers.
   */
  latencySeconds: number;
  /** Seconds of that spent waiting for the client-side rate limiter. */
  rateLimiterSeconds: number;
}

/**
 * Receives one call per request. Implementations must be cheap and must not throw.
 *
 * @example
 * ```ts
 * import { Client, loadKubeConfig, type RequestMetrics } from '@operant/runtime';
 *
 * const seen = new Map<string, number>();
 * const metrics: RequestMetrics = {
 *   observeRequest: (r) => {
 *     const key = `${r.method} ${r.code}`;
 *     seen.set(key, (seen.get(key) ?? 0) + 1);
 *     if (r.latencySeconds > 1) console.warn(`slow ${r.method} to ${r.host}: ${r.latencySeconds} s`);
 *   },
 * };
 * const client = Client.fromConfig(await loadKubeConfig(), { metrics });
 * ```
 */
export interface RequestMetrics {
  observeRequest(observation: RequestObservation): void;
}

/**
 * Records nothing: the default.
 *
 * @example
 * ```ts
 * import { Client, loadKubeConfig } from '@operant/runtime';
 * import { noopRequestMetrics } from '@operant/runtime/metrics';
 *
 * const client = Client.fromConfig(await loadKubeConfig(), { metrics: noopRequestMetrics });
 * ```
 */
export const noopRequestMetrics: RequestMetrics = Object.freeze({ observeRequest: () => undefined });

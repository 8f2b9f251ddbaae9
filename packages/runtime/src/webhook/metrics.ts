/**
 * What the webhook server reports about the requests it serves, with
 * controller-runtime's meanings; {@link PrometheusWebhookMetrics} (in
 * `metrics/`) records them under controller-runtime's names.
 */

/**
 * Which kind of review a handler failed on, for the two panic counters.
 *
 * @example
 * ```ts
 * import { type WebhookMetrics, type WebhookReviewKind } from '@operant/runtime';
 * import { noopWebhookMetrics } from '@operant/runtime/metrics';
 *
 * const panics = new Map<WebhookReviewKind, number>();
 * const metrics: WebhookMetrics = { ...noopWebhookMetrics, panicked: (kind) => void panics.set(kind, (panics.get(kind) ?? 0) + 1) };
 * ```
 */
export type WebhookReviewKind = 'admission' | 'conversion';

/**
 * Receives the webhook server's observations. `path` is the registered path
 * (the `webhook` label); `code` the HTTP status written.
 *
 * @example
 * ```ts
 * import { generateServingCertificate, WebhookServer, type WebhookMetrics } from '@operant/runtime';
 * import { noopWebhookMetrics } from '@operant/runtime/metrics';
 *
 * const seen: number[] = [];
 * const metrics: WebhookMetrics = { ...noopWebhookMetrics, requestFinished: (_path, code) => void seen.push(code) };
 * new WebhookServer({ certificates: (await generateServingCertificate()).source, metrics });
 * ```
 */
export interface WebhookMetrics {
  /** A path was registered: its usual series may be made to exist at zero. */
  registered(path: string): void;
  /** A request on `path` began (in flight). */
  requestStarted(path: string): void;
  /** A request on `path` was answered with `code` after `seconds`. */
  requestFinished(path: string, code: number, seconds: number): void;
  /** An AdmissionReview was answered: whether it allowed the request, and its `status.code`. */
  admissionResponse(path: string, allowed: boolean, code: number): void;
  /** A handler threw (Go's panic): counted per review kind. */
  panicked(kind: WebhookReviewKind): void;
}

const noop = (): void => {};

/**
 * Metrics that go nowhere: the default when no registry is given.
 *
 * @example
 * ```ts
 * import { generateServingCertificate, WebhookServer } from '@operant/runtime';
 * import { noopWebhookMetrics } from '@operant/runtime/metrics';
 *
 * new WebhookServer({ certificates: (await generateServingCertificate()).source, metrics: noopWebhookMetrics });
 * ```
 */
export const noopWebhookMetrics: WebhookMetrics = Object.freeze({
  registered: noop,
  requestStarted: noop,
  requestFinished: noop,
  admissionResponse: noop,
  panicked: noop,
});

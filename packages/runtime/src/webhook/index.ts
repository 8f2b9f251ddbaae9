/**
 * The webhook server and what it serves: admission (typed defaulters and
 * validators, raw handlers) and conversion, with certificates from a
 * generated CA or a watched directory.
 */
export type { CertificateSource, ServingCertificate, WebhookHandler, WebhookRequestContext } from './contracts.js';
export {
  WebhookServer,
  defaultMaxRequestBytes,
  defaultWebhookPort,
  defaultWebhookTimeoutMs,
  type WebhookServerAddress,
  type WebhookServerOptions,
} from './server.js';
export { WebhookRequestError } from './errors.js';
export { WebhookBuilder, type TypedWebhook, type TypedWebhookOptions } from './builder.js';
export type { LocalWebhookConfigurations } from './local-configurations.js';
export type { WebhookMetrics, WebhookReviewKind } from './metrics.js';
export * from './admission/index.js';

export * from './certs/index.js';

export * from './conversion/index.js';

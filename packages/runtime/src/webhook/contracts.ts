/**
 * The seams between the webhook server and what plugs into it: where its
 * serving certificate comes from, and what answers a request on a path.
 * The server owns HTTP (TLS, content types, size limits, timeouts, metrics);
 * handlers see decoded JSON and return the review to send back.
 */
import type { ObjectClient } from '../client/interfaces.js';
import type { LogMethods } from '../logging/log.js';


/**
 * A PEM-encoded serving certificate (with its chain) and private key.
 *
 * @example
 * ```ts
 * import { readFileSync } from 'node:fs';
 * import type { ServingCertificate } from '@operant/runtime';
 *
 * const pair: ServingCertificate = { cert: readFileSync('tls.crt', 'utf8'), key: readFileSync('tls.key', 'utf8') };
 * ```
 */
export interface ServingCertificate {
  readonly cert: string;
  readonly key: string;
}

/**
 * Where the webhook server gets its certificate: generated for a local run,
 * or read from a directory (a mounted Secret) and reloaded when it changes.
 *
 * @example
 * ```ts
 * import { generateServingCertificate, type CertificateSource } from '@operant/runtime';
 *
 * const { cert, key } = await generateServingCertificate();
 * const source: CertificateSource = {
 *   current: () => ({ cert, key }),
 *   onChange: () => () => {},
 * };
 * ```
 */
export interface CertificateSource {
  /** The pair to serve now. Throws when none is available yet. */
  current(): ServingCertificate;
  /** Calls `listener` with each new pair; returns a function that unsubscribes. */
  onChange(listener: (pair: ServingCertificate) => void): () => void;
  /** Begins whatever keeps the pair fresh (watching files); ends when `signal` aborts. */
  start?(signal: AbortSignal): Promise<void>;
}

/**
 * What a handler is given besides the request body.
 *
 * @example
 * ```ts
 * import type { WebhookHandler } from '@operant/runtime';
 *
 * const handler: WebhookHandler = async (body, { log, signal }) => {
 *   log.info({ aborted: signal.aborted }, 'review');
 *   return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: '', allowed: true } };
 * };
 * ```
 */
export interface WebhookRequestContext {
  /** Aborts when the request times out or the client goes away. */
  readonly signal: AbortSignal;
  /** A logger carrying the webhook path (and, once decoded, the request uid). */
  readonly log: LogMethods;
  /** The client the server was given (the manager's `mgr.client`, reading from its cache), if any. */
  readonly client?: ObjectClient;
}

/**
 * Answers one decoded review (an AdmissionReview or a ConversionReview as
 * parsed JSON) with the review to send back. Throwing makes the server
 * answer with an error of its own; handlers that can build a review with a
 * failure result should do so instead, so the user sees their message.
 *
 * @example
 * ```ts
 * import { conversionHandler, defineConversion, type Typed } from '@operant/runtime';
 *
 * type Widget = Typed<{ spec?: { size?: number } }>;
 * const widgets = defineConversion<Widget>({ group: 'example.com', version: 'v1', kind: 'Widget' });
 * mgr.webhookServer.register('/convert', conversionHandler([widgets]));
 * ```
 */
export type WebhookHandler = (body: unknown, ctx: WebhookRequestContext) => Promise<object>;

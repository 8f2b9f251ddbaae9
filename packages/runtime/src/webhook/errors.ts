/**
 * The error a webhook handler throws to have the server answer with an HTTP
 * error (a metav1.Status body) rather than a review: for bodies that are not
 * the review the path serves, so that no review can be answered.
 */

/**
 * A request the handler refuses at the HTTP level, e.g. 400 for a body that
 * is JSON but not an AdmissionReview. Unlike any other throw it is not counted
 * as a panic.
 *
 * @example
 * ```ts
 * import { WebhookRequestError, type WebhookHandler } from '@operant/runtime';
 *
 * const handler: WebhookHandler = async (body) => {
 *   if ((body as { kind?: unknown }).kind !== 'AdmissionReview') throw new WebhookRequestError(400, 'expected an AdmissionReview');
 *   return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: '', allowed: true } };
 * };
 * ```
 */
export class WebhookRequestError extends Error {
  constructor(
    /** The HTTP status to answer with (4xx or 5xx). */
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookRequestError';
  }
}

/**
 * The ConversionReview wire format (apiextensions.k8s.io/v1, and v1beta1 which
 * has the same shape): reading a request and writing the answer in the
 * request's own version, with its uid. The wire types are apimachinery's.
 */
import type { ConversionReview, KubeObject } from '@operant/apimachinery';
import { WebhookRequestError } from '../errors.js';

export type { ConversionRequest, ConversionResponse, ConversionReview } from '@operant/apimachinery';

/**
 * The ConversionReview versions the handler answers (both have the same
 * shape); list them in the CRD's `spec.conversion.webhook.conversionReviewVersions`.
 *
 * @example
 * ```ts
 * import { conversionReviewVersions, localWebhookClientConfig } from '@operant/runtime';
 *
 * const webhook = { conversionReviewVersions: ['v1'], clientConfig: localWebhookClientConfig({ port: 9443, path: '/convert' }) };
 * conversionReviewVersions.includes('apiextensions.k8s.io/v1'); // true
 * ```
 */
export const conversionReviewVersions: readonly string[] = ['apiextensions.k8s.io/v1', 'apiextensions.k8s.io/v1beta1'];

/** The parts of a request the handler relies on, before the request's content is checked. */
export interface ReceivedReview {
  apiVersion: string;
  uid: string;
  request: Record<string, unknown>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks the envelope: a ConversionReview of a known version with a request
 * and its uid. Without those no review can be answered, so the handler throws
 * a 400 (as controller-runtime answers undecodable reviews); problems inside
 * the request are answered as a Failure review instead.
 */
export function receiveReview(body: unknown): ReceivedReview {
  if (!isObject(body)) throw new WebhookRequestError(400, 'the request body is not a ConversionReview: expected a JSON object');
  if (body.kind !== 'ConversionReview' || typeof body.apiVersion !== 'string' || !conversionReviewVersions.includes(body.apiVersion)) {
    throw new WebhookRequestError(
      400,
      `unsupported review ${String(body.apiVersion ?? '')}, Kind=${String(body.kind ?? '')}: expected ConversionReview in ${conversionReviewVersions.join(' or ')}`,
    );
  }
  const request = body.request;
  if (!isObject(request)) throw new WebhookRequestError(400, 'the ConversionReview has no request');
  if (typeof request.uid !== 'string' || request.uid === '') throw new WebhookRequestError(400, 'the ConversionReview request has no uid');
  return { apiVersion: body.apiVersion, uid: request.uid, request };
}

/** The answer to `review`, successful with the converted objects. */
export function successReview(review: ReceivedReview, convertedObjects: KubeObject[]): ConversionReview {
  return { apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid: review.uid, convertedObjects, result: { metadata: {}, status: 'Success' } } };
}

/** The answer to `review`, failed with `message` (which the API server passes on to its client). */
export function failureReview(review: ReceivedReview, message: string): ConversionReview {
  return { apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid: review.uid, convertedObjects: [], result: { metadata: {}, status: 'Failure', message } } };
}

/**
 * The review a server sends when a handler failed on an AdmissionReview or a
 * ConversionReview: a denial (AdmissionReview, `status.code` 500) or a failed
 * conversion, answered in the request's own version with its uid, as
 * controller-runtime's panic recovery answers. Internal.
 */
import type { WebhookReviewKind } from '../metrics.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Which review `body` is, judged by its apiVersion and kind; undefined for anything else. */
export function reviewKindOf(body: unknown): WebhookReviewKind | undefined {
  if (!isObject(body)) return undefined;
  if (body.kind === 'AdmissionReview' && (body.apiVersion === 'admission.k8s.io/v1' || body.apiVersion === 'admission.k8s.io/v1beta1')) return 'admission';
  if (body.kind === 'ConversionReview' && (body.apiVersion === 'apiextensions.k8s.io/v1' || body.apiVersion === 'apiextensions.k8s.io/v1beta1')) return 'conversion';
  return undefined;
}

function uidOf(body: Json): string {
  const request = body.request;
  return isObject(request) && typeof request.uid === 'string' ? request.uid : '';
}

/** The failure review answering `body`, or undefined when `body` is no review. */
export function failureReview(body: unknown, code: number, message: string): object | undefined {
  const kind = reviewKindOf(body);
  if (!kind || !isObject(body)) return undefined;
  const uid = uidOf(body);
  if (kind === 'admission') {
    return {
      apiVersion: body.apiVersion,
      kind: 'AdmissionReview',
      response: { uid, allowed: false, status: { metadata: {}, message, code } },
    };
  }
  return {
    apiVersion: body.apiVersion,
    kind: 'ConversionReview',
    response: { uid, convertedObjects: [], result: { metadata: {}, status: 'Failure', message } },
  };
}

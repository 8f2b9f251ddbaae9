/**
 * Reading an AdmissionReview out of a decoded body and wrapping a response
 * back into one, in the request's own version (v1, or v1beta1 as
 * controller-runtime still answers it). Internal.
 */
import { WebhookRequestError } from '../errors.js';
import { encodedPatchOf, markEncodedPatch } from './encoded-patch.js';
import type { AdmissionRequest, AdmissionResponse, AdmissionReview } from './types.js';

const versions = ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1'] as const;
type ReviewVersion = (typeof versions)[number];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The request of an AdmissionReview body; a 400 {@link WebhookRequestError} for anything else. */
export function decodeAdmissionReview(body: unknown): { apiVersion: ReviewVersion; request: AdmissionRequest } {
  if (!isObject(body)) throw new WebhookRequestError(400, 'expected an AdmissionReview object');
  const { apiVersion, kind, request } = body;
  if (kind !== 'AdmissionReview') {
    throw new WebhookRequestError(400, `expected kind AdmissionReview, got ${JSON.stringify(kind ?? '')}`);
  }
  if (!versions.includes(apiVersion as ReviewVersion)) {
    throw new WebhookRequestError(400, `unsupported AdmissionReview apiVersion ${JSON.stringify(apiVersion ?? '')}: expected admission.k8s.io/v1 or admission.k8s.io/v1beta1`);
  }
  if (!isObject(request)) throw new WebhookRequestError(400, 'got an empty AdmissionRequest');
  if (typeof request.uid !== 'string' || request.uid === '') throw new WebhookRequestError(400, 'the AdmissionRequest has no uid');
  if (!isObject(request.kind) || typeof request.kind.kind !== 'string') throw new WebhookRequestError(400, 'the AdmissionRequest has no kind');
  if (typeof request.operation !== 'string') throw new WebhookRequestError(400, 'the AdmissionRequest has no operation');
  for (const field of ['object', 'oldObject'] as const) {
    const value = request[field];
    if (value !== undefined && value !== null && !isObject(value)) throw new WebhookRequestError(400, `the AdmissionRequest's ${field} is not an object`);
  }
  return { apiVersion: apiVersion as ReviewVersion, request: request as unknown as AdmissionRequest };
}

/** The review answering `request`: its uid, and `status.code` 200 when none was set (controller-runtime's `Complete`). */
export function completeReview(apiVersion: ReviewVersion, request: AdmissionRequest, response: AdmissionResponse): AdmissionReview {
  let status = response.status;
  // The handler's status is copied only to be completed, never changed in place.
  if (status?.code === undefined || status.code === 0) status = { ...status, code: 200 };
  // The same keys in the same order as `{ ...response, uid, status }`; V8 adds a key to a spread's
  // copy slowly (about 1 µs), to an assigned one at once.
  const answer: AdmissionResponse = Object.assign({}, response);
  answer.uid = request.uid;
  answer.status = status;
  // The copy carries the same base64 patch, if `patched` made it: the server may write it as it is.
  const patch = encodedPatchOf(response);
  if (patch !== undefined) markEncodedPatch(answer, patch);
  return { apiVersion, kind: 'AdmissionReview', response: answer };
}

/**
 * ConversionReview as it travels between the API server and a CRD's
 * conversion webhook (apiextensions.k8s.io/v1; v1beta1 has the same shape).
 */
import type { KubeObject } from '../object.js';

/**
 * A ConversionReview request: convert `objects` to `desiredAPIVersion`.
 *
 * @example
 * ```ts
 * import type { ConversionRequest, KubeObject } from '@operant/apimachinery';
 *
 * declare const widgetV1: KubeObject;
 * const request: ConversionRequest = { uid: '705ab4f5', desiredAPIVersion: 'example.com/v2', objects: [widgetV1] };
 * ```
 */
export interface ConversionRequest {
  uid: string;
  desiredAPIVersion: string;
  objects: KubeObject[];
}

/**
 * A ConversionReview response: the converted objects in order, or a Failure with a message.
 *
 * @example
 * ```ts
 * import type { ConversionResponse, KubeObject } from '@operant/apimachinery';
 *
 * declare const widgetV2: KubeObject;
 * const response: ConversionResponse = { uid: '705ab4f5', convertedObjects: [widgetV2], result: { status: 'Success' } };
 * ```
 */
export interface ConversionResponse {
  uid: string;
  convertedObjects: KubeObject[];
  result: { metadata?: Record<string, never>; status: 'Success' | 'Failure'; message?: string };
}

/**
 * A ConversionReview as sent (with `request`) or answered (with `response`).
 *
 * @example
 * ```ts
 * import type { ConversionRequest, ConversionReview } from '@operant/apimachinery';
 *
 * declare const request: ConversionRequest;
 * const review: ConversionReview = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request };
 * ```
 */
export interface ConversionReview {
  apiVersion: string;
  kind: 'ConversionReview';
  request?: ConversionRequest;
  response?: ConversionResponse;
}

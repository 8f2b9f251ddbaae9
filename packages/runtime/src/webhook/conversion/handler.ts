/**
 * The conversion webhook: answers ConversionReviews for the kinds registered,
 * converting each object to the desired version through its kind's hub.
 */
import type { KubeObject } from '@operant/apimachinery';
import type { WebhookHandler } from '../contracts.js';
import { ConversionError, objectName, type ConversionRegistration } from './hub.js';
import { failureReview, receiveReview, successReview } from './review.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A {@link WebhookHandler} for a CRD's conversion webhook (register it at the
 * path the CRD's `spec.conversion.webhook.clientConfig` names, e.g. `/convert`).
 *
 * Each object is converted from its apiVersion to the request's
 * `desiredAPIVersion` (spoke to hub to spoke, hub to spoke, spoke to hub, or
 * unchanged when already there) and answered in order with the request's uid
 * and `result.status: Success`. If any object cannot be converted (unknown
 * kind or version, a function that throws) the answer is a `Failure` whose
 * message names the object and versions; the API server passes it on to its
 * client. A body that is no ConversionReview (wrong kind or version, no
 * request, no uid) cannot be answered with a review: the handler throws a
 * {@link WebhookRequestError} with code 400 and the server answers with that.
 *
 * @example
 * ```ts
 * import { conversionHandler, defineConversion, type Typed, type VersionedKind } from '@operant/runtime';
 *
 * type WidgetV1 = Typed<{ spec: { replicas: number } }>;
 * type WidgetV2 = Typed<{ spec: { size: number } }>;
 * const WidgetV1: VersionedKind<WidgetV1> = { group: 'example.com', version: 'v1', kind: 'Widget' };
 * const WidgetV2: VersionedKind<WidgetV2> = { group: 'example.com', version: 'v2', kind: 'Widget' };
 * const widgets = defineConversion(WidgetV1).spoke(WidgetV2, {
 *   toHub: ({ spec, ...w }) => ({ ...w, spec: { replicas: spec.size } }),
 *   fromHub: ({ spec, ...w }) => ({ ...w, spec: { size: spec.replicas } }),
 * });
 * mgr.webhookServer.register('/convert', conversionHandler([widgets]));
 * ```
 */
export function conversionHandler(registrations: readonly ConversionRegistration[]): WebhookHandler {
  const byKind = new Map<string, ConversionRegistration>();
  for (const r of registrations) {
    const key = `${r.group}/${r.kind}`;
    if (byKind.has(key)) throw new TypeError(`conversions for ${r.kind} in group ${JSON.stringify(r.group)} are registered twice`);
    byKind.set(key, r);
  }

  const convertOne = async (obj: unknown, index: number, desired: string): Promise<KubeObject> => {
    if (!isObject(obj) || typeof obj.apiVersion !== 'string' || typeof obj.kind !== 'string') {
      throw new ConversionError(`request.objects[${index}] is not an object with apiVersion and kind`);
    }
    const object = obj as KubeObject;
    const group = object.apiVersion!.includes('/') ? object.apiVersion!.slice(0, object.apiVersion!.indexOf('/')) : '';
    const registration = byKind.get(`${group}/${String(object.kind)}`);
    if (!registration) {
      throw new ConversionError(
        `converting ${String(object.kind)} ${objectName(object)} from ${object.apiVersion} to ${desired}: no conversion is registered for kind ${String(object.kind)} in group ${JSON.stringify(group)}`,
      );
    }
    return registration.convert(object, desired);
  };

  return async (body, { log }) => {
    const review = receiveReview(body);
    const { desiredAPIVersion, objects } = review.request;
    try {
      if (typeof desiredAPIVersion !== 'string' || desiredAPIVersion === '') throw new ConversionError('request.desiredAPIVersion is required');
      if (!Array.isArray(objects)) throw new ConversionError('request.objects must be a list');
      const converted = await Promise.all(objects.map((o: unknown, i) => convertOne(o, i, desiredAPIVersion)));
      log.debug({ uid: review.uid, desiredAPIVersion, objects: converted.length }, 'converted objects');
      return successReview(review, converted);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      log.error({ uid: review.uid, err }, 'conversion failed');
      return failureReview(review, message);
    }
  };
}

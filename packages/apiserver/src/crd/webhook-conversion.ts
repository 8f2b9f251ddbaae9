/**
 * Conversion strategy Webhook: objects cross versions through the CRD's
 * conversion webhook (ConversionReview v1 over HTTPS, verified against the
 * caBundle), checked as kube checks the answer: one object per object sent,
 * in the desired version, with name, namespace and uid unchanged.
 */
import { randomUUID } from 'node:crypto';
import {
  StatusError,
  deepCopy,
  internalError,
  type ConversionResponse,
  type ConversionReview,
  type KubeObject,
  type OpenApiSchema,
} from '@operant/apimachinery';
import { applyDefaults } from '@operant/apimachinery/schema';
import type { StorageConversion } from '../registry/resource-store.js';
import type { ResourceInfo } from '../registry/resource-info.js';
import type { MvccStore } from '../storage/mvcc-store.js';
import { postWebhook, resolveWebhookTarget, WebhookCallError } from '../webhooks/client.js';
import type { CustomResourceDefinition } from './types.js';

/** kube gives conversion webhooks 30 seconds. */
const conversionTimeoutMs = 30_000;

export function webhookConversion(crd: CustomResourceDefinition, info: ResourceInfo, storageVersion: string, store: MvccStore, defaultsSchema: OpenApiSchema | undefined): StorageConversion {
  const served = `${info.group}/${info.version}`;
  const stored = `${info.group}/${storageVersion}`;
  const config = crd.spec.conversion?.webhook?.clientConfig ?? {};
  const gvk = (apiVersion: string) => `${apiVersion}, Kind=${info.kind}`;

  const convert = async (objs: KubeObject[], desired: string): Promise<KubeObject[]> => {
    const pending = objs.filter((o) => o.apiVersion !== desired);
    if (pending.length === 0) return objs;
    const uid = randomUUID();
    const review: ConversionReview = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid, desiredAPIVersion: desired, objects: pending } };
    let answer: Record<string, unknown>;
    try {
      answer = await postWebhook(resolveWebhookTarget(config, store), config.caBundle, review, conversionTimeoutMs);
    } catch (e) {
      const why = e instanceof WebhookCallError ? e.message : String(e);
      throw conversionFailed(gvk(desired), `conversion webhook for ${gvk(pending[0].apiVersion ?? '')} failed: ${why}`);
    }
    // Untrusted until checked below: every field may be missing.
    const response = answer.response as Partial<ConversionResponse> | undefined;
    const webhookFor = `conversion webhook for ${gvk(pending[0].apiVersion ?? '')}`;
    if (!response) throw conversionFailed(gvk(desired), `${webhookFor} failed: response is missing`);
    if (response.uid !== uid) throw conversionFailed(gvk(desired), `${webhookFor} failed: expected response.uid="${uid}", got "${response.uid ?? ''}"`);
    if (response.result?.status !== 'Success') {
      throw conversionFailed(gvk(desired), `${webhookFor} returned failure: ${response.result?.message ?? ''}`);
    }
    const converted = response.convertedObjects ?? [];
    if (converted.length !== pending.length) {
      throw conversionFailed(gvk(desired), `${webhookFor} returned ${converted.length} objects, expected ${pending.length}`);
    }
    let next = 0;
    return objs.map((o) => {
      if (o.apiVersion === desired) return o;
      const c = converted[next++];
      const why = invalidConversion(o, c, desired);
      if (why) throw conversionFailed(gvk(desired), `${webhookFor} returned invalid converted object at index ${next - 1}: ${why}`);
      // Only labels and annotations of metadata may change in a conversion; the rest stays the original's.
      const metadata = { ...o.metadata, labels: c.metadata.labels, annotations: c.metadata.annotations };
      if (metadata.labels === undefined) delete metadata.labels;
      if (metadata.annotations === undefined) delete metadata.annotations;
      return { ...c, metadata };
    });
  };

  return {
    storedAs: { apiVersion: stored, kind: info.kind },
    toStorage: (objs) => convert(objs, stored),
    fromStorage: async (objs) => {
      const out = await convert(objs, served);
      if (!defaultsSchema) return out;
      return out.map((o) => {
        const copy = deepCopy(o);
        applyDefaults(copy, defaultsSchema);
        return copy;
      });
    },
  };
}

function invalidConversion(original: KubeObject, converted: KubeObject | undefined, desired: string): string | undefined {
  if (!converted || typeof converted !== 'object' || !converted.metadata) return 'the object has no metadata';
  if (converted.apiVersion !== desired) return `invalid apiVersion "${String(converted.apiVersion)}", expected "${desired}"`;
  if (converted.kind !== original.kind) return `invalid kind "${String(converted.kind)}", expected "${String(original.kind)}"`;
  const m = converted.metadata;
  const o = original.metadata;
  if (m.uid !== o.uid) return `expected metadata.uid="${o.uid ?? ''}", got "${m.uid ?? ''}"`;
  if (m.name !== o.name) return `expected metadata.name="${o.name ?? ''}", got "${m.name ?? ''}"`;
  if ((m.namespace ?? '') !== (o.namespace ?? '')) return `expected metadata.namespace="${o.namespace ?? ''}", got "${m.namespace ?? ''}"`;
  return undefined;
}

function conversionFailed(_to: string, message: string): StatusError {
  return internalError(message);
}


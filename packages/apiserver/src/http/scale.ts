/** The autoscaling/v1 Scale view of objects with spec.replicas, for the scale subresource. */
import { applyJsonPatch, applyMergePatch, badRequest, unsupportedMediaType, type KubeObject } from '@operant/apimachinery';
import { parseJson } from './body.js';

type Json = Record<string, unknown>;

function selectorString(selector: unknown): string {
  const s = (selector ?? {}) as { matchLabels?: Record<string, string>; matchExpressions?: Array<{ key: string; operator: string; values?: string[] }> };
  const parts = Object.entries(s.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of s.matchExpressions ?? []) {
    if (e.operator === 'In') parts.push(`${e.key} in (${(e.values ?? []).join(',')})`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin (${(e.values ?? []).join(',')})`);
    else if (e.operator === 'Exists') parts.push(e.key);
    else if (e.operator === 'DoesNotExist') parts.push(`!${e.key}`);
  }
  return parts.sort().join(',');
}

export function scaleOf(obj: KubeObject): object {
  const spec = (obj.spec ?? {}) as Json;
  const status = (obj.status ?? {}) as Json;
  const m = obj.metadata;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    spec: { replicas: spec.replicas ?? 0 },
    status: { replicas: status.replicas ?? 0, selector: selectorString(spec.selector) },
  };
}

/** The merge patch to the main object that a PUT or PATCH of its Scale asks for. */
export function scalePatchFrom(current: KubeObject, verb: 'update' | 'patch', body: Buffer, contentType: string): object {
  let scale: Json;
  if (verb === 'update') scale = parseJson(body) as Json;
  else {
    const base = scaleOf(current);
    if (contentType === 'application/merge-patch+json' || contentType === 'application/strategic-merge-patch+json') scale = applyMergePatch(base, parseJson(body)) as Json;
    else if (contentType === 'application/json-patch+json') scale = applyJsonPatch(base, parseJson(body)) as Json;
    else throw unsupportedMediaType(contentType, ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json']);
  }
  const replicas = (scale?.spec as Json | undefined)?.replicas;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw badRequest(`spec.replicas: Invalid value: ${JSON.stringify(replicas ?? null)}: must be greater than or equal to 0`);
  }
  const rv = (scale.metadata as Json | undefined)?.resourceVersion;
  const patch: Json = { spec: { replicas } };
  if (typeof rv === 'string' && rv !== '') patch.metadata = { resourceVersion: rv };
  return patch;
}

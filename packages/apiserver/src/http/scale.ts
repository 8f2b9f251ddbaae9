/** The autoscaling/v1 Scale view of an object's replicas, for the scale subresource. */
import { applyJsonPatch, applyMergePatch, badRequest, fieldErrors, invalid, unsupportedMediaType, type KubeObject } from '@operant/apimachinery';
import { parseJson } from './body.js';
import { parsePatchBody } from './patch-body.js';

export type Json = Record<string, unknown>;

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

/** Where a resource keeps what its Scale shows: built-ins use spec.replicas and spec.selector; CRDs declare paths. */
export interface ScalePaths {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

function readPath(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const key of path.replace(/^\./, '').split('.')) {
    if (typeof cur !== 'object' || cur === null || Array.isArray(cur)) return undefined;
    cur = (cur as Json)[key];
  }
  return cur;
}

export function scaleOf(obj: KubeObject, paths?: ScalePaths): object {
  const m = obj.metadata;
  const specReplicas = readPath(obj, paths?.specReplicasPath ?? '.spec.replicas');
  const statusReplicas = readPath(obj, paths?.statusReplicasPath ?? '.status.replicas');
  // Built-ins derive the selector from spec.selector; CRDs point at a string already serialized.
  const selector = paths ? (paths.labelSelectorPath ? readPath(obj, paths.labelSelectorPath) : undefined) : selectorString((obj.spec as Json | undefined)?.selector);
  const status: Json = { replicas: typeof statusReplicas === 'number' ? statusReplicas : 0 };
  if (typeof selector === 'string' && selector !== '') status.selector = selector;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    spec: { replicas: typeof specReplicas === 'number' ? specReplicas : 0 },
    status,
  };
}

/**
 * The Scale a PUT or a (JSON, merge or strategic merge) PATCH of `oldScale`
 * asks for, its replicas checked; `accepted` are the patch types of the
 * resource (415 for others; apply is served before this).
 */
export function requestedScale(oldScale: KubeObject, verb: 'update' | 'patch', body: Buffer, contentType: string, accepted: readonly string[]): KubeObject {
  let scale: Json;
  if (verb === 'update') scale = parseJson(body) as Json;
  else if (!accepted.includes(contentType)) throw unsupportedMediaType(contentType, [...accepted]);
  else if (contentType === 'application/json-patch+json') scale = applyJsonPatch(structuredClone(oldScale), parsePatchBody(body, contentType)) as Json;
  else scale = applyMergePatch(structuredClone(oldScale), parsePatchBody(body, contentType)) as Json;
  const replicas = checkedReplicas({ ...oldScale, spec: scale?.spec } as KubeObject);
  const rv = (scale?.metadata as Json | undefined)?.resourceVersion;
  const metadata: Json = { ...oldScale.metadata };
  if (typeof rv === 'string' && rv !== '') metadata.resourceVersion = rv;
  // Only spec.replicas reaches the object: the rest of the Scale is a view of it.
  return { ...oldScale, metadata, spec: { replicas } } as KubeObject;
}

/**
 * The replicas a Scale asks for: a whole number (absent is Go's 0; anything
 * else is a 400, as decoding refuses it), at least 0 (kube's ValidateScale: a 422
 * naming the Scale).
 */
export function checkedReplicas(scale: KubeObject): number {
  const replicas = (scale.spec as Json | undefined)?.replicas;
  if (replicas === undefined) return 0;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas)) {
    throw badRequest(`spec.replicas: Invalid value: ${JSON.stringify(replicas ?? null)}: must be greater than or equal to 0`);
  }
  if (replicas < 0) throw invalid('autoscaling', 'Scale', scale.metadata?.name ?? '', [fieldErrors.invalid('spec.replicas', replicas, 'must be greater than or equal to 0')]);
  return replicas;
}

/** Sets the replicas where the object keeps them (`.spec.replicas`, or the CRD's specReplicasPath). */
export function setReplicas(obj: KubeObject, replicas: number, paths?: ScalePaths): void {
  const keys = (paths?.specReplicasPath ?? '.spec.replicas').replace(/^\./, '').split('.');
  let cur = obj as Json;
  for (const key of keys.slice(0, -1)) {
    const next = cur[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) cur[key] = {};
    cur = cur[key] as Json;
  }
  cur[keys[keys.length - 1]!] = replicas;
}

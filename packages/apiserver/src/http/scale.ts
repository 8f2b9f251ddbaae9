/** The autoscaling/v1 Scale view of an object's replicas, for the scale subresource. */
import { applyJsonPatch, applyMergePatch, badRequest, unsupportedMediaType, type KubeObject } from '@operant/apimachinery';
import { parseJson } from './body.js';
import { parsePatchBody } from './patch-body.js';

export type Json = Record<string, unknown>;

/** A selector's text: a metav1.LabelSelector, or the plain label map of a ReplicationController (whose Scale shows it as a set). */
function selectorString(selector: unknown, plainMap: boolean): string {
  if (plainMap) return Object.entries((selector ?? {}) as Record<string, string>).map(([k, v]) => `${k}=${v}`).sort().join(',');
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

/** `{ spec: { replicas: 3 } }` for `.spec.replicas` and 3. */
function nestedAt(path: string, value: unknown): Json {
  const keys = path.replace(/^\./, '').split('.');
  let out: unknown = value;
  for (let i = keys.length - 1; i >= 0; i--) out = { [keys[i]]: out };
  return out as Json;
}

export function scaleOf(obj: KubeObject, paths?: ScalePaths): object {
  const m = obj.metadata;
  const specReplicas = readPath(obj, paths?.specReplicasPath ?? '.spec.replicas');
  const statusReplicas = readPath(obj, paths?.statusReplicasPath ?? '.status.replicas');
  // Built-ins derive the selector from spec.selector; CRDs point at a string already serialized.
  const selector = paths ? (paths.labelSelectorPath ? readPath(obj, paths.labelSelectorPath) : undefined) : selectorString((obj.spec as Json | undefined)?.selector, obj.kind === 'ReplicationController');
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

/** The merge patch to the main object that a PUT or PATCH of its Scale asks for. */
export function scalePatchFrom(current: KubeObject, verb: 'update' | 'patch', body: Buffer, contentType: string, paths?: ScalePaths): Json {
  let scale: Json;
  if (verb === 'update') scale = parseJson(body) as Json;
  else {
    const base = scaleOf(current, paths);
    if (contentType === 'application/merge-patch+json' || contentType === 'application/strategic-merge-patch+json') scale = applyMergePatch(base, parsePatchBody(body, contentType)) as Json;
    else if (contentType === 'application/json-patch+json') scale = applyJsonPatch(base, parsePatchBody(body, contentType)) as Json;
    else throw unsupportedMediaType(contentType, ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json']);
  }
  const replicas = (scale?.spec as Json | undefined)?.replicas;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw badRequest(`spec.replicas: Invalid value: ${JSON.stringify(replicas ?? null)}: must be greater than or equal to 0`);
  }
  const rv = (scale.metadata as Json | undefined)?.resourceVersion;
  return scaleReplicasPatch(replicas, paths, typeof rv === 'string' ? rv : undefined);
}

/** The merge patch setting the replicas a Scale asks for (with its resourceVersion as a precondition). */
export function scaleReplicasPatch(replicas: number, paths: ScalePaths | undefined, resourceVersion?: string): Json {
  const patch: Json = nestedAt(paths?.specReplicasPath ?? '.spec.replicas', replicas);
  if (resourceVersion) patch.metadata = { resourceVersion };
  return patch;
}

/** The replicas a merge patch built by {@link scaleReplicasPatch} sets. */
export function replicasOfPatch(patch: Json, paths: ScalePaths | undefined): number {
  return readPath(patch, paths?.specReplicasPath ?? '.spec.replicas') as number;
}

/**
 * The shapes every Kubernetes object shares on the wire. Objects are handled as
 * plain JSON (unstructured) everywhere in the server; kind-specific types come
 * from `kubernetes-types` where a caller wants them.
 */
import type { ObjectMeta as ReadonlyObjectMeta, OwnerReference as ReadonlyOwnerReference } from 'kubernetes-types/meta/v1.js';

/** `T` with every `readonly` removed, deeply: `kubernetes-types` declares all fields readonly. */
export type DeepMutable<T> = T extends ReadonlyArray<infer U>
  ? DeepMutable<U>[]
  : T extends object
    ? { -readonly [K in keyof T]: DeepMutable<T[K]> }
    : T;

export type ObjectMeta = DeepMutable<ReadonlyObjectMeta>;
export type OwnerReference = DeepMutable<ReadonlyOwnerReference>;

/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** A Kubernetes object as JSON: apiVersion, kind and metadata, plus whatever the kind carries. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** A group, version and kind, e.g. `{ group: 'apps', version: 'v1', kind: 'Deployment' }`. */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** A group, version and resource (the plural in URLs), e.g. `{ group: 'apps', version: 'v1', resource: 'deployments' }`. */
export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/** A group and resource, as kube names them in error messages (`deployments.apps`, `pods`). */
export interface GroupResource {
  group: string;
  resource: string;
}

/** `apps/v1` for a named group, `v1` for the core group. */
export function apiVersionOf(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** Splits `apps/v1` into `{ group: 'apps', version: 'v1' }`; `v1` is the core group. */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** `pods` for the core group, `deployments.apps` otherwise: kube's GroupResource.String(). */
export function groupResourceString(gr: GroupResource): string {
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

/** A deep copy of a JSON value. Faster than structuredClone for plain JSON. */
export function deepCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** True for a non-null, non-array object. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Structural equality of two JSON values (key order does not matter). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  if (ak.length !== bk.length) return false;
  for (const k of ak) if (!jsonEqual(ao[k], bo[k])) return false;
  return true;
}

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

/**
 * A deep copy of a JSON value, by JSON's rules (what a `JSON.parse(JSON.stringify(v))`
 * round trip gives: undefined and function members dropped, undefined array
 * items and non-finite numbers become null, `toJSON` honoured, BigInt refused),
 * but walked directly: about 2 µs for a typical Pod, where the round trip and
 * `structuredClone` both take about 14 µs. Informer caches hand out copies,
 * and webhooks copy every object they default, so this is on hot paths.
 */
export function deepCopy<T>(value: T): T {
  return copyJson(value) as T;
}

function copyJson(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return null;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return copyJson(toJSON.call(value));
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyJson(value[i]) ?? null;
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const copied = copyJson((value as Record<string, unknown>)[key]);
    if (copied === undefined) continue;
    // A `__proto__` key from JSON.parse is data: keep it as an own property, not a prototype.
    if (key === '__proto__') Object.defineProperty(out, key, { value: copied, enumerable: true, writable: true, configurable: true });
    else out[key] = copied;
  }
  return out;
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

/**
 * The shapes every Kubernetes object shares on the wire. Objects are handled as
 * plain JSON (unstructured) everywhere in the server; kind-specific types come
 * from `kubernetes-types` where a caller wants them.
 */
import type { ObjectMeta, OwnerReference } from 'kubernetes-types/meta/v1.js';

export type { ObjectMeta, OwnerReference };

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

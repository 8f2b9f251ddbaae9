/**
 * Unknown-field detection and dropping for request objects, measured against
 * their OpenAPI schema.
 *
 * kube-apiserver decodes built-in kinds into Go structs: fields the struct lacks
 * are dropped (fieldValidation=Ignore), reported as warnings (Warn) or fail the
 * request (Strict) with `strict decoding error: unknown field "spec.x"`. Paths
 * are the JSON field names joined with `.`, list items as `[i]`
 * (`spec.containers[0].foo`), in the order the fields appear in the request.
 *
 * Schema rules honoured: `properties`, `additionalProperties` (maps: their
 * values are checked, any key is allowed), `x-kubernetes-preserve-unknown-fields`
 * (unknown keys kept at that level; known properties still checked) and
 * `x-kubernetes-embedded-resource`. The root and embedded resources are taken to
 * be Kubernetes objects: `apiVersion` and `kind` are always allowed and
 * `metadata` is checked against ObjectMeta (when the resolver knows it),
 * whatever the schema declares for it, as kube does for custom resources.
 * A schema without `properties`, `additionalProperties` or `type: object` says
 * nothing about keys, and nothing under it is reported. Duplicate fields are
 * not detected (JSON.parse has already merged them).
 */
import type { SchemaResolver } from '@operant/apimachinery/schema';
import { resolveSchemaOnce } from './builtin-schemas.js';
import type { OpenApiSchema } from '@operant/apimachinery';

const objectMetaRef = '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

type OnUnknown = (parent: Record<string, unknown>, key: string, path: string) => void;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function walk(
  value: unknown,
  schema: OpenApiSchema | undefined,
  path: string,
  resolve: SchemaResolver,
  onUnknown: OnUnknown,
): void {
  if (!schema || value === null || typeof value !== 'object') return;
  const s = resolveSchemaOnce(schema, resolve);
  if (!s) return;
  if (Array.isArray(value)) {
    if (s.items) value.forEach((item, i) => walk(item, s.items, `${path}[${i}]`, resolve, onUnknown));
    return;
  }
  const record = value as Record<string, unknown>;
  const props = s.properties;
  const additional = s.additionalProperties;
  const preserve =
    schema['x-kubernetes-preserve-unknown-fields'] === true || s['x-kubernetes-preserve-unknown-fields'] === true;
  // The root and embedded resources are Kubernetes objects: apiVersion and kind are
  // implied, metadata is ObjectMeta whatever the schema says (as for custom resources).
  const resource =
    path === '' || schema['x-kubernetes-embedded-resource'] === true || s['x-kubernetes-embedded-resource'] === true;
  const structured = props !== undefined || additional !== undefined || s.type === 'object';
  for (const key of Object.keys(record)) {
    const v = record[key];
    // A value that is no object has nothing under it to report: its path is made only when needed
    // (walk returns at once for it, before reading the path).
    const nested = v !== null && typeof v === 'object';
    if (resource && key === 'metadata' && resolve(objectMetaRef)) {
      if (nested) walk(v, { $ref: objectMetaRef }, join(path, key), resolve, onUnknown);
    } else if (props && Object.hasOwn(props, key)) {
      if (nested) walk(v, props[key], join(path, key), resolve, onUnknown);
    } else if (resource && (key === 'apiVersion' || key === 'kind')) {
      // always allowed on an object
    } else if (isPlainObject(additional)) {
      if (nested) walk(v, additional, join(path, key), resolve, onUnknown);
    } else if (additional === true || preserve || !structured) {
      // any key is allowed here
    } else {
      onUnknown(record, key, join(path, key));
    }
  }
}

/**
 * The paths of the fields of `obj` that `schema` does not declare, formatted as
 * kube's strict decoding reports them (`spec.x`, `spec.containers[0].foo`,
 * `metadata.bar`), in document order. `obj` is not modified.
 *
 * @param obj the decoded request object
 * @param schema the kind's schema, or a `$ref` to it
 * @param resolve resolves `$ref`s (e.g. `resolveBuiltinSchema`)
 */
export function findUnknownFields(obj: unknown, schema: OpenApiSchema, resolve: SchemaResolver): string[] {
  const found: string[] = [];
  walk(obj, schema, '', resolve, (_parent, _key, path) => found.push(path));
  return found;
}

/**
 * Drops the fields of `obj` that `schema` does not declare, in place, as
 * decoding into kube's Go types does; returns their paths (as
 * {@link findUnknownFields} would have).
 */
export function pruneUnknownFields(obj: unknown, schema: OpenApiSchema, resolve: SchemaResolver): string[] {
  const pruned: string[] = [];
  walk(obj, schema, '', resolve, (parent, key, path) => {
    delete parent[key];
    pruned.push(path);
  });
  return pruned;
}

/** The warning kube sends for one unknown field with fieldValidation=Warn: `unknown field "spec.x"`. */
export function unknownFieldWarning(path: string): string {
  return `unknown field ${JSON.stringify(path)}`;
}

/**
 * The error text for fieldValidation=Strict:
 * `strict decoding error: unknown field "spec.x", unknown field "spec.y"`.
 * kube wraps it in a 400 BadRequest whose message is
 * {@link cannotBeHandledMessage}.
 */
export function strictDecodingError(paths: string[]): string {
  return `strict decoding error: ${paths.map(unknownFieldWarning).join(', ')}`;
}

/**
 * kube's message for a body that fails to decode:
 * `Pod in version "v1" cannot be handled as a Pod: <detail>`.
 *
 * @param kind the kind named in the body
 * @param version the version of the body's apiVersion, without the group
 * @param detail e.g. {@link strictDecodingError}
 * @param targetKind the kind the endpoint decodes into, when it differs from `kind`
 */
export function cannotBeHandledMessage(kind: string, version: string, detail: string, targetKind = kind): string {
  return `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${targetKind}: ${detail}`;
}

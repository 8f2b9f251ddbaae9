/**
 * Reading an OpenAPI v3 schema node (a CRD's JSONSchemaProps, as JSON) with Go's
 * zero-value semantics: an empty `type` is no type, `default: null` is no default,
 * `additionalProperties: true` is "any value" without a schema.
 */
import type { OpenApiSchema } from '../openapi-schema.js';

/** A schema node as a plain record, to read keys the typed interface leaves out (`id`, `$schema`, `title`). */
export type RawSchema = Record<string, unknown>;

/** The node as a record. */
export function raw(s: OpenApiSchema): RawSchema {
  return s as unknown as RawSchema;
}

/** True for a non-null, non-array object. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The node's `type`, `''` when unset. */
export function typeOf(s: OpenApiSchema): string {
  const t = raw(s).type;
  return typeof t === 'string' ? t : '';
}

/** Whether the node declares a default (Go drops `default: null`). */
export function hasDefault(s: OpenApiSchema | undefined): boolean {
  return s !== undefined && s.default !== undefined && s.default !== null;
}

/** The single items schema, or undefined (also when `items` is a list of schemas). */
export function itemsSchema(s: OpenApiSchema | undefined): OpenApiSchema | undefined {
  const items = s ? raw(s).items : undefined;
  return isObject(items) ? (items as OpenApiSchema) : undefined;
}

/** The declared properties, `{}` when none. */
export function propertiesOf(s: OpenApiSchema | undefined): Record<string, OpenApiSchema> {
  const p = s ? raw(s).properties : undefined;
  return isObject(p) ? (p as Record<string, OpenApiSchema>) : {};
}

/** The property schema, if declared (own keys only, so `constructor` is just a name). */
export function propertyOf(s: OpenApiSchema | undefined, name: string): OpenApiSchema | undefined {
  const p = s ? raw(s).properties : undefined;
  if (!isObject(p) || !Object.hasOwn(p, name)) return undefined;
  const v = p[name];
  return isObject(v) ? (v as OpenApiSchema) : undefined;
}

/**
 * `additionalProperties` as kube's StructuralOrBool: `undefined` when not set, else
 * `{ schema }` (schema undefined for a boolean) and whether it allows other keys.
 */
export function additionalPropertiesOf(
  s: OpenApiSchema | undefined,
): { schema: OpenApiSchema | undefined; allows: boolean } | undefined {
  const ap = s ? raw(s).additionalProperties : undefined;
  if (ap === undefined || ap === null) return undefined;
  if (typeof ap === 'boolean') return { schema: undefined, allows: ap };
  return isObject(ap) ? { schema: ap as OpenApiSchema, allows: true } : undefined;
}

/** x-kubernetes-preserve-unknown-fields: true. */
export function preservesUnknownFields(s: OpenApiSchema | undefined): boolean {
  return s?.['x-kubernetes-preserve-unknown-fields'] === true;
}

/** x-kubernetes-embedded-resource: true. */
export function isEmbeddedResource(s: OpenApiSchema | undefined): boolean {
  return s?.['x-kubernetes-embedded-resource'] === true;
}

/** x-kubernetes-int-or-string: true. */
export function isIntOrString(s: OpenApiSchema | undefined): boolean {
  return s?.['x-kubernetes-int-or-string'] === true;
}

/** The list of schemas under `allOf`/`anyOf`/`oneOf`, `[]` when unset. */
export function junctor(s: OpenApiSchema, key: 'allOf' | 'anyOf' | 'oneOf'): OpenApiSchema[] {
  const v = raw(s)[key];
  return Array.isArray(v) ? (v.filter(isObject) as OpenApiSchema[]) : [];
}

/** The `not` schema, if set. */
export function notOf(s: OpenApiSchema): OpenApiSchema | undefined {
  const v = raw(s).not;
  return isObject(v) ? (v as OpenApiSchema) : undefined;
}

/** A numeric keyword (`maximum`, `maxLength`...), undefined unless a number. */
export function numberKeyword(s: OpenApiSchema, key: string): number | undefined {
  const v = raw(s)[key];
  return typeof v === 'number' ? v : undefined;
}

/** A string keyword (`pattern`, `format`...), `''` unless a string. */
export function stringKeyword(s: OpenApiSchema, key: string): string {
  const v = raw(s)[key];
  return typeof v === 'string' ? v : '';
}

/** The keys of `apiVersion`, `kind` and `metadata`, which resources carry whatever their schema says. */
export const metaFields: ReadonlySet<string> = new Set(['apiVersion', 'kind', 'metadata']);

/**
 * A view of `s` with x-kubernetes-embedded-resource set, as kube clones the root schema
 * when the value is a whole resource (so its apiVersion, kind and metadata are kept).
 */
export function asResourceRoot(s: OpenApiSchema | undefined): OpenApiSchema {
  if (!s) return emptyRoot;
  if (isEmbeddedResource(s)) return s;
  // The same view every time, so that schemas compiled from it are cached once.
  let view = rootViews.get(s);
  if (!view) {
    view = { ...s, 'x-kubernetes-embedded-resource': true };
    rootViews.set(s, view);
  }
  return view;
}

const rootViews = new WeakMap<OpenApiSchema, OpenApiSchema>();
const emptyRoot: OpenApiSchema = { 'x-kubernetes-embedded-resource': true };

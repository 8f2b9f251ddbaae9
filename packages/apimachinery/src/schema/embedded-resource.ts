/**
 * TypeMeta and ObjectMeta of x-kubernetes-embedded-resource values, as apiextensions'
 * objectmeta.Validate checks them: apiVersion and kind are required, metadata must be
 * valid ObjectMeta (names as path segments; namespaced only when a namespace is given).
 */
import type { FieldError } from '../field-errors.js';
import type { ObjectMeta } from '../object.js';
import type { OpenApiSchema } from '../openapi-schema.js';
import { isDNS1035Label } from '../validation/names.js';
import { validateObjectMeta } from '../validation/object-meta.js';
import { compileOptional, type CompiledSchema } from './compiled.js';
import { childPath, indexPath, keyPath } from './paths.js';
import { additionalPropertiesOf, asResourceRoot, isEmbeddedResource, isObject, itemsSchema, propertyOf } from './schema-node.js';

/** Go prints nil as "null" (quoted). */
const shown = (v: unknown): unknown => (v === null || v === undefined ? 'null' : v);

const stringFields = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'creationTimestamp',
  'deletionTimestamp',
];
const intFields = ['generation', 'deletionGracePeriodSeconds'];
const mapFields = ['labels', 'annotations'];
const listFields = ['ownerReferences', 'finalizers', 'managedFields'];

function jsonKind(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  return Array.isArray(v) ? 'array' : 'object';
}

/**
 * Whether `metadata` decodes into an ObjectMeta, with an encoding/json-style error
 * when a known field has the wrong type (kube's decoder words these differently).
 */
function objectMetaDecodeError(metadata: unknown): string | undefined {
  if (metadata === null) return undefined;
  if (!isObject(metadata)) return `json: cannot unmarshal ${jsonKind(metadata)} into Go value of type v1.ObjectMeta`;
  const wrong = (field: string, v: unknown, goType: string) =>
    `json: cannot unmarshal ${jsonKind(v)} into Go struct field ObjectMeta.${field} of type ${goType}`;
  for (const [k, v] of Object.entries(metadata)) {
    if (v === null || v === undefined) continue;
    if (stringFields.includes(k) && typeof v !== 'string') return wrong(k, v, 'string');
    if (intFields.includes(k) && !(typeof v === 'number' && Number.isInteger(v))) return wrong(k, v, 'int64');
    if (mapFields.includes(k)) {
      if (!isObject(v)) return wrong(k, v, 'map[string]string');
      for (const x of Object.values(v)) if (x !== null && typeof x !== 'string') return wrong(k, x, 'string');
    }
    if (listFields.includes(k)) {
      const strings = k === 'finalizers';
      const itemType = strings ? 'string' : k === 'ownerReferences' ? 'v1.OwnerReference' : 'v1.ManagedFieldsEntry';
      if (!Array.isArray(v)) return wrong(k, v, `[]${itemType}`);
      for (const x of v) {
        if (x !== null && (strings ? typeof x !== 'string' : !isObject(x))) return wrong(k, x, itemType);
      }
    }
  }
  return undefined;
}

/** schema.ParseGroupVersion's error: more than one slash. */
function groupVersionError(apiVersion: string): string | undefined {
  return apiVersion.split('/').length > 2 ? `unexpected GroupVersion string: ${apiVersion}` : undefined;
}

function validateTypeAndObjectMeta(path: string, x: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const required = (field: string): FieldError => ({ type: 'FieldValueRequired', field, hasValue: false, detail: '' });
  const invalid = (field: string, value: unknown, detail: string): FieldError => ({
    type: 'FieldValueInvalid',
    field,
    value: shown(value),
    hasValue: true,
    detail,
  });
  if (!Object.hasOwn(x, 'apiVersion')) errs.push(required(childPath(path, 'apiVersion')));
  if (!Object.hasOwn(x, 'kind')) errs.push(required(childPath(path, 'kind')));
  for (const [k, v] of Object.entries(x)) {
    if (k === 'apiVersion') {
      const p = childPath(path, k);
      if (typeof v !== 'string') errs.push(invalid(p, v, 'must be a string'));
      else if (v === '') errs.push(required(p));
      else {
        const gvErr = groupVersionError(v);
        if (gvErr) errs.push(invalid(p, v, gvErr));
      }
    } else if (k === 'kind') {
      const p = childPath(path, k);
      if (typeof v !== 'string') errs.push(invalid(p, v, 'must be a string'));
      else if (v === '') errs.push(required(p));
      else {
        const msgs = isDNS1035Label(v.toLowerCase());
        if (msgs.length) errs.push(invalid(p, v, `may have mixed case, but should otherwise match: ${msgs.join(',')}`));
      }
    } else if (k === 'metadata') {
      const p = childPath(path, k);
      const decodeErr = objectMetaDecodeError(v);
      if (decodeErr) {
        errs.push(invalid(p, v, decodeErr));
      } else {
        const meta = { ...((v ?? {}) as ObjectMeta) };
        // kube validates embedded metadata with a stand-in name when there is none.
        if (!meta.name) meta.name = 'fakename';
        errs.push(...validateObjectMeta(meta, { namespaced: !!meta.namespace, nameValidator: 'path-segment', path: p }));
      }
    }
  }
  return errs;
}

function walk(path: string, x: unknown, s: CompiledSchema | undefined, errs: FieldError[]): void {
  if (!s) return;
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) walk(indexPath(path, i), x[i], s.items, errs);
  } else if (isObject(x)) {
    if (s.embeddedResource) errs.push(...validateTypeAndObjectMeta(path, x));
    const ap = s.additionalProperties;
    if (!ap && s.properties.size === 0) return;
    for (const k in x) {
      if (!Object.hasOwn(x, k)) continue;
      const prop = s.properties.get(k);
      if (prop) walk(childPath(path, k), x[k], prop, errs);
      else if (ap) walk(keyPath(path, k), x[k], ap.schema, errs);
    }
  }
}

function coerce(path: string, x: unknown, s: OpenApiSchema | undefined): FieldError | undefined {
  if (!s) return undefined;
  if (Array.isArray(x)) {
    const items = itemsSchema(s);
    for (let i = 0; i < x.length; i++) {
      const err = coerce(indexPath(path, i), x[i], items);
      if (err) return err;
    }
    return undefined;
  }
  if (!isObject(x)) return undefined;
  const ap = additionalPropertiesOf(s);
  for (const [k, v] of Object.entries(x)) {
    if (isEmbeddedResource(s)) {
      const detail =
        (k === 'apiVersion' || k === 'kind') && typeof v !== 'string'
          ? 'must be a string'
          : k === 'metadata'
            ? objectMetaDecodeError(v)
            : undefined;
      if (detail) return { type: 'FieldValueInvalid', field: childPath(path, k), value: shown(v), hasValue: true, detail };
    }
    const prop = propertyOf(s, k);
    const err = prop ? coerce(childPath(path, k), v, prop) : ap ? coerce(keyPath(path, k), v, ap.schema) : undefined;
    if (err) return err;
  }
  return undefined;
}

/**
 * The first TypeMeta/ObjectMeta type error in embedded resources (an apiVersion that is
 * not a string, metadata that does not decode), as kube's objectmeta.Coerce reports it.
 */
export function embeddedResourceTypeError(
  value: unknown,
  schema: OpenApiSchema | undefined,
  path = '',
  isResourceRoot = false,
): FieldError | undefined {
  return coerce(path, value, isResourceRoot ? asResourceRoot(schema) : schema);
}

/**
 * Validates the apiVersion, kind and metadata of every x-kubernetes-embedded-resource
 * value inside `value`; with `isResourceRoot`, of `value` itself too. A custom
 * resource's own metadata is validated by its store, so callers pass `false` for it.
 */
export function validateEmbeddedResources(
  value: unknown,
  schema: OpenApiSchema | undefined,
  path = '',
  isResourceRoot = false,
): FieldError[] {
  const errs: FieldError[] = [];
  walk(path, value, compileOptional(isResourceRoot ? asResourceRoot(schema) : schema), errs);
  return errs;
}

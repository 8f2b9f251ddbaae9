/**
 * x-kubernetes-list-type uniqueness, as apiextensions' listtype package checks it:
 * items of a `set` are unique, keys of a `map` list are unique. Only the second
 * occurrence of a repeated value is reported.
 */
import type { FieldError } from '../field-errors.js';
import type { OpenApiSchema } from '../openapi-schema.js';
import { goJson, goSharpV } from './go-text.js';
import { compileOptional, type CompiledSchema } from './compiled.js';
import { childPath, indexPath, keyPath } from './paths.js';
import { isObject } from './schema-node.js';

function duplicate(field: string, value: unknown): FieldError {
  // kube prints a compound value with Go's %#v (`map[string]interface {}{"name":"http"}`), given
  // here as the text after "Duplicate value: ".
  if (typeof value === 'object' && value !== null) return { type: 'FieldValueDuplicate', field, hasValue: false, detail: goSharpV(value) };
  // Go prints a nil value as "null" (quoted).
  return { type: 'FieldValueDuplicate', field, value: value === null ? 'null' : value, hasValue: true, detail: '' };
}

/** A key for comparing values: compound values by their JSON, as kube compares them. */
const unspecified = Symbol('unspecified key');
type SetKey = string | number | boolean | null | symbol;

function setKey(x: unknown): SetKey {
  if (typeof x === 'object' && x !== null) return `\u0000${goJson(x)}`;
  return x as SetKey;
}

/** Indices of the first repeat of each value. */
function nonUnique(keys: SetKey[]): number[] {
  if (keys.length <= 1) return [];
  const seen = new Map<SetKey, number>();
  const out: number[] = [];
  keys.forEach((k, i) => {
    const times = seen.get(k);
    if (times === undefined) seen.set(k, 1);
    else {
      seen.set(k, times + 1);
      if (times === 1) out.push(i);
    }
  });
  return out;
}

function validateListMap(path: string, s: CompiledSchema, list: unknown[]): FieldError[] {
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    if (x !== null && !isObject(x)) {
      const detail = 'must be an object for an array of list-type map';
      return [{ type: 'FieldValueInvalid', field: indexPath(path, i), value: x, hasValue: true, detail }];
    }
  }
  if (list.length <= 1) return [];
  const keyFields = s.listMapKeys;
  if (keyFields.length === 1) {
    const field = keyFields[0]!;
    const keys = list.map((x) => (isObject(x) && Object.hasOwn(x, field) ? x[field] : unspecified));
    return nonUnique(keys.map((k) => (k === unspecified ? unspecified : setKey(k)))).map((i) =>
      duplicate(indexPath(path, i), keys[i] === unspecified ? {} : { [field]: keys[i] }),
    );
  }
  const keys = list.map((x) => {
    const key: Record<string, unknown> = {};
    if (isObject(x)) for (const f of keyFields) if (Object.hasOwn(x, f)) key[f] = x[f];
    return key;
  });
  return nonUnique(keys.map(setKey)).map((i) => duplicate(indexPath(path, i), keys[i]));
}

function validateArray(path: string, s: CompiledSchema, list: unknown[]): FieldError[] {
  const errs: FieldError[] = [];
  const listType = s.listType;
  if (listType === 'set') {
    for (const i of nonUnique(list.map(setKey))) errs.push(duplicate(indexPath(path, i), list[i]));
  } else if (listType === 'map') {
    errs.push(...validateListMap(path, s, list));
  }
  const items = s.items;
  if (items) list.forEach((x, i) => errs.push(...validateAny(indexPath(path, i), items, x)));
  return errs;
}

function validateMap(path: string, s: CompiledSchema, obj: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const ap = s.additionalProperties?.schema;
  if (ap) for (const k in obj) if (Object.hasOwn(obj, k)) errs.push(...validateAny(keyPath(path, k), ap, obj[k]));
  if (s.properties.size === 0) return errs;
  for (const k in obj) {
    if (!Object.hasOwn(obj, k)) continue;
    const v = obj[k];
    const prop = s.properties.get(k);
    if (prop) errs.push(...validateAny(childPath(path, k), prop, v));
  }
  return errs;
}

function validateAny(path: string, s: CompiledSchema, x: unknown): FieldError[] {
  if (Array.isArray(x)) return validateArray(path, s, x);
  if (isObject(x)) return validateMap(path, s, x);
  return [];
}

/**
 * Reports duplicate items of `x-kubernetes-list-type: set` lists and duplicate keys of
 * `x-kubernetes-list-type: map` lists anywhere in `value`, as `Duplicate value` errors
 * at the repeated item (`spec.ports[2]`).
 */
export function validateListTypes(value: unknown, schema: OpenApiSchema | undefined, path = ''): FieldError[] {
  const s = compileOptional(schema);
  return s ? validateAny(path, s, value) : [];
}

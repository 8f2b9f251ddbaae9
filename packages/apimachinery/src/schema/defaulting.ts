/**
 * Structural defaulting, as apiextensions' defaulting package does it: defaults are
 * deep-copied into missing fields top-down (so defaults inside a defaulted value apply
 * too), in objects, list items and additionalProperties values.
 */
import { deepCopy } from '../object.js';
import type { OpenApiSchema } from '../openapi-schema.js';
import { compileOptional, type CompiledSchema } from './compiled.js';
import { isObject } from './schema-node.js';

/** A null where the schema does not allow null. */
function isNonNullableNull(x: unknown, s: CompiledSchema | undefined): boolean {
  return x === null && s !== undefined && !s.nullable;
}

/** The default of `s` (deep-copied), or null when it has none, as Go copies a nil default. */
function defaultOf(s: CompiledSchema | undefined): unknown {
  return s?.hasDefault ? deepCopy(s.schema.default) : null;
}

function applyTo(value: unknown, schema: CompiledSchema | undefined): void {
  if (!schema) return;
  if (Array.isArray(value)) {
    const items = schema.items;
    for (let i = 0; i < value.length; i++) {
      if (isNonNullableNull(value[i], items)) value[i] = defaultOf(items);
      applyTo(value[i], items);
    }
    return;
  }
  if (!isObject(value)) return;
  for (const [k, prop] of schema.properties) {
    if (!prop.hasDefault) continue;
    const found = Object.hasOwn(value, k) && value[k] !== undefined;
    if (!found || isNonNullableNull(value[k], prop)) value[k] = deepCopy(prop.schema.default);
  }
  const ap = schema.additionalProperties;
  for (const k of Object.keys(value)) {
    const prop = schema.properties.get(k);
    if (prop) applyTo(value[k], prop);
    else if (ap) {
      if (isNonNullableNull(value[k], ap.schema)) value[k] = defaultOf(ap.schema);
      applyTo(value[k], ap.schema);
    }
  }
}

function pruneNulls(value: unknown, schema: CompiledSchema | undefined): void {
  if (Array.isArray(value)) {
    for (const v of value) pruneNulls(v, schema?.items);
    return;
  }
  if (!isObject(value)) return;
  for (const k of Object.keys(value)) {
    const s = schema?.properties.get(k) ?? schema?.additionalProperties?.schema;
    const v = value[k];
    if (v === null && s !== undefined && !s.nullable && !s.hasDefault) delete value[k];
    else pruneNulls(v, s);
  }
}

/**
 * Applies the defaults of `schema` to `value` in place. A missing field gets its
 * default, and so does a null one unless the field is nullable. Values that are not
 * objects or arrays are left alone.
 */
export function applyDefaults(value: unknown, schema: OpenApiSchema | undefined): void {
  applyTo(value, compileOptional(schema));
}

/**
 * Removes, in place, null values of fields that are neither nullable nor defaulted
 * (kube does this after pruning, so that `field: null` reads as an absent field).
 * Non-nullable nulls with a default are left for {@link applyDefaults}.
 */
export function pruneNonNullableNullsWithoutDefaults(value: unknown, schema: OpenApiSchema | undefined): void {
  pruneNulls(value, compileOptional(schema));
}

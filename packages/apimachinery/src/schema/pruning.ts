/**
 * Pruning of fields a structural schema does not specify, as apiextensions' pruning
 * package does it, returning the pruned paths the way strict field validation names
 * them (`spec.foo`, `spec.items[0].x`), sorted.
 */
import type { OpenApiSchema } from '../openapi-schema.js';
import { compileOptional, type CompiledSchema } from './compiled.js';
import { asResourceRoot, isObject, metaFields } from './schema-node.js';

/** Options of {@link pruneValue}. */
export interface PruneOptions {
  /** `value` is a whole resource: its apiVersion, kind and metadata are never pruned. */
  isResourceRoot: boolean;
}

const keyOf = (parent: string, key: string): string => (parent ? `${parent}.${key}` : key);

function prune(x: unknown, s: CompiledSchema | undefined, path: string, unknown: string[]): void {
  if (s?.preserveUnknownFields) {
    skipPrune(x, s, path, unknown);
    return;
  }
  if (Array.isArray(x)) {
    const items = s?.items;
    for (let i = 0; i < x.length; i++) prune(x[i], items, `${path}[${i}]`, unknown);
    return;
  }
  if (!isObject(x)) return;
  if (!s) {
    for (const k of Object.keys(x)) {
      unknown.push(keyOf(path, k));
      delete x[k];
    }
    return;
  }
  const embedded = s.embeddedResource;
  const ap = s.additionalProperties;
  for (const k of Object.keys(x)) {
    if (embedded && metaFields.has(k)) continue;
    const prop = s.properties.get(k);
    if (prop) prune(x[k], prop, keyOf(path, k), unknown);
    else if (ap) prune(x[k], ap.schema, keyOf(path, k), unknown);
    else {
      // kube drops a stray apiVersion/kind/metadata at the top silently.
      if (!metaFields.has(k) || path !== '') unknown.push(keyOf(path, k));
      delete x[k];
    }
  }
}

/** Under x-kubernetes-preserve-unknown-fields: keep unknown fields, prune inside the specified ones. */
function skipPrune(x: unknown, s: CompiledSchema | undefined, path: string, unknown: string[]): void {
  if (!s) return;
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) skipPrune(x[i], s.items, `${path}[${i}]`, unknown);
    return;
  }
  if (!isObject(x)) return;
  const embedded = s.embeddedResource;
  const ap = s.additionalProperties;
  for (const k of Object.keys(x)) {
    if (embedded && metaFields.has(k)) continue;
    const prop = s.properties.get(k);
    if (prop) prune(x[k], prop, keyOf(path, k), unknown);
    else if (ap) prune(x[k], ap.schema, keyOf(path, k), unknown);
  }
}


/**
 * Removes, in place, the object fields of `value` that `schema` does not specify:
 * fields are kept under x-kubernetes-preserve-unknown-fields (until a nested schema
 * specifies properties again), map values are pruned by their additionalProperties
 * schema, and apiVersion/kind/metadata are kept in embedded resources and, with
 * `isResourceRoot`, at the top. Returns the pruned paths, sorted, e.g.
 * `['spec.foo', 'spec.items[0].x']`, for strict field validation.
 */
export function pruneValue(value: unknown, schema: OpenApiSchema | undefined, opts: PruneOptions): string[] {
  const unknown: string[] = [];
  prune(value, compileOptional(opts.isResourceRoot ? asResourceRoot(schema) : schema), '', unknown);
  return unknown.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The merge rules of a schema, as structured-merge-diff sees a type: a scalar,
 * a list (atomic, or associative: a set of scalars or a map keyed by fields), a
 * map (granular or atomic; a struct is a map with named fields), or untyped
 * ("deduced": the shape of the value decides, lists atomic, maps granular).
 *
 * Built from OpenAPI schemas as kube-openapi's schemaconv does: the
 * `x-kubernetes-list-type`, `x-kubernetes-list-map-keys` and
 * `x-kubernetes-map-type` extensions; a list without a list type is atomic;
 * `x-kubernetes-preserve-unknown-fields` and schemas without a type are untyped.
 */
import { resolveSchema, type OpenApiSchema, type SchemaResolver } from '../openapi-schema.js';

export type ScalarKind = 'string' | 'numeric' | 'boolean' | 'any';

export type MergeType =
  | { readonly kind: 'scalar'; readonly scalar: ScalarKind }
  | {
      readonly kind: 'list';
      readonly atomic: boolean;
      /** Key fields of a list-map; empty for a set (items are scalars, keyed by value). */
      readonly keys: readonly string[];
      /** Defaults of key fields an item may omit (kube's `protocol: TCP` of ports). */
      readonly keyDefaults: Readonly<Record<string, unknown>>;
      item(): MergeType;
    }
  | {
      readonly kind: 'map';
      readonly atomic: boolean;
      /** The type of a named field, undefined when the name is not declared. */
      field(name: string): MergeType | undefined;
      /** The type of entries that are not named fields; undefined when none are allowed. */
      element(): MergeType | undefined;
    }
  | { readonly kind: 'untyped' };

/** The deduced type: the value decides. */
export const untypedType: MergeType = { kind: 'untyped' };

const cache = new WeakMap<OpenApiSchema, MergeType>();

/**
 * The merge type of an OpenAPI schema node. `keyDefaults` gives the defaults of
 * list-map key fields that a schema node declares without a `default` (the
 * built-in schemas we generate carry no defaults), keyed by the resolved item schema.
 */
export function mergeTypeOf(schema: OpenApiSchema | undefined, resolve: SchemaResolver, keyDefaults?: (item: OpenApiSchema) => Record<string, unknown> | undefined): MergeType {
  const s = resolveSchema(schema, resolve);
  if (!s) return untypedType;
  const cached = cache.get(s);
  if (cached) return cached;
  const t = build(s, resolve, keyDefaults);
  cache.set(s, t);
  return t;
}

function build(s: OpenApiSchema, resolve: SchemaResolver, keyDefaults?: (item: OpenApiSchema) => Record<string, unknown> | undefined): MergeType {
  if (s['x-kubernetes-int-or-string']) return { kind: 'scalar', scalar: 'any' };
  const type = s.type ?? (s.properties ? 'object' : s.items ? 'array' : undefined);
  switch (type) {
    case 'string':
      return { kind: 'scalar', scalar: 'string' };
    case 'integer':
    case 'number':
      return { kind: 'scalar', scalar: 'numeric' };
    case 'boolean':
      return { kind: 'scalar', scalar: 'boolean' };
    case 'array': {
      const listType = s['x-kubernetes-list-type'] ?? 'atomic';
      const keys = listType === 'map' ? (s['x-kubernetes-list-map-keys'] ?? []) : [];
      let item: MergeType | undefined;
      const itemSchema = resolveSchema(s.items, resolve);
      const defaults: Record<string, unknown> = {};
      if (itemSchema && keys.length) {
        for (const k of keys) {
          const d = resolveSchema(itemSchema.properties?.[k], resolve)?.default ?? itemSchema.properties?.[k]?.default;
          if (d !== undefined) defaults[k] = d;
        }
        Object.assign(defaults, keyDefaults?.(itemSchema));
      }
      return {
        kind: 'list',
        atomic: listType === 'atomic',
        keys,
        keyDefaults: defaults,
        item: () => (item ??= mergeTypeOf(s.items, resolve, keyDefaults)),
      };
    }
    case 'object': {
      const props = s.properties ?? {};
      const fields = new Map<string, MergeType>();
      const ap = s.additionalProperties;
      let element: MergeType | undefined;
      let elementBuilt = false;
      return {
        kind: 'map',
        atomic: s['x-kubernetes-map-type'] === 'atomic',
        field(name) {
          if (!Object.hasOwn(props, name)) return undefined;
          let f = fields.get(name);
          if (!f) fields.set(name, (f = mergeTypeOf(props[name], resolve, keyDefaults)));
          return f;
        },
        element() {
          if (!elementBuilt) {
            elementBuilt = true;
            if (typeof ap === 'object') element = mergeTypeOf(ap, resolve, keyDefaults);
            else if (ap === true || s['x-kubernetes-preserve-unknown-fields'] || !s.properties) element = untypedType;
          }
          return element;
        },
      };
    }
    default:
      return untypedType;
  }
}

/** The type of a map's entry `name`: its named field, else its element type. */
export function fieldType(t: MergeType, name: string): MergeType | undefined {
  if (t.kind === 'untyped') return untypedType;
  if (t.kind !== 'map') return undefined;
  return t.field(name) ?? t.element();
}

/** The concrete type an untyped node takes for a value: maps granular, lists atomic, the rest scalars. */
export function deduce(t: MergeType, value: unknown): MergeType {
  if (t.kind !== 'untyped') return t;
  if (Array.isArray(value)) return deducedList;
  if (value !== null && typeof value === 'object') return deducedMap;
  return { kind: 'scalar', scalar: 'any' };
}

const deducedList: MergeType = { kind: 'list', atomic: true, keys: [], keyDefaults: {}, item: () => untypedType };
const deducedMap: MergeType = { kind: 'map', atomic: false, field: () => undefined, element: () => untypedType };

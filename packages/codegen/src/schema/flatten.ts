/**
 * Inlines `$ref`s and merges `allOf`, as controller-gen's pkg/crd/flatten.go
 * does, so a CRD schema is one self-contained tree. A field that refers to a
 * type becomes `allOf: [typeSchema, fieldSchema]` (the field's description wins
 * when it has one), and every `allOf` is then merged into its parent; where the
 * two disagree on a value, both values stay in an `allOf`, as controller-gen
 * leaves them.
 */
import type { SourcePosition } from '../errors.js';
import { knownSchema } from './known-types.js';
import type { JSONSchemaProps } from './props.js';

export type SchemaSource = (id: string, pos?: SourcePosition) => JSONSchemaProps;

/** A deep copy of JSON data (several times faster than structuredClone on schemas). */
function clone<T>(v: T): T {
  if (Array.isArray(v)) return v.map(clone) as T;
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const k in v) out[k] = clone((v as Record<string, unknown>)[k]);
  return out as T;
}

/** Replaces every `$ref` in `schema` with the referenced schema, recursively. */
export class Flattener {
  private readonly flattened = new Map<string, JSONSchemaProps>();
  private readonly inProgress = new Set<string>();

  constructor(private readonly source: SchemaSource) {}

  /** The fully flattened schema of a declaration. */
  flattenType(id: string): JSONSchemaProps {
    return flattenAllOf(this.resolveRefs(clone(this.typeWithRefsResolved(id))));
  }

  private typeWithRefsResolved(id: string): JSONSchemaProps {
    const hit = this.flattened.get(id);
    if (hit) return hit;
    if (this.inProgress.has(id)) throw new Error(`type ${id} refers to itself: recursive types cannot be written as a CRD schema`);
    this.inProgress.add(id);
    const schema = this.resolveRefs(clone(knownSchema(id) ?? this.source(id)));
    this.inProgress.delete(id);
    this.flattened.set(id, schema);
    return schema;
  }

  private resolveRefs(schema: JSONSchemaProps): JSONSchemaProps {
    if (schema.$ref) {
      const typeSchema = clone(this.typeWithRefsResolved(schema.$ref));
      return preserveFields(typeSchema, schema);
    }
    if (schema.properties) for (const [k, v] of Object.entries(schema.properties)) schema.properties[k] = this.resolveRefs(v);
    if (schema.items) schema.items = this.resolveRefs(schema.items);
    if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
      schema.additionalProperties = this.resolveRefs(schema.additionalProperties);
    }
    if (schema.allOf) schema.allOf = schema.allOf.map((s) => this.resolveRefs(s));
    if (schema.anyOf) schema.anyOf = schema.anyOf.map((s) => this.resolveRefs(s));
    return schema;
  }
}

/** A field's schema over its type's: `allOf` of both, with the field's docs preferred. */
function preserveFields(typeSchema: JSONSchemaProps, field: JSONSchemaProps): JSONSchemaProps {
  const { description, title, example, $ref: _ref, ...rest } = field;
  const out: JSONSchemaProps = { allOf: [typeSchema, rest] };
  const keep = (key: 'description' | 'title' | 'example', fieldValue: unknown): void => {
    const value = fieldValue !== undefined && fieldValue !== '' ? fieldValue : typeSchema[key];
    if (value !== undefined && value !== '') (out as Record<string, unknown>)[key] = value;
  };
  keep('description', description);
  keep('title', title);
  keep('example', example);
  return out;
}

/** Keys whose zero value is "absent" (Go value fields); the others are pointers in Go, where 0 and false count. */
const VALUE_FIELDS = new Set([
  'type',
  'format',
  'pattern',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'uniqueItems',
  'nullable',
  'x-kubernetes-int-or-string',
  'x-kubernetes-embedded-resource',
]);

function isZero(key: string, v: unknown): boolean {
  if (v === undefined) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (VALUE_FIELDS.has(key)) return v === '' || v === false;
  return false;
}

/** Merges `src` into `dst` by controller-gen's flattenAllOfInto rules. */
function flattenAllOfInto(dst: JSONSchemaProps, src: JSONSchemaProps): void {
  for (const embedded of src.allOf ?? []) flattenAllOfInto(dst, embedded);
  const d = dst as Record<string, unknown>;
  const dstRemainder: Record<string, unknown> = {};
  const srcRemainder: Record<string, unknown> = {};
  let hoisted = false;
  for (const [key, value] of Object.entries(src)) {
    if (key === 'allOf' || key === 'description' || key === 'title' || key === 'example') continue;
    if (key === 'enum') {
      if (Array.isArray(value) && value.length > 0 && !(Array.isArray(dst.enum) && dst.enum.length > 0)) dst.enum = [...value];
      continue;
    }
    if (isZero(key, value)) continue;
    const current = d[key];
    if (isZero(key, current)) {
      d[key] = clone(value);
      continue;
    }
    // Go compares value fields; pointer fields (bounds, lengths, defaults) differ by address even when
    // equal, so controller-gen keeps both in an allOf: so do we, for the same output.
    if (VALUE_FIELDS.has(key) && current === value) continue;
    switch (key) {
      case 'properties': {
        const dstProps = current as Record<string, JSONSchemaProps>;
        for (const [name, prop] of Object.entries(value as Record<string, JSONSchemaProps>)) {
          if (!(name in dstProps)) dstProps[name] = clone(prop);
          else flattenAllOfInto(dstProps[name], prop);
        }
        break;
      }
      case 'required':
        d.required = [...(current as string[]), ...(value as string[])];
        break;
      case 'type':
        // controller-gen reports conflicting types and keeps the first.
        break;
      case 'additionalProperties': {
        if (typeof value !== 'object') break;
        const target = typeof current === 'object' ? (current as JSONSchemaProps) : (d.additionalProperties = {} as JSONSchemaProps);
        flattenAllOfInto(target, value as JSONSchemaProps);
        break;
      }
      case 'x-kubernetes-preserve-unknown-fields':
      case 'x-kubernetes-map-type':
        d[key] = value;
        break;
      case 'x-kubernetes-validations':
        d[key] = [...(value as unknown[]), ...(current as unknown[])];
        break;
      default:
        hoisted = true;
        srcRemainder[key] = value;
        dstRemainder[key] = current;
        delete d[key];
    }
  }
  if (hoisted) dst.allOf = [...(dst.allOf ?? []), dstRemainder as JSONSchemaProps, srcRemainder as JSONSchemaProps];
  if (dst.required && dst.required.length > 0) dst.required = [...new Set(dst.required)].sort();
}

/** Merges every `allOf` into its parent, top down (controller-gen's FlattenEmbedded). */
export function flattenAllOf(schema: JSONSchemaProps): JSONSchemaProps {
  if (schema.allOf) {
    const parts = schema.allOf;
    delete schema.allOf;
    for (const part of parts) flattenAllOfInto(schema, part);
  }
  for (const p of Object.values(schema.properties ?? {})) flattenAllOf(p);
  if (schema.items) flattenAllOf(schema.items);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') flattenAllOf(schema.additionalProperties);
  for (const s of schema.anyOf ?? []) flattenAllOf(s);
  return schema;
}

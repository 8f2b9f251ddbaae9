/**
 * What kube-apiserver serves is what Go's encoding/json makes of the object
 * decoded into its Go type, which differs from what the client sent at zero
 * values:
 *
 * - some fields are written though nobody set them (a struct field as `{}`, a
 *   zero metav1.Time as `null`, a field without omitempty as `""`, `0`,
 *   `false` or `null`): a pod template shows `metadata: {creationTimestamp:
 *   null}`, a pod condition `lastProbeTime: null`, an Event `source: {}`;
 * - fields tagged omitempty are left out at their zero value: a client's
 *   `hostNetwork: false`, `args: []` or `labels: {}` is not served back.
 *
 * Which fields, per definition, is generated from the Go types of k8s.io/api
 * v0.32.1 by `scripts/gen-go-encoded-zeros.ts` into `go-encoded-zeros.json`.
 */
import { readFileSync } from 'node:fs';
import type { SchemaResolver } from '@operant/apimachinery/schema';
import type { OpenApiSchema } from '@operant/apimachinery';
import { definitionOf, resolveSchemaOnce } from './builtin-schemas.js';

interface EncodedFields {
  /** Fields written at this value when unset. */
  written?: Record<string, unknown>;
  /** Fields left out at their zero value. */
  omitEmpty?: string[];
}

/** The file's table, read at the first object encoded (a start encodes none before it is ready). */
let fieldsByDefinition: Record<string, EncodedFields> | undefined;

/** A definition's fields as lists, made once per definition (the walk asks at every value of its type). */
const encodedFields = new Map<string, { omitEmpty: string[]; written: Array<[string, unknown]> } | null>();

function encodedFieldsOf(def: string): { omitEmpty: string[]; written: Array<[string, unknown]> } | undefined {
  let fields = encodedFields.get(def);
  if (fields === undefined) {
    fieldsByDefinition ??= (
      JSON.parse(readFileSync(new URL('./go-encoded-zeros.json', import.meta.url), 'utf8')) as { definitions: Record<string, EncodedFields> }
    ).definitions;
    const given = fieldsByDefinition[def];
    fields = given ? { omitEmpty: given.omitEmpty ?? [], written: Object.entries(given.written ?? {}) } : null;
    encodedFields.set(def, fields);
  }
  return fields ?? undefined;
}

/** A zero value of a string, number, bool, slice or map, as omitempty sees it. */
function isEmpty(v: unknown): boolean {
  if (v === '' || v === 0 || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === 'object' && v !== null && Object.keys(v).length === 0;
}

function walk(value: unknown, schema: OpenApiSchema | undefined, resolve: SchemaResolver, stored?: Record<string, unknown>): void {
  if (typeof value !== 'object' || value === null || !schema) return;
  const s = resolveSchemaOnce(schema, resolve);
  if (!s) return;
  if (Array.isArray(value)) {
    for (const item of value) walk(item, s.items, resolve);
    return;
  }
  const record = value as Record<string, unknown>;
  const def = definitionOf(schema);
  const fields = def === undefined ? undefined : encodedFieldsOf(def);
  if (fields) {
    for (const key of fields.omitEmpty) if (Object.hasOwn(record, key) && isEmpty(record[key])) delete record[key];
    for (const [key, zero] of fields.written) if (!Object.hasOwn(record, key)) record[key] = typeof zero === 'object' && zero !== null ? structuredClone(zero) : zero;
  }
  if (s.properties) {
    for (const key of Object.keys(record)) {
      // A value the stored object holds itself was encoded when that object was stored.
      if (stored !== undefined && record[key] === stored[key]) continue;
      if (Object.hasOwn(s.properties, key)) walk(record[key], s.properties[key], resolve);
    }
  } else if (typeof s.additionalProperties === 'object') {
    for (const key of Object.keys(record)) walk(record[key], s.additionalProperties, resolve);
  }
}

/**
 * Makes `obj` (an object of the kind `schema` describes), in place, what Go's
 * encoding writes for it at zero values. Top-level fields whose value is the
 * very value `stored` holds (an update that keeps them from the stored object)
 * are left as they are: they were encoded when that object was stored.
 */
export function encodeZerosAsGo(obj: unknown, schema: OpenApiSchema, resolve: SchemaResolver, stored?: object): void {
  walk(obj, schema, resolve, stored as Record<string, unknown> | undefined);
}

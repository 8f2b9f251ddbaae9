/**
 * The fields kube-apiserver serves that nobody set: every object is decoded
 * into its Go type and encoded back, and encoding/json writes some fields even
 * at their zero value (a struct field as `{}`, a zero metav1.Time as `null`,
 * a field without omitempty as `""`, `0`, `false` or `null`). So a pod
 * template shows `metadata: {creationTimestamp: null}`, a pod condition
 * `lastProbeTime: null`, an Event `source: {}` and `reportingComponent: ""`.
 * Which fields, per definition, is generated from the Go types of k8s.io/api
 * v0.32.1 by `scripts/gen-go-encoded-zeros.ts` into `go-encoded-zeros.json`.
 */
import { readFileSync } from 'node:fs';
import { resolveSchema, type OpenApiSchema, type SchemaResolver } from '@operant/apimachinery';
import { definitionOf } from './builtin-schemas.js';

const zerosByDefinition = (
  JSON.parse(readFileSync(new URL('./go-encoded-zeros.json', import.meta.url), 'utf8')) as { definitions: Record<string, Record<string, unknown>> }
).definitions;

function walk(value: unknown, schema: OpenApiSchema | undefined, resolve: SchemaResolver): void {
  if (typeof value !== 'object' || value === null || !schema) return;
  const s = resolveSchema(schema, resolve);
  if (!s) return;
  if (Array.isArray(value)) {
    for (const item of value) walk(item, s.items, resolve);
    return;
  }
  const record = value as Record<string, unknown>;
  const def = definitionOf(schema);
  const zeros = def === undefined ? undefined : zerosByDefinition[def];
  if (zeros) for (const [key, zero] of Object.entries(zeros)) if (!Object.hasOwn(record, key)) record[key] = structuredClone(zero);
  if (s.properties) {
    for (const key of Object.keys(record)) if (Object.hasOwn(s.properties, key)) walk(record[key], s.properties[key], resolve);
  } else if (typeof s.additionalProperties === 'object') {
    for (const key of Object.keys(record)) walk(record[key], s.additionalProperties, resolve);
  }
}

/** Adds, in place, the zero-valued fields Go's encoding writes for `obj`, an object of the kind `schema` describes. */
export function addGoEncodedZeros(obj: unknown, schema: OpenApiSchema, resolve: SchemaResolver): void {
  walk(obj, schema, resolve);
}

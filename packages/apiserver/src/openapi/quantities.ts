/**
 * Quantities written back as kube writes them: decoding a built-in object
 * into its Go type parses every resource.Quantity, the defaulters round every
 * ResourceList (a map of quantities: requests, limits, capacity, ...) up to a
 * thousandth (SetDefaults_ResourceList), and encoding prints each quantity in
 * canonical form. So `cpu: 0.5` is stored and served as `"500m"`, and
 * `memory: 1.5Gi` as `"1536Mi"`.
 */
import { canonicalQuantity, type OpenApiSchema } from '@operant/apimachinery';
import type { SchemaResolver } from '@operant/apimachinery/schema';
import { definitionOf, resolveSchemaOnce } from './builtin-schemas.js';

const quantityDef = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

function isQuantity(schema: OpenApiSchema | undefined): boolean {
  return definitionOf(schema) === quantityDef;
}

function canonical(value: unknown, roundToMilli: boolean): unknown {
  if (typeof value !== 'string' && typeof value !== 'number') return value;
  try {
    return canonicalQuantity(value, { roundToMilli });
  } catch {
    return value; // decoding reports it
  }
}

function walk(value: unknown, schema: OpenApiSchema | undefined, resolve: SchemaResolver): unknown {
  if (value === null || value === undefined || !schema) return value;
  if (isQuantity(schema)) return canonical(value, false);
  const s = resolveSchemaOnce(schema, resolve);
  if (!s || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = walk(value[i], s.items, resolve);
    return value;
  }
  const record = value as Record<string, unknown>;
  if (s.properties) {
    for (const key of Object.keys(record)) if (Object.hasOwn(s.properties, key)) record[key] = walk(record[key], s.properties[key], resolve);
  } else if (typeof s.additionalProperties === 'object') {
    const element = s.additionalProperties;
    const resourceList = isQuantity(element);
    for (const key of Object.keys(record)) record[key] = resourceList ? canonical(record[key], true) : walk(record[key], element, resolve);
  }
  return value;
}

/** Rewrites, in place, every quantity of `obj` (an object of the kind `schema` describes) in kube's canonical form. */
export function canonicalizeQuantities(obj: unknown, schema: OpenApiSchema, resolve: SchemaResolver): void {
  walk(obj, schema, resolve);
}

/**
 * The OpenAPI v3 schemas of the built-in kinds, generated from the
 * `kubernetes-types` declarations by `scripts/gen-builtin-schemas.ts` into
 * `builtin-schemas.json`, keyed by kube's definition names
 * (`io.k8s.api.core.v1.Pod`, `io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`, ...).
 */
import { readFileSync } from 'node:fs';
import type { OpenApiSchema } from '@operant/apimachinery';
import type { SchemaResolver } from '@operant/apimachinery/schema';

/** The prefix of every `$ref` into a document's `components.schemas`. */
export const schemaRefPrefix = '#/components/schemas/';

/** Every built-in definition, by name. Treat as read-only: it is shared. */
export const builtinSchemas: Record<string, OpenApiSchema> = JSON.parse(
  readFileSync(new URL('./builtin-schemas.json', import.meta.url), 'utf8'),
) as Record<string, OpenApiSchema>;

/** `#/components/schemas/<name>` for a definition name. */
export function schemaRef(name: string): string {
  return schemaRefPrefix + name;
}

/** The definition name of a `#/components/schemas/<name>` reference, or undefined for other references. */
export function definitionNameOfRef(ref: string): string | undefined {
  return ref.startsWith(schemaRefPrefix) ? ref.slice(schemaRefPrefix.length) : undefined;
}

/** The definition a schema names, directly (`$ref`) or through `allOf: [{ $ref }]`, or undefined. */
export function definitionOf(schema: OpenApiSchema | undefined): string | undefined {
  const ref = schema?.$ref ?? (schema?.allOf?.length === 1 ? schema.allOf[0].$ref : undefined);
  return ref === undefined ? undefined : definitionNameOfRef(ref);
}

/**
 * A resolver of `#/components/schemas/<name>` references into `schemas`
 * (the built-ins by default; pass a merged record to add CRD schemas).
 */
export function schemaResolver(schemas: Record<string, OpenApiSchema> = builtinSchemas): SchemaResolver {
  return (ref) => {
    const name = definitionNameOfRef(ref);
    return name !== undefined && Object.hasOwn(schemas, name) ? schemas[name] : undefined;
  };
}

/** Resolves references to the built-in definitions. */
export const resolveBuiltinSchema: SchemaResolver = schemaResolver(builtinSchemas);

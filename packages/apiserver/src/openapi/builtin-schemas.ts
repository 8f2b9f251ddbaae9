/**
 * The OpenAPI v3 schemas of the built-in kinds, generated from the
 * `kubernetes-types` declarations by `scripts/gen-builtin-schemas.ts` into
 * `builtin-schemas.json`, keyed by kube's definition names
 * (`io.k8s.api.core.v1.Pod`, `io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`, ...).
 *
 * The file holds some 500 definitions (about 1 MB); a server's start needs a
 * few dozen of them. Each is parsed at its first use, from its own span of the
 * file: parsing them all took a tenth of the start-up time.
 */
import { readFileSync } from 'node:fs';
import type { OpenApiSchema } from '@operant/apimachinery';
import { resolveSchema, type SchemaResolver } from '@operant/apimachinery/schema';

/** The prefix of every `$ref` into a document's `components.schemas`. */
export const schemaRefPrefix = '#/components/schemas/';

const file = new URL('./builtin-schemas.json', import.meta.url);

/** The definitions: each one's bytes in the file until it is first asked for, then the parsed schema. */
interface Definitions {
  bytes: Buffer;
  /** Byte offsets of each definition's JSON value. */
  spans: Map<string, { start: number; end: number }>;
  parsed: Map<string, OpenApiSchema>;
}

let definitions: Definitions | undefined;
let all: Record<string, OpenApiSchema> | undefined;

/**
 * Finds each definition's value in the file without parsing it. The file is
 * pretty-printed JSON (so the generator writes it, and so tsc copies it to
 * dist/, re-indented): every top-level key starts a line at one indentation,
 * and nothing inside a value can (deeper lines are indented further, and a
 * string holds no line break). A file in any other shape is parsed whole.
 */
function load(): Definitions {
  if (definitions) return definitions;
  const bytes = readFileSync(file);
  const spans = new Map<string, { start: number; end: number }>();
  const parsed = new Map<string, OpenApiSchema>();
  const indent = /^\{\r?\n([ \t]+)"/.exec(bytes.toString('latin1', 0, 64))?.[1];
  if (indent === undefined) {
    for (const [name, schema] of Object.entries(JSON.parse(bytes.toString('utf8')) as Record<string, OpenApiSchema>)) parsed.set(name, schema);
    return (definitions = { bytes, spans, parsed });
  }
  const keyLine = Buffer.from(`\n${indent}"`, 'latin1');
  let at = bytes.indexOf(keyLine);
  while (at >= 0) {
    const nameStart = at + keyLine.length;
    const nameEnd = bytes.indexOf(0x22 /* " */, nameStart);
    const colon = bytes.indexOf(0x3a /* : */, nameEnd);
    const next = bytes.indexOf(keyLine, colon);
    // The value runs to the comma before the next key, or to the closing brace of the file.
    const end = next >= 0 ? bytes.lastIndexOf(0x2c /* , */, next) : bytes.lastIndexOf(0x7d /* } */);
    spans.set(bytes.toString('latin1', nameStart, nameEnd), { start: colon + 1, end });
    at = next;
  }
  return (definitions = { bytes, spans, parsed });
}

/** The built-in definition `name`, parsed at its first use; undefined when there is none. Treat as read-only: it is shared. */
export function builtinSchema(name: string): OpenApiSchema | undefined {
  const d = load();
  let schema = d.parsed.get(name);
  if (schema === undefined) {
    const span = d.spans.get(name);
    if (span === undefined) return undefined;
    schema = JSON.parse(d.bytes.toString('utf8', span.start, span.end)) as OpenApiSchema;
    d.parsed.set(name, schema);
  }
  return schema;
}

/** Whether there is a built-in definition `name` (without parsing it). */
export function hasBuiltinSchema(name: string): boolean {
  const d = load();
  return d.spans.has(name) || d.parsed.has(name);
}

/** The names of every built-in definition, in the file's (sorted) order. */
export function builtinSchemaNames(): string[] {
  const d = load();
  return d.spans.size ? [...d.spans.keys()] : [...d.parsed.keys()];
}

/** Every built-in definition, by name: all of them parsed, for the documents that carry them. Treat as read-only: it is shared. */
export function allBuiltinSchemas(): Record<string, OpenApiSchema> {
  if (!all) {
    const out: Record<string, OpenApiSchema> = {};
    for (const name of builtinSchemaNames()) out[name] = builtinSchema(name)!;
    all = out;
  }
  return all;
}

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

/** Resolves references to the built-in definitions. */
export const resolveBuiltinSchema: SchemaResolver = (ref) => {
  const name = definitionNameOfRef(ref);
  return name === undefined ? undefined : builtinSchema(name);
};

/** Each schema object's resolution through resolveBuiltinSchema (null: none), as the walkers over objects ask it per value. */
const resolvedBuiltins = new WeakMap<OpenApiSchema, OpenApiSchema | null>();

/**
 * resolveSchema, remembered per schema object when `resolve` is
 * resolveBuiltinSchema: the built-in definitions are parsed once and never
 * change, so a walk over a pod resolves each of its schemas once, not at each value.
 */
export function resolveSchemaOnce(schema: OpenApiSchema | undefined, resolve: SchemaResolver): OpenApiSchema | undefined {
  if (resolve !== resolveBuiltinSchema || schema === undefined) return resolveSchema(schema, resolve);
  let s = resolvedBuiltins.get(schema);
  if (s === undefined) resolvedBuiltins.set(schema, (s = resolveSchema(schema, resolve) ?? null));
  return s ?? undefined;
}

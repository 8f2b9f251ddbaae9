/**
 * A schema node read once into plain fields, so that validating, pruning and
 * defaulting many objects does not re-read JSON keys on every value. Compiled nodes
 * are cached per schema object: schemas must not be mutated after first use (CRD
 * schemas are replaced, never edited in place).
 */
import type { OpenApiSchema } from '../openapi-schema.js';
import { isSupportedFormat } from './formats.js';
import { compileGoRegexp, type GoRegexp } from './go-regexp.js';
import {
  additionalPropertiesOf,
  hasDefault,
  isEmbeddedResource,
  isIntOrString,
  isObject,
  itemsSchema,
  junctor,
  notOf,
  numberKeyword,
  preservesUnknownFields,
  propertiesOf,
  raw,
  stringKeyword,
  typeOf,
} from './schema-node.js';

/** One schema node, compiled. */
export interface CompiledSchema {
  readonly schema: OpenApiSchema;
  /** Accepted types; int-or-string nodes accept `integer` and `string`. */
  readonly types: string[];
  readonly nullable: boolean;
  /** The format as written, when kube validates it for CRDs; `''` otherwise. */
  readonly format: string;
  readonly properties: ReadonlyMap<string, CompiledSchema>;
  readonly required: readonly string[];
  /** additionalProperties: undefined when unset. */
  readonly additionalProperties: { readonly schema: CompiledSchema | undefined; readonly allows: boolean } | undefined;
  readonly items: CompiledSchema | undefined;
  readonly allOf: readonly CompiledSchema[];
  readonly anyOf: readonly CompiledSchema[];
  readonly oneOf: readonly CompiledSchema[];
  readonly not: CompiledSchema | undefined;
  readonly hasJunctors: boolean;
  readonly enum: readonly unknown[] | undefined;
  readonly minimum: number | undefined;
  readonly maximum: number | undefined;
  readonly exclusiveMinimum: boolean;
  readonly exclusiveMaximum: boolean;
  readonly multipleOf: number | undefined;
  readonly minLength: number | undefined;
  readonly maxLength: number | undefined;
  readonly pattern: string;
  /** The compiled pattern, or Go's compile error. */
  readonly patternRegexp: GoRegexp | string | undefined;
  readonly minItems: number | undefined;
  readonly maxItems: number | undefined;
  readonly uniqueItems: boolean;
  readonly minProperties: number | undefined;
  readonly maxProperties: number | undefined;
  readonly hasStringChecks: boolean;
  readonly hasNumberChecks: boolean;
  readonly hasDefault: boolean;
  readonly embeddedResource: boolean;
  readonly preserveUnknownFields: boolean;
  readonly listType: string | undefined;
  readonly listMapKeys: readonly string[];
}

const cache = new WeakMap<OpenApiSchema, CompiledSchema>();

/** The compiled form of `s`, built once per schema object. */
export function compileSchema(s: OpenApiSchema): CompiledSchema {
  const hit = cache.get(s);
  if (hit) return hit;
  const r = raw(s);
  const type = typeOf(s);
  const format = stringKeyword(s, 'format');
  const pattern = stringKeyword(s, 'pattern');
  const minLength = numberKeyword(s, 'minLength');
  const maxLength = numberKeyword(s, 'maxLength');
  const minimum = numberKeyword(s, 'minimum');
  const maximum = numberKeyword(s, 'maximum');
  const multipleOf = numberKeyword(s, 'multipleOf');
  const listType = r['x-kubernetes-list-type'];
  const mapKeys = r['x-kubernetes-list-map-keys'];
  const required = r.required;
  const values = r.enum;
  const node = {
    schema: s,
    types: isIntOrString(s) ? ['integer', 'string'] : type ? [type] : [],
    nullable: s.nullable === true,
    format: isSupportedFormat(format) ? format : '',
    properties: new Map<string, CompiledSchema>(),
    required: Array.isArray(required) ? required.filter((k): k is string => typeof k === 'string') : [],
    additionalProperties: undefined as CompiledSchema['additionalProperties'],
    items: undefined as CompiledSchema | undefined,
    allOf: [] as CompiledSchema[],
    anyOf: [] as CompiledSchema[],
    oneOf: [] as CompiledSchema[],
    not: undefined as CompiledSchema | undefined,
    hasJunctors: false,
    enum: Array.isArray(values) && values.length > 0 ? values : undefined,
    minimum,
    maximum,
    exclusiveMinimum: s.exclusiveMinimum === true,
    exclusiveMaximum: s.exclusiveMaximum === true,
    multipleOf,
    minLength,
    maxLength,
    pattern,
    patternRegexp: pattern ? compileGoRegexp(pattern) : undefined,
    minItems: numberKeyword(s, 'minItems'),
    maxItems: numberKeyword(s, 'maxItems'),
    uniqueItems: s.uniqueItems === true,
    minProperties: numberKeyword(s, 'minProperties'),
    maxProperties: numberKeyword(s, 'maxProperties'),
    hasStringChecks: minLength !== undefined || maxLength !== undefined || pattern !== '',
    hasNumberChecks: minimum !== undefined || maximum !== undefined || multipleOf !== undefined,
    hasDefault: hasDefault(s),
    embeddedResource: isEmbeddedResource(s),
    preserveUnknownFields: preservesUnknownFields(s),
    listType: typeof listType === 'string' ? listType : undefined,
    listMapKeys: Array.isArray(mapKeys) ? mapKeys.filter((k): k is string => typeof k === 'string') : [],
  };
  // Cached before the children are compiled, so that a schema that contains itself terminates.
  cache.set(s, node);
  for (const [k, p] of Object.entries(propertiesOf(s))) if (isObject(p)) node.properties.set(k, compileSchema(p));
  const ap = additionalPropertiesOf(s);
  if (ap) node.additionalProperties = { schema: ap.schema ? compileSchema(ap.schema) : undefined, allows: ap.allows };
  const items = itemsSchema(s);
  if (items) node.items = compileSchema(items);
  node.allOf = junctor(s, 'allOf').map(compileSchema);
  node.anyOf = junctor(s, 'anyOf').map(compileSchema);
  node.oneOf = junctor(s, 'oneOf').map(compileSchema);
  const not = notOf(s);
  if (not) node.not = compileSchema(not);
  node.hasJunctors = node.allOf.length > 0 || node.anyOf.length > 0 || node.oneOf.length > 0 || node.not !== undefined;
  return node;
}

/** The compiled form of an optional schema. */
export function compileOptional(s: OpenApiSchema | undefined): CompiledSchema | undefined {
  return s ? compileSchema(s) : undefined;
}

/**
 * Type checking of request objects against their OpenAPI schema, as decoding
 * into kube's Go types checks them: a value of the wrong JSON type fails the
 * whole request with encoding/json's words,
 *
 *   `json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`
 *
 * (the struct is the innermost Go struct, the field the JSON path from the
 * root without list indexes or map keys), and the types with their own
 * decoders fail with theirs (Quantity, IntOrString, Time, base64 `[]byte`).
 * `null` is accepted everywhere and normalized as Go decodes it: a struct field
 * set to null is dropped (left at its zero value, which kube omits), a null in a
 * list or map becomes its element's zero value (`""`, `0`, `false`, `{}`).
 * Unknown fields are not looked at here (see unknown-fields.ts). Like Go's
 * decoder, the first error in document order is the one reported.
 *
 * A strategic merge patch is not decoded from JSON: kube merges maps and turns
 * the result into the Go type with runtime.DefaultUnstructuredConverter, whose
 * words differ for values of the wrong type (`cannot restore map from string`,
 * `cannot convert int64 to string`, `unrecognized type: int32`). The
 * `unstructured` dialect speaks those. It names every string type `string`,
 * where the converter names Go's named ones (`cannot convert int64 to v1.Protocol`):
 * the schemas do not know them.
 */
import type { SchemaResolver } from '@operant/apimachinery/schema';
import type { OpenApiSchema } from '@operant/apimachinery';
import { definitionOf, resolveSchemaOnce } from './builtin-schemas.js';

const quantityDef = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const intOrStringDef = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';

const quantityPattern = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const quantityFormatError = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const quantitySuffixes = new Set(['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei', 'n', 'u', 'm', 'k', 'M', 'G', 'T', 'P', 'E']);

class DecodeError {
  constructor(readonly message: string) {}
}

/** Whose words a type error is in: encoding/json's, or runtime.DefaultUnstructuredConverter's. */
export type DecodeDialect = 'json' | 'unstructured';

/** Where the walk is; one per walk, changed as it goes in and out of fields (errors read it when they happen). */
interface Context {
  /** The Go name of the innermost struct. */
  struct: string;
  /** JSON field names from the root. */
  fields: string[];
  dialect: DecodeDialect;
}

/** Go's package-qualified name of a definition: `io.k8s.api.core.v1.Container` → `v1.Container`. */
function goNameOfDefinition(def: string): string {
  return def.split('.').slice(-2).join('.');
}

function goType(schema: OpenApiSchema | undefined, resolve: SchemaResolver): string {
  if (!schema) return 'interface {}';
  const def = definitionOf(schema);
  if (def) return goNameOfDefinition(def);
  const s = resolveSchemaOnce(schema, resolve) ?? schema;
  switch (s.type) {
    case 'string':
      return s.format === 'byte' ? '[]uint8' : 'string';
    case 'integer':
      return s.format === 'int32' ? 'int32' : s.format === 'int64' ? 'int64' : 'int';
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
    case 'array':
      return `[]${goType(s.items, resolve)}`;
    default:
      if (s.additionalProperties && typeof s.additionalProperties === 'object') return `map[string]${goType(s.additionalProperties, resolve)}`;
      return 'map[string]interface {}';
  }
}

/** What encoding/json calls a JSON value in UnmarshalTypeError (`number 1.5` when a number does not fit). */
function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

function mismatch(value: unknown, schema: OpenApiSchema, ctx: Context, resolve: SchemaResolver, kind = jsonKind(value)): DecodeError {
  const type = goType(schema, resolve);
  if (ctx.fields.length === 0) return new DecodeError(`json: cannot unmarshal ${kind} into Go value of type ${type}`);
  return new DecodeError(`json: cannot unmarshal ${kind} into Go struct field ${ctx.struct}.${ctx.fields.join('.')} of type ${type}`);
}

/** The reflect.Kind of a value decoded into `interface{}` with integers preserved, as the converter names it. */
function unstructuredKind(value: unknown): string {
  if (Array.isArray(value)) return 'slice';
  if (typeof value === 'object') return 'map';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  return typeof value === 'boolean' ? 'bool' : 'string';
}

/**
 * The converter's error for a value of the wrong type in a field of Go kind `target`
 * (fromUnstructured: JSON's four scalar groups do not convert into each other, and a
 * kind Go cannot convert at all ends in `unrecognized type`).
 */
function unstructuredMismatch(value: unknown, target: string): DecodeError | undefined {
  const source = unstructuredKind(value);
  if (source === 'map' || source === 'slice' || source === 'bool' || (source === 'float64' && target === 'string')) {
    return source === 'bool' && target === 'bool' ? undefined : new DecodeError(`unrecognized type: ${target}`);
  }
  if (source === 'string') return target === 'string' ? undefined : new DecodeError(`unrecognized type: ${target}`);
  // int64 and float64 convert to every number kind (a fraction only to floats); int64 also to string, which the converter refuses.
  if (target === 'float64' || (source === 'int64' && target !== 'string' && target !== 'bool')) return undefined;
  if (source === 'float64' && target !== 'bool' && Number.isInteger(value)) return undefined;
  if (target === 'bool') return new DecodeError('unrecognized type: bool');
  return new DecodeError(`cannot convert ${source} to ${target}`);
}

function integerFits(value: number, format: string | undefined): boolean {
  if (!Number.isInteger(value)) return false;
  if (format === 'int32') return value >= -2147483648 && value <= 2147483647;
  return Math.abs(value) <= 9223372036854775807;
}

/** The byte base64.StdEncoding.Decode reports as illegal, or -1 when `text` decodes. */
function illegalBase64Byte(text: string): number {
  let count = 0;
  let padding = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\r' || c === '\n') continue;
    if (c === '=') {
      if (padding < 0) {
        if (count % 4 < 2) return i;
        padding = count;
      }
      count++;
      continue;
    }
    if (padding >= 0 || !/[A-Za-z0-9+/]/.test(c)) return i;
    count++;
  }
  if (count % 4 !== 0) return text.length - (count % 4);
  return -1;
}

function checkQuantity(value: unknown): DecodeError | undefined {
  if (typeof value === 'number') return undefined;
  const text = typeof value === 'string' ? value.trim() : '';
  const m = quantityPattern.exec(text);
  if (typeof value !== 'string' || !m) return new DecodeError(quantityFormatError);
  const suffix = m[2];
  if (!quantitySuffixes.has(suffix) && !/^[eE][-+]?[0-9]+$/.test(suffix)) return new DecodeError("unable to parse quantity's suffix");
  if (!/^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)$/.test(m[1])) return new DecodeError('unable to parse numeric part of quantity');
  return undefined;
}

function checkIntOrString(value: unknown): DecodeError | undefined {
  if (typeof value === 'string') return undefined;
  if (typeof value === 'number') return integerFits(value, 'int32') ? undefined : new DecodeError(`json: cannot unmarshal number ${String(value)} into Go value of type int32`);
  return new DecodeError(`json: cannot unmarshal ${jsonKind(value)} into Go value of type int32`);
}

/** The zero value Go gives a list or map element decoded from null, or undefined to keep the null. */
function zeroValue(schema: OpenApiSchema | undefined, resolve: SchemaResolver): unknown {
  if (!schema) return undefined;
  const def = definitionOf(schema);
  if (def === quantityDef) return '0';
  if (def === intOrStringDef) return 0;
  const s = resolveSchemaOnce(schema, resolve);
  if (!s || s['x-kubernetes-preserve-unknown-fields'] === true) return undefined;
  switch (s.type) {
    case 'string':
      return s.format === 'byte' || s.format === 'date-time' ? undefined : '';
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return false;
    case 'object':
      return s.properties ? {} : undefined;
    default:
      return undefined;
  }
}

/** Go struct names by definition (`io.k8s.api.core.v1.PodSpec` → `PodSpec`). */
const structNames = new Map<string, string>();

function structName(def: string): string {
  let name = structNames.get(def);
  if (name === undefined) structNames.set(def, (name = def.slice(def.lastIndexOf('.') + 1)));
  return name;
}

function check(value: unknown, schema: OpenApiSchema | undefined, ctx: Context, resolve: SchemaResolver): DecodeError | undefined {
  if (value === null || value === undefined || !schema) return undefined;
  const def = definitionOf(schema);
  if (def === quantityDef) return checkQuantity(value);
  if (def === intOrStringDef) return checkIntOrString(value);
  const s = resolveSchemaOnce(schema, resolve);
  if (!s) return undefined;
  if (s['x-kubernetes-int-or-string'] === true) return checkIntOrString(value);
  if (s['x-kubernetes-preserve-unknown-fields'] === true && !s.properties) return undefined; // RawExtension, JSON, FieldsV1
  switch (s.type) {
    case 'string':
      if (typeof value !== 'string') {
        // metav1.Time and MicroTime decode the JSON string themselves, without field context.
        if (s.format === 'date-time') return new DecodeError(`json: cannot unmarshal ${jsonKind(value)} into Go value of type string`);
        if (ctx.dialect === 'unstructured') {
          return s.format === 'byte' ? new DecodeError(`cannot restore slice from ${unstructuredKind(value)}`) : unstructuredMismatch(value, 'string');
        }
        return mismatch(value, schema, ctx, resolve);
      }
      if (s.format === 'byte') {
        const at = illegalBase64Byte(value);
        // The converter reads a []byte by encoding the string to JSON and decoding it again.
        if (at >= 0) return new DecodeError(`${ctx.dialect === 'unstructured' ? 'error decoding from json: ' : ''}illegal base64 data at input byte ${at}`);
      }
      return undefined;
    case 'integer':
      if (ctx.dialect === 'unstructured') return unstructuredMismatch(value, goType(s, resolve));
      if (typeof value !== 'number') return mismatch(value, schema, ctx, resolve);
      return integerFits(value, s.format) ? undefined : mismatch(value, schema, ctx, resolve, `number ${String(value)}`);
    case 'number':
      if (ctx.dialect === 'unstructured') return unstructuredMismatch(value, 'float64');
      return typeof value === 'number' ? undefined : mismatch(value, schema, ctx, resolve);
    case 'boolean':
      if (ctx.dialect === 'unstructured') return unstructuredMismatch(value, 'bool');
      return typeof value === 'boolean' ? undefined : mismatch(value, schema, ctx, resolve);
    case 'array': {
      if (!Array.isArray(value)) {
        return ctx.dialect === 'unstructured' ? new DecodeError(`cannot restore slice from ${unstructuredKind(value)}`) : mismatch(value, schema, ctx, resolve);
      }
      for (let i = 0; i < value.length; i++) {
        if (value[i] === null) {
          const zero = zeroValue(s.items, resolve);
          if (zero !== undefined) value[i] = zero;
          continue;
        }
        const err = check(value[i], s.items, ctx, resolve);
        if (err) return err;
      }
      return undefined;
    }
    case 'object':
    case undefined: {
      if (!s.properties && !(s.additionalProperties && typeof s.additionalProperties === 'object')) {
        if (s.type === undefined) return undefined; // says nothing about the value
      }
      if (typeof value !== 'object' || Array.isArray(value)) {
        if (ctx.dialect === 'json') return mismatch(value, schema, ctx, resolve);
        const kind = unstructuredKind(value);
        return new DecodeError(s.properties ? `cannot restore struct from: ${kind}` : `cannot restore map from ${kind}`);
      }
      const record = value as Record<string, unknown>;
      if (s.properties) {
        // The context is the walk's own: each field's name is pushed for its value's check and popped after.
        const outer = ctx.struct;
        const struct = def ? structName(def) : outer;
        for (const key of Object.keys(record)) {
          if (!Object.hasOwn(s.properties, key)) continue;
          if (record[key] === null) {
            delete record[key];
            continue;
          }
          ctx.struct = struct;
          ctx.fields.push(key);
          const err = check(record[key], s.properties[key], ctx, resolve);
          ctx.fields.pop();
          ctx.struct = outer;
          if (err) return err;
        }
        return undefined;
      }
      if (s.additionalProperties && typeof s.additionalProperties === 'object') {
        for (const key of Object.keys(record)) {
          if (record[key] === null) {
            const zero = zeroValue(s.additionalProperties, resolve);
            if (zero !== undefined) record[key] = zero;
            continue;
          }
          const err = check(record[key], s.additionalProperties, ctx, resolve);
          if (err) return err;
        }
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

/**
 * The error decoding `obj` into the Go type of `schema` would give, or undefined;
 * normalizes the nulls of `obj` in place as decoding does.
 *
 * @param obj the decoded request object
 * @param schema the kind's schema, or a `$ref` to it
 * @param resolve resolves `$ref`s (e.g. `resolveBuiltinSchema`)
 * @param kind the Go struct of the root (the kind, e.g. `Deployment`)
 * @param dialect `unstructured` for a strategic merge patch's result, which kube converts rather than decodes
 */
export function findTypeError(obj: unknown, schema: OpenApiSchema, resolve: SchemaResolver, kind: string, dialect: DecodeDialect = 'json'): string | undefined {
  return check(obj, schema, { struct: kind, fields: [], dialect }, resolve)?.message;
}

/**
 * The OpenAPI value checks kube applies to custom resources (kube-openapi's
 * SchemaValidator, as apiextensions configures it), with its messages, its order of
 * checks, its anyOf/oneOf error selection and its translation into field errors.
 */
import type { FieldError } from '../field-errors.js';
import { jsonEqual } from '../object.js';
import type { OpenApiSchema } from '../openapi-schema.js';
import { compileOptional, type CompiledSchema } from './compiled.js';
import { checkFormat } from './formats.js';
import { goFloat, goInt, goJson, goQuote, isIntegral } from './go-text.js';
import { childPath } from './paths.js';

type Code =
  | 'invalidType'
  | 'required'
  | 'tooLong'
  | 'tooShort'
  | 'pattern'
  | 'enum'
  | 'multipleOf'
  | 'max'
  | 'min'
  | 'unique'
  | 'maxItems'
  | 'minItems'
  | 'tooFewProperties'
  | 'tooManyProperties'
  | 'unallowedProperty'
  | 'multipleOfMustBePositive'
  /** anyOf/oneOf/allOf/not summaries: plain errors without a field of their own. */
  | 'composite';

interface OpenApiError {
  code: Code;
  /** kube-openapi's dotted name of the value, e.g. `spec.items[0].name`. */
  name: string;
  message: string;
  value?: unknown;
  /** The limit of maxLength/maxItems/maxProperties errors. */
  limit?: number;
  /** The allowed values of enum errors. */
  values?: unknown[];
}

/** kube-openapi's Result: errors (unique by message) and the match count that ranks anyOf/oneOf branches. */
class Result {
  errors: OpenApiError[] = [];
  matchCount = 0;

  add(e: OpenApiError): void {
    for (const seen of this.errors) if (seen.message === e.message) return;
    this.errors.push(e);
  }

  merge(other: Result | undefined): this {
    if (other) {
      for (const e of other.errors) this.add(e);
      this.matchCount += other.matchCount;
    }
    return this;
  }

  get valid(): boolean {
    return this.errors.length === 0;
  }
}

function failure(e: OpenApiError): Result {
  const r = new Result();
  r.errors.push(e);
  return r;
}

type Kind = 'string' | 'int' | 'float' | 'bool' | 'slice' | 'map';

function kindOf(v: unknown): Kind {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return isIntegral(v) ? 'int' : 'float';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'slice';
  return 'map';
}

const maxJSONFloat = 2 ** 53 - 1;

/** swag.IsFloat64AJSONInteger: whether a float is (close enough to) an integer. */
function isJSONInteger(f: number): boolean {
  if (!Number.isFinite(f) || f < -maxJSONFloat || f > maxJSONFloat) return false;
  if (Number.isInteger(f)) return true;
  if (f < 0) return false;
  const g = Math.trunc(f);
  const diff = Math.abs(f - g);
  if (g === 0) return diff < 1e-9 * Number.MIN_VALUE;
  return diff / (Math.abs(f) + g) < 1e-9;
}

function invalidType(path: string, typeName: string, value: string): OpenApiError {
  return { code: 'invalidType', name: path, value, message: `${path} in body must be of type ${typeName}: ${goQuote(value)}` };
}

const schemaTypes: Record<Kind, [string, string]> = {
  string: ['string', ''],
  int: ['integer', 'int64'],
  float: ['number', 'float64'],
  bool: ['boolean', ''],
  slice: ['array', ''],
  map: ['object', ''],
};

function validateType(s: CompiledSchema, path: string, data: unknown): Result {
  const { types, format } = s;
  const result = new Result();
  result.matchCount++;
  if (data === null || data === undefined) {
    if (types.length > 0 && !types.includes('null') && !s.nullable) return failure(invalidType(path, types.join(','), 'null'));
    return result;
  }
  const kind = kindOf(data);
  const [schType, dataFormat] = schemaTypes[kind];
  const isFloatInt = schType === 'number' && isJSONInteger(data as number) && types.includes('integer');
  const isIntFloat = schType === 'integer' && types.includes('number');
  if (
    kind !== 'string' &&
    kind !== 'slice' &&
    format !== '' &&
    !(types.includes(schType) || dataFormat === format || isFloatInt || isIntFloat)
  ) {
    return failure(invalidType(path, format, dataFormat));
  }
  if (!(types.includes('number') || types.includes('integer')) && format !== '' && (kind === 'string' || kind === 'slice')) {
    return result;
  }
  if (!(types.includes(schType) || isFloatInt || isIntFloat)) return failure(invalidType(path, types.join(','), schType));
  return result;
}

function validateString(s: CompiledSchema, path: string, data: string): Result | undefined {
  if (!s.hasStringChecks) return undefined;
  const { maxLength, minLength, pattern } = s;
  // kube counts characters (runes), though its message says bytes.
  const runes = maxLength !== undefined || minLength !== undefined ? [...data].length : 0;
  if (maxLength !== undefined && runes > maxLength) {
    const max = Math.trunc(maxLength);
    return failure({
      code: 'tooLong',
      name: path,
      value: data,
      limit: max,
      message: `${path} in body should be at most ${goInt(max)} chars long`,
    });
  }
  if (minLength !== undefined && runes < minLength) {
    return failure({
      code: 'tooShort',
      name: path,
      value: data,
      message: `${path} in body should be at least ${goInt(Math.trunc(minLength))} chars long`,
    });
  }
  const re = s.patternRegexp;
  if (re !== undefined) {
    if (typeof re === 'string') {
      return failure({
        code: 'pattern',
        name: path,
        value: data,
        message: `${path} in body should match '${pattern}, but pattern is invalid: ${re}'`,
      });
    }
    if (!re.test(data)) return failure({
      code: 'pattern',
      name: path,
      value: data,
      message: `${path} in body should match '${pattern}'`,
    });
  }
  return undefined;
}

function validateNumber(s: CompiledSchema, path: string, data: number): Result {
  const res = new Result();
  res.matchCount++;
  if (!s.hasNumberChecks) return res;
  const isInt = isIntegral(data);
  const { multipleOf, maximum, minimum } = s;
  if (multipleOf !== undefined) {
    const intFactor = Math.trunc(multipleOf);
    if (isInt && intFactor !== 0) {
      if (intFactor < 0) {
        res.add({
          code: 'multipleOfMustBePositive',
          name: path,
          value: intFactor,
          message: `factor MultipleOf declared for ${path} must be positive: ${goInt(intFactor)}`,
        });
      } else if (data % intFactor !== 0) {
        res.add({
          code: 'multipleOf',
          name: path,
          value: data,
          message: `${path} in body should be a multiple of ${goInt(intFactor)}`,
        });
      }
    } else if (multipleOf < 0) {
      res.add({
        code: 'multipleOfMustBePositive',
        name: path,
        value: multipleOf,
        message: `factor MultipleOf declared for ${path} must be positive: ${goFloat(multipleOf)}`,
      });
    } else {
      const mult = multipleOf < 1 ? (1 / multipleOf) * data : data / multipleOf;
      if (!isJSONInteger(mult)) {
        res.add({
          code: 'multipleOf',
          name: path,
          value: data,
          message: `${path} in body should be a multiple of ${goFloat(multipleOf)}`,
        });
      }
    }
  }
  // Integers compare against the bound truncated to int64, as kube's native-type checks do.
  if (minimum !== undefined) {
    const min = isInt ? Math.trunc(minimum) : minimum;
    const exclusive = s.exclusiveMinimum;
    if ((!exclusive && data < min) || (exclusive && data <= min)) {
      const text = isInt ? goInt(min) : goFloat(min);
      res.add({
        code: 'min',
        name: path,
        value: data,
        message: `${path} in body should be greater than ${exclusive ? '' : 'or equal to '}${text}`,
      });
    }
  }
  if (maximum !== undefined) {
    const max = isInt ? Math.trunc(maximum) : maximum;
    const exclusive = s.exclusiveMaximum;
    if ((!exclusive && data > max) || (exclusive && data >= max)) {
      const text = isInt ? goInt(max) : goFloat(max);
      res.add({
        code: 'max',
        name: path,
        value: data,
        message: `${path} in body should be less than ${exclusive ? '' : 'or equal to '}${text}`,
      });
    }
  }
  return res;
}

/**
 * The old value a node of the new object correlates with, on update (kube's
 * CorrelatedObject): object fields and map values by key, items of
 * `x-kubernetes-list-type: map` lists by their keys; nothing else correlates.
 */
interface Correlation {
  readonly old: unknown;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function keyCorrelation(old: unknown, key: string): Correlation | undefined {
  return isPlainObject(old) && Object.hasOwn(old, key) && old[key] !== undefined ? { old: old[key] } : undefined;
}

function listMapKeyEqual(keys: readonly string[], a: unknown, b: unknown): boolean {
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  return keys.every((k) => jsonEqual(a[k], b[k]));
}

function itemCorrelation(s: CompiledSchema, old: unknown, item: unknown): Correlation | undefined {
  if (s.listType !== 'map' || !Array.isArray(old)) return undefined;
  const found = old.find((o) => listMapKeyEqual(s.listMapKeys, o, item));
  return found === undefined ? undefined : { old: found };
}

/**
 * kube's CachedDeepEqual of a correlated node: lists of type map compare item by key
 * (order does not matter), other lists as a whole; an object field without a schema
 * does not correlate, so its object is not equal.
 */
function correlatedEqual(old: unknown, now: unknown, s: CompiledSchema | undefined): boolean {
  if ((old === null || old === undefined) && (now === null || now === undefined)) return true;
  if (Array.isArray(old) && Array.isArray(now)) {
    if (old.length !== now.length) return false;
    if (s?.listType !== 'map') return jsonEqual(old, now);
    return now.every((item) => {
      const c = itemCorrelation(s, old, item);
      return c !== undefined && correlatedEqual(c.old, item, s.items);
    });
  }
  if (isPlainObject(old) && isPlainObject(now)) {
    const keys = Object.keys(now);
    if (keys.length !== Object.keys(old).length) return false;
    return keys.every((k) => {
      const child = s?.properties.get(k) ?? s?.additionalProperties?.schema;
      return child !== undefined && Object.hasOwn(old, k) && correlatedEqual(old[k], now[k], child);
    });
  }
  return jsonEqual(old, now);
}

/** Drops the errors of a node whose value equals its correlated old value. */
function ratchet(result: Result, corr: Correlation | undefined, data: unknown, s: CompiledSchema | undefined): Result {
  if (result.valid || corr === undefined || !correlatedEqual(corr.old, data, s)) return result;
  const ratcheted = new Result();
  ratcheted.matchCount = result.matchCount;
  return ratcheted;
}

function validateSlice(s: CompiledSchema, path: string, data: unknown[], corr: Correlation | undefined): Result {
  const result = new Result();
  const items = s.items;
  if (items) {
    for (let i = 0; i < data.length; i++) {
      const c = corr && itemCorrelation(s, corr.old, data[i]);
      result.merge(ratchet(validateNode(items, `${path}[${i}]`, data[i], c), c, data[i], items));
    }
  }
  const { minItems, maxItems } = s;
  if (minItems !== undefined && data.length < minItems) {
    result.add({
      code: 'minItems',
      name: path,
      value: data.length,
      message: `${path} in body should have at least ${goInt(Math.trunc(minItems))} items`,
    });
  }
  if (maxItems !== undefined && data.length > maxItems) {
    const max = Math.trunc(maxItems);
    result.add({
      code: 'maxItems',
      name: path,
      value: data.length,
      limit: max,
      message: `${path} in body should have at most ${goInt(max)} items`,
    });
  }
  if (s.uniqueItems) {
    outer: for (let i = 1; i < data.length; i++) {
      for (let j = 0; j < i; j++) {
        if (jsonEqual(data[i], data[j])) {
          result.add({ code: 'unique', name: path, message: `${path} in body shouldn't contain duplicates` });
          break outer;
        }
      }
    }
  }
  result.matchCount++;
  return result;
}

/** Go's `%v` of a []interface{}: `[a b 1]`. */
function goSliceV(values: readonly unknown[]): string {
  const item = (v: unknown): string => {
    if (typeof v === 'string') return v;
    if (typeof v === 'number') return isIntegral(v) ? goInt(v) : goFloat(v);
    return v === null ? '<nil>' : goJson(v);
  };
  return `[${values.map(item).join(' ')}]`;
}

function validateEnum(s: CompiledSchema, path: string, data: unknown): Result | undefined {
  const values = s.enum;
  if (!values) return undefined;
  // A null data or enum value never matches: kube compares through Go reflection, which has no type for null.
  if (data !== null && data !== undefined) {
    for (const v of values) if (v !== null && (v === data || jsonEqual(data, v))) return undefined;
  }
  return failure({
    code: 'enum',
    name: path,
    value: data ?? null,
    values: [...values],
    message: `${path} in body should be one of ${goSliceV(values)}`,
  });
}

function validateObject(s: CompiledSchema, path: string, data: Record<string, unknown>, corr: Correlation | undefined): Result {
  const { minProperties, maxProperties, properties } = s;
  if (minProperties !== undefined || maxProperties !== undefined) {
    let count = 0;
    for (const k in data) if (Object.hasOwn(data, k) && data[k] !== undefined) count++;
    if (minProperties !== undefined && count < minProperties) {
      return failure({
        code: 'tooFewProperties',
        name: path,
        value: count,
        message: `${path} in body should have at least ${goInt(Math.trunc(minProperties))} properties`,
      });
    }
    if (maxProperties !== undefined && count > maxProperties) {
      const max = Math.trunc(maxProperties);
      return failure({
        code: 'tooManyProperties',
        name: path,
        value: count,
        limit: max,
        message: `${path} in body should have at most ${goInt(max)} properties`,
      });
    }
  }
  const res = new Result();
  const ap = s.additionalProperties;
  if (ap && !ap.allows) {
    for (const k in data) {
      if (Object.hasOwn(data, k) && data[k] !== undefined && !properties.has(k)) {
        res.add({
          code: 'unallowedProperty',
          name: path,
          value: k,
          message: `${path}.${k} in body is a forbidden property`,
        });
      }
    }
  } else if (ap?.schema) {
    for (const k in data) {
      if (Object.hasOwn(data, k) && data[k] !== undefined && !properties.has(k)) {
        const c = corr && keyCorrelation(corr.old, k);
        res.merge(ratchet(validateNode(ap.schema, `${path}.${k}`, data[k], c), c, data[k], ap.schema));
      }
    }
  }
  for (const [name, prop] of properties) {
    const v = Object.hasOwn(data, name) ? data[name] : undefined;
    if (v === undefined) continue;
    const c = corr && keyCorrelation(corr.old, name);
    res.merge(ratchet(validateNode(prop, path ? `${path}.${name}` : name, v, c), c, v, prop));
  }
  for (const k of s.required) {
    if (!Object.hasOwn(data, k) || data[k] === undefined) {
      res.add({ code: 'required', name: `${path}.${k}`, message: `${path}.${k} in body is required` });
    }
  }
  return res;
}

function composite(message: string): OpenApiError {
  return { code: 'composite', name: '', message };
}

function validateJunctors(s: CompiledSchema, path: string, data: unknown, corr: Correlation | undefined): Result {
  const main = new Result();
  main.matchCount++;
  if (!s.hasJunctors) return main;
  const quoted = goQuote(path);
  if (s.anyOf.length > 0) {
    let best: Result | undefined;
    let firstSuccess: Result | undefined;
    for (const sub of s.anyOf) {
      const r = validateNode(sub, path, data, corr);
      if (r.valid) {
        best = undefined;
        firstSuccess = r;
        break;
      }
      if (!best || r.matchCount > best.matchCount) best = r;
    }
    if (!firstSuccess) main.add(composite(`${quoted} must validate at least one schema (anyOf)`));
    main.merge(best ?? firstSuccess);
  }
  if (s.oneOf.length > 0) {
    let best: Result | undefined;
    let firstSuccess: Result | undefined;
    let validated = 0;
    for (const sub of s.oneOf) {
      const r = validateNode(sub, path, data, corr);
      if (r.valid) {
        validated++;
        best = undefined;
        firstSuccess ??= r;
        continue;
      }
      if (validated === 0 && (!best || r.matchCount > best.matchCount)) best = r;
    }
    if (validated !== 1) {
      const more = validated === 0 ? 'Found none valid' : `Found ${validated} valid alternatives`;
      main.add(composite(`${quoted} must validate one and only one schema (oneOf). ${more}`));
      main.merge(best);
    } else {
      main.merge(firstSuccess);
    }
  }
  if (s.allOf.length > 0) {
    let validated = 0;
    for (const sub of s.allOf) {
      const r = validateNode(sub, path, data, corr);
      if (r.valid) validated++;
      main.merge(r);
    }
    if (validated !== s.allOf.length) {
      main.add(composite(`${quoted} must validate all the schemas (allOf)${validated === 0 ? '. None validated' : ''}`));
    }
  }
  if (s.not && validateNode(s.not, path, data, corr).valid) main.add(composite(`${quoted} must not validate the schema (not)`));
  return main;
}

/** kube-openapi's SchemaValidator.Validate for one value against one schema node. */
function validateNode(s: CompiledSchema | undefined, path: string, data: unknown, corr?: Correlation): Result {
  const result = new Result();
  if (!s) return result;
  if (data === null || data === undefined) {
    result.merge(validateType(s, path, null));
    result.merge(validateEnum(s, path, null));
    return result;
  }
  const kind = kindOf(data);
  if (s.types.length > 0 || s.format !== '') {
    result.merge(validateType(s, path, data));
    result.matchCount++;
  }
  result.merge(validateJunctors(s, path, data, corr));
  result.matchCount++;
  if (kind === 'string') {
    result.merge(validateString(s, path, data as string));
    result.matchCount++;
    if (s.format !== '') {
      if (!checkFormat(s.format, data as string)) result.add(invalidType(path, s.format, data as string));
      result.matchCount++;
    }
  } else if (kind === 'int' || kind === 'float') {
    result.merge(validateNumber(s, path, data as number));
    result.matchCount++;
  } else if (kind === 'slice') {
    result.merge(validateSlice(s, path, data as unknown[], corr));
    result.matchCount++;
  }
  result.merge(validateEnum(s, path, data));
  result.matchCount++;
  if (kind === 'map') {
    result.merge(validateObject(s, path, data as Record<string, unknown>, corr));
    result.matchCount++;
  }
  result.matchCount++;
  return result;
}

/** field.TooLong: the value is not shown. */
function tooLong(field: string, max: number): FieldError {
  const detail = `may not be more than ${max} ${max === 1 ? 'byte' : 'bytes'}`;
  return { type: 'FieldValueTooLong', field, hasValue: false, detail };
}

/** field.TooMany: the actual count is shown. */
function tooMany(field: string, actual: number, max: number): FieldError {
  const detail = `must have at most ${max} ${max === 1 ? 'item' : 'items'}`;
  return { type: 'FieldValueTooMany', field, value: actual, hasValue: true, detail };
}

/** apiextensions' kubeOpenAPIResultToFieldErrors: the cause types and values kube reports. */
function toFieldError(fieldPath: string, e: OpenApiError): FieldError {
  if (e.code === 'composite') {
    // A plain error of kube-openapi is reported at the path validation started from; for a
    // custom resource that is a nil *field.Path, which prints as "<nil>".
    return { type: 'FieldValueInvalid', field: fieldPath === '' ? '<nil>' : fieldPath, value: '', hasValue: true, detail: e.message };
  }
  const field = e.name && e.name !== '.' ? childPath(fieldPath, e.name.replace(/^\./, '')) : fieldPath;
  const value = e.value === undefined ? '' : e.value;
  switch (e.code) {
    case 'required':
      return { type: 'FieldValueRequired', field, hasValue: false, detail: '' };
    case 'enum': {
      const allowed = (e.values ?? []).map((v) => (typeof v === 'string' ? v : goJson(v)));
      return {
        type: 'FieldValueNotSupported',
        field,
        // Go prints a nil value as "null" (quoted).
        value: e.value === null ? 'null' : e.value,
        hasValue: true,
        detail: allowed.length ? `supported values: ${allowed.map(goQuote).join(', ')}` : '',
      };
    }
    case 'tooLong':
      return tooLong(field, e.limit ?? -1);
    case 'maxItems':
    case 'tooManyProperties':
      return tooMany(field, e.value as number, e.limit ?? -1);
    case 'invalidType':
      return { type: 'FieldValueTypeInvalid', field, value, hasValue: true, detail: e.message };
    default:
      return { type: 'FieldValueInvalid', field, value, hasValue: true, detail: e.message };
  }
}

/**
 * Checks `value` against the OpenAPI keywords of `schema` (type, format, enum, bounds,
 * lengths, pattern, items, properties, required, additionalProperties, allOf/anyOf/
 * oneOf/not, nullable, int-or-string) as kube-openapi does for custom resources.
 * Field paths are `path` followed by the value's own path (`spec.replicas`); the
 * messages name the value's own path (`spec.replicas in body ...`).
 */
export function validateOpenApiValue(value: unknown, schema: OpenApiSchema | undefined, path = '', old?: unknown): FieldError[] {
  const s = compileOptional(schema);
  // On update, errors of values unchanged from the old object are ratcheted (kube's
  // CRDValidationRatcheting, on by default): tightening a schema does not block updates
  // that leave the now-invalid values alone.
  const corr = old === undefined ? undefined : { old };
  const result = ratchet(validateNode(s, '', value, corr), corr, value, s);
  return result.errors.map((e) => toFieldError(path, e));
}

/**
 * Small helpers shared by the patch algorithms: JSON value checks, safe cloning, and
 * printing values the way Go's `fmt` does, because kube's patch errors embed `%v` output.
 * Internal to the patch folder.
 */

import { isJsonObject } from '../object.js';

export { isJsonObject, jsonEqual } from '../object.js';

/** A decoded JSON object. */
export type JsonObject = Record<string, unknown>;

/** `Object.hasOwn`, named for readability at call sites. */
export function hasKey(o: JsonObject, key: string): boolean {
  return Object.hasOwn(o, key);
}

/**
 * Sets `o[key]` as an own data property. A plain assignment to `__proto__` would
 * replace the prototype instead, which a patch body must never be able to do.
 */
export function setKey(o: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    o[key] = value;
  }
}

/** Deep copy of a JSON value; `undefined` members are dropped as JSON would. */
export function cloneJson<T>(v: T): T {
  return cloneValue(v) as T;
}

function cloneValue(v: unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => (x === undefined ? null : cloneValue(x)));
  if (isJsonObject(v)) {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) setKey(out, k, cloneValue(x));
    return out;
  }
  return v;
}


/** The word encoding/json uses for a value's JSON type in `cannot unmarshal X into ...`. */
export function jsonTypeWord(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'bool';
    default:
      return 'object';
  }
}

/** The Go type name of a decoded JSON value, as `reflect.TypeOf(v)` prints it. */
export function goTypeName(v: unknown): string {
  if (Array.isArray(v)) return '[]interface {}';
  if (isJsonObject(v)) return 'map[string]interface {}';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'number':
      // kube decodes patches preserving integers, so whole numbers are int64.
      return Number.isInteger(v) ? 'int64' : 'float64';
    default:
      return '%!s(<nil>)';
  }
}

/**
 * `fmt.Sprintf("%v", v)` for a decoded JSON value: `map[k:v ...]` with sorted keys, `[a b]`, `<nil>`.
 * kube's patch errors embed this form of the patch.
 *
 * @example
 * goFormat({ metadata: { labels: 'x' }, n: [1, 2.5] }); // 'map[metadata:map[labels:x] n:[1 2.5]]'
 */
export function goFormat(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goFormat).join(' ')}]`;
  if (isJsonObject(v)) {
    const keys = Object.keys(v).sort();
    return `map[${keys.map((k) => `${k}:${goFormat(v[k])}`).join(' ')}]`;
  }
  if (typeof v === 'number') return goNumber(v);
  return String(v);
}

/** `fmt.Sprintf("%s", v)`: strings bare, anything else in Go's `%!s(type=value)` form. */
export function goString(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '%!s(<nil>)';
  return `%!s(${goTypeName(v)}=${goFormat(v)})`;
}

/** Go's `%v` of a number: integers as int64, others as float64 (`%g`, shortest digits). */
function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 2 ** 63) return String(n);
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'NaN' : n > 0 ? '+Inf' : '-Inf';
  const [mantissa, expPart] = n.toExponential().split('e');
  const exp = Number(expPart);
  // strconv uses the exponent form outside [1e-4, 1e6) when printing the shortest digits.
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(n);
}

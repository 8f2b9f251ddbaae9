/**
 * How client-go's JSONPath sees and prints JSON values. Kubernetes decodes
 * JSON into Go's `map[string]interface{}`, `[]interface{}`, `string`, `bool`,
 * `int64` (whole numbers) and `float64` (the rest); JSONPath compares and
 * prints them by those Go types. Here a JavaScript number is an int64 when it
 * is a whole number and a float64 otherwise, except for float literals written
 * in a template (`1.0`), which stay float64.
 */

/** A float64 literal from a template, kept apart from whole JSON numbers (which are int64). */
export class GoFloat {
  constructor(readonly value: number) {}
}

/** A JSON object as decoded from the wire. */
export type JsonMap = Record<string, unknown>;

/** Whether `v` is a JSON object (not null, not an array). */
export function isJsonMap(v: unknown): v is JsonMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof GoFloat);
}

/** Whether a JavaScript number decodes to an int64 in Go (a whole number in int64 range). */
export function isGoInt(n: number): boolean {
  return Number.isInteger(n) && Math.abs(n) < 2 ** 63;
}

/** Turns internal literals back into plain values. */
export function plainValue(v: unknown): unknown {
  return v instanceof GoFloat ? v.value : v;
}

/** Compares strings by code point, which is the byte order of their UTF-8 (Go's string order). */
export function compareGoStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ca = a.codePointAt(i) ?? 0;
    const cb = b.codePointAt(i) ?? 0;
    if (ca !== cb) return ca < cb ? -1 : 1;
    if (ca > 0xffff) i++;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/**
 * Go's `fmt` `%v` of a float64 (`strconv` `'g'`, shortest): plain digits for
 * exponents -4 to 5, else `1.5e+06`, `1e-05`.
 */
export function formatGoFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const [mantissa, expPart] = x.toExponential().split('e');
  const exp = Number(expPart);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return String(x);
}

/** Go's `fmt` `%v` of an int64 (every digit, never an exponent). */
export function formatGoInt(n: number): string {
  return BigInt(n).toString();
}

/** Go's `%v` of a scalar number decoded from JSON. */
export function formatGoNumber(n: number): string {
  return isGoInt(n) ? formatGoInt(n) : formatGoFloat(n);
}

const htmlEscapes: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

function goJsonString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => htmlEscapes[c]);
}

/**
 * Go's `json.Marshal` of a decoded JSON value: object keys sorted, `<`, `>`,
 * `&`, U+2028 and U+2029 escaped, no spaces.
 */
export function goJsonMarshal(v: unknown): string {
  if (v instanceof GoFloat) return JSON.stringify(v.value);
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goJsonString(v);
  if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return `[${v.map(goJsonMarshal).join(',')}]`;
  if (typeof v === 'object') {
    const map = v as JsonMap;
    const keys = Object.keys(map)
      .filter((k) => map[k] !== undefined)
      .sort(compareGoStrings);
    return `{${keys.map((k) => `${goJsonString(k)}:${goJsonMarshal(map[k])}`).join(',')}}`;
  }
  return 'null';
}

/** The Go type name of a decoded JSON value, as client-go's errors print it (`map[string]interface {}`). */
export function goTypeName(v: unknown): string {
  if (v instanceof GoFloat) return 'float64';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return isGoInt(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  if (isJsonMap(v)) return 'map[string]interface {}';
  return '<nil>';
}

/** Go's `fmt` `%v` of a decoded JSON value: `map[a:1 b:[x y]]`, `<nil>`. */
export function goSprintV(v: unknown): string {
  if (v instanceof GoFloat) return formatGoFloat(v.value);
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return formatGoNumber(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (Array.isArray(v)) return `[${v.map(goSprintV).join(' ')}]`;
  if (isJsonMap(v)) {
    const keys = Object.keys(v).sort(compareGoStrings);
    return `map[${keys.map((k) => `${k}:${goSprintV(v[k])}`).join(' ')}]`;
  }
  return String(v);
}

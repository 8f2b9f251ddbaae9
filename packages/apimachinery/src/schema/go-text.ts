/**
 * Go's printing of values inside messages (`%q`, `%v`), which kube's schema errors
 * embed in their text: `should be less than or equal to 1e+06`, `must be of type
 * integer: "string"`.
 */

/** The escapes Go and CEL both write by name. */
const namedEscapes: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
};

/** Go's strconv.Quote for the strings that occur in practice. */
export function goQuote(s: string): string {
  return quoteEscaped(s, true);
}

/**
 * `s` in double quotes with Go's backslash escapes (`\"`, `\\`, `\a`, `\b`, `\f`, `\n`,
 * `\r`, `\t`, `\v`); other control characters as `\xNN` when `hexControls`, as Go's
 * strconv.Quote writes them, or as they are, as cel-go's `strings.quote` leaves them.
 */
export function quoteEscaped(s: string, hexControls: boolean): string {
  let out = '"';
  for (const ch of s) {
    const escaped = namedEscapes[ch];
    if (escaped !== undefined) {
      out += escaped;
      continue;
    }
    const c = ch.codePointAt(0)!;
    out += hexControls && (c < 0x20 || c === 0x7f) ? `\\x${c.toString(16).padStart(2, '0')}` : ch;
  }
  return `${out}"`;
}

/** Go's `%v` of a float64: shortest digits, exponent form below 1e-4 and from 1e+06 on. */
export function goFloat(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const [mantissa, expText] = f.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const abs = Math.abs(exp);
    return `${mantissa}e${exp < 0 ? '-' : '+'}${abs < 10 ? `0${abs}` : abs}`;
  }
  return String(f);
}

/** Go's `%v` of an int64 (JSON integers decode to int64 in kube). */
export function goInt(n: number): string {
  return Number.isSafeInteger(n) ? String(n) : BigInt(Math.trunc(n)).toString();
}

/**
 * Whether a JSON number is an integer as kube's decoder sees it (int64), rather than
 * a float64. JSON loses the distinction between `1` and `1.0`; both count as integers.
 */
export function isIntegral(n: number): boolean {
  return Number.isInteger(n) && Math.abs(n) <= 2 ** 63;
}

/** `%v` of a decoded JSON number: int64 or float64 printing. */
export function goNumber(n: number): string {
  return isIntegral(n) ? goInt(n) : goFloat(n);
}

/** Go's json.Marshal of a value, for enum lists in messages (keys sorted, as Go sorts map keys). */
export function goJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  if (typeof value === 'object') {
    const o = value as Record<string, unknown>;
    const keys = Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${goJson(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Go's `%#v` of a decoded JSON value, as kube's field errors print a compound bad
 * value: `map[string]interface {}{"name":"http", "port":80}`, `[]interface {}{"a", 1}`;
 * keys sorted, elements of maps and slices printed as their dynamic value, nil
 * elements as `interface {}(nil)`.
 */
export function goSharpV(value: unknown, element = false): string {
  if (value === null || value === undefined) return element ? 'interface {}(nil)' : '<nil>';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return goNumber(value);
  if (Array.isArray(value)) return `[]interface {}{${value.map((v) => goSharpV(v, true)).join(', ')}}`;
  const o = value as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort();
  return `map[string]interface {}{${keys.map((k) => `${goQuote(k)}:${goSharpV(o[k], true)}`).join(', ')}}`;
}

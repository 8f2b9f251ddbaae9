/**
 * Go's encoding/json syntax checker, ported so that malformed bodies get the
 * exact error text kube-apiserver sends (`invalid character '}' looking for
 * beginning of object key string`, `unexpected end of JSON input`, ...).
 *
 * It mirrors the state machine of Go's `encoding/json/scanner.go` byte by byte,
 * including its nesting limit (Go's is 10000; see maxBodyNestingDepth), which
 * also keeps pathologically deep documents away from the server's recursive code.
 */

/** Go's maxNestingDepth. */
export const maxJsonNestingDepth = 10000;

/**
 * How deep request bodies may nest here. kube allows Go's 10000, but Node's
 * stack does not take JSON that deep through JSON.stringify or structuredClone
 * (they fail from a few thousand levels), so bodies deeper than this are
 * refused up front with Go's error text; no real object comes near it.
 */
export const maxBodyNestingDepth = 1000;

/** Whether a parsed value holds a number JSON cannot carry (a literal like 1e400 parses to Infinity). */
export function containsNonFinite(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return true;
    } else if (v !== null && typeof v === 'object') {
      for (const child of Array.isArray(v) ? v : Object.values(v as Record<string, unknown>)) stack.push(child);
    }
  }
  return false;
}

/** The first number literal of a JSON text (outside strings) that is out of float64 range. */
export function firstNonFiniteLiteral(text: string): string | undefined {
  const number = /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      continue;
    }
    if (c !== '-' && (c < '0' || c > '9')) continue;
    number.lastIndex = i;
    const m = number.exec(text);
    if (!m) continue;
    if (!Number.isFinite(Number(m[0]))) return m[0];
    i += m[0].length - 1;
  }
  return undefined;
}

/** Whether a parsed JSON value nests deeper than `limit` (iteratively, so any depth is safe to ask about). */
export function jsonDepthExceeds(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v as Record<string, unknown>)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

const enum Parse {
  ObjectKey,
  ObjectValue,
  ArrayValue,
}

const enum St {
  BeginValue,
  BeginValueOrEmpty,
  BeginStringOrEmpty,
  BeginString,
  EndValue,
  EndTop,
  InString,
  InStringEsc,
  InStringEscU,
  InStringEscU1,
  InStringEscU12,
  InStringEscU123,
  Neg,
  One,
  Zero,
  Dot,
  Dot0,
  E,
  ESign,
  E0,
  T,
  Tr,
  Tru,
  F,
  Fa,
  Fal,
  Fals,
  N,
  Nu,
  Nul,
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

/** strconv.Quote of the one-rune string `string(rune(c))`, without the quotes. */
function quoteRune(c: number): string {
  switch (c) {
    case 0x07:
      return '\\a';
    case 0x08:
      return '\\b';
    case 0x0c:
      return '\\f';
    case 0x0a:
      return '\\n';
    case 0x0d:
      return '\\r';
    case 0x09:
      return '\\t';
    case 0x0b:
      return '\\v';
    case 0x5c:
      return '\\\\';
  }
  const hex = c.toString(16).padStart(2, '0');
  if (c < 0x20 || c === 0x7f) return `\\x${hex}`;
  // U+0080..U+00A0 and the soft hyphen are not printable in Go's sense.
  if ((c >= 0x80 && c <= 0xa0) || c === 0xad) return `\\u00${hex}`;
  return String.fromCharCode(c);
}

/** Go's quoteChar: how the scanner names the byte it stumbled on. */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return '\'"\'';
  return `'${quoteRune(c)}'`;
}

const literalExpect: Partial<Record<St, [number, St | 'end', string]>> = {
  [St.T]: [0x72, St.Tr, "in literal true (expecting 'r')"],
  [St.Tr]: [0x75, St.Tru, "in literal true (expecting 'u')"],
  [St.Tru]: [0x65, 'end', "in literal true (expecting 'e')"],
  [St.F]: [0x61, St.Fa, "in literal false (expecting 'a')"],
  [St.Fa]: [0x6c, St.Fal, "in literal false (expecting 'l')"],
  [St.Fal]: [0x73, St.Fals, "in literal false (expecting 's')"],
  [St.Fals]: [0x65, 'end', "in literal false (expecting 'e')"],
  [St.N]: [0x75, St.Nu, "in literal null (expecting 'u')"],
  [St.Nu]: [0x6c, St.Nul, "in literal null (expecting 'l')"],
  [St.Nul]: [0x6c, 'end', "in literal null (expecting 'l')"],
};

/**
 * The error `json.Unmarshal` reports for `data` when it is not valid JSON
 * (e.g. `invalid character 'x' looking for beginning of value`), or undefined
 * when it is valid.
 */
export function goJsonSyntaxError(data: Uint8Array, maxDepth = maxJsonNestingDepth): string | undefined {
  const stack: Parse[] = [];
  let state: St = St.BeginValue;
  let endTop = false;
  let err: string | undefined;

  const fail = (c: number, context: string): void => {
    err = `invalid character ${quoteChar(c)} ${context}`;
  };
  const push = (c: number, p: Parse, next: St): void => {
    stack.push(p);
    if (stack.length <= maxDepth) state = next;
    else fail(c, 'exceeded max depth');
  };
  const pop = (): void => {
    stack.pop();
    if (stack.length === 0) {
      state = St.EndTop;
      endTop = true;
    } else state = St.EndValue;
  };

  const step = (c: number): void => {
    for (;;) {
      switch (state) {
        case St.BeginValueOrEmpty:
          if (isSpace(c)) return;
          if (c === 0x5d) {
            state = St.EndValue;
            continue;
          }
          state = St.BeginValue;
          continue;
        case St.BeginValue:
          if (isSpace(c)) return;
          switch (c) {
            case 0x7b:
              return push(c, Parse.ObjectKey, St.BeginStringOrEmpty);
            case 0x5b:
              return push(c, Parse.ArrayValue, St.BeginValueOrEmpty);
            case 0x22:
              state = St.InString;
              return;
            case 0x2d:
              state = St.Neg;
              return;
            case 0x30:
              state = St.Zero;
              return;
            case 0x74:
              state = St.T;
              return;
            case 0x66:
              state = St.F;
              return;
            case 0x6e:
              state = St.N;
              return;
          }
          if (c >= 0x31 && c <= 0x39) {
            state = St.One;
            return;
          }
          return fail(c, 'looking for beginning of value');
        case St.BeginStringOrEmpty:
          if (isSpace(c)) return;
          if (c === 0x7d) {
            stack[stack.length - 1] = Parse.ObjectValue;
            state = St.EndValue;
            continue;
          }
          state = St.BeginString;
          continue;
        case St.BeginString:
          if (isSpace(c)) return;
          if (c === 0x22) {
            state = St.InString;
            return;
          }
          return fail(c, 'looking for beginning of object key string');
        case St.EndValue: {
          if (stack.length === 0) {
            state = St.EndTop;
            endTop = true;
            continue;
          }
          if (isSpace(c)) return;
          const top = stack[stack.length - 1];
          if (top === Parse.ObjectKey) {
            if (c === 0x3a) {
              stack[stack.length - 1] = Parse.ObjectValue;
              state = St.BeginValue;
              return;
            }
            return fail(c, 'after object key');
          }
          if (top === Parse.ObjectValue) {
            if (c === 0x2c) {
              stack[stack.length - 1] = Parse.ObjectKey;
              state = St.BeginString;
              return;
            }
            if (c === 0x7d) return pop();
            return fail(c, 'after object key:value pair');
          }
          if (c === 0x2c) {
            state = St.BeginValue;
            return;
          }
          if (c === 0x5d) return pop();
          return fail(c, 'after array element');
        }
        case St.EndTop:
          if (!isSpace(c)) fail(c, 'after top-level value');
          return;
        case St.InString:
          if (c === 0x22) state = St.EndValue;
          else if (c === 0x5c) state = St.InStringEsc;
          else if (c < 0x20) fail(c, 'in string literal');
          return;
        case St.InStringEsc:
          if ([0x62, 0x66, 0x6e, 0x72, 0x74, 0x5c, 0x2f, 0x22].includes(c)) state = St.InString;
          else if (c === 0x75) state = St.InStringEscU;
          else fail(c, 'in string escape code');
          return;
        case St.InStringEscU:
        case St.InStringEscU1:
        case St.InStringEscU12:
        case St.InStringEscU123:
          if (!isHex(c)) return fail(c, 'in \\u hexadecimal character escape');
          state = state === St.InStringEscU123 ? St.InString : ((state + 1) as St);
          return;
        case St.Neg:
          if (c === 0x30) state = St.Zero;
          else if (c >= 0x31 && c <= 0x39) state = St.One;
          else fail(c, 'in numeric literal');
          return;
        case St.One:
          if (isDigit(c)) return;
          state = St.Zero;
          continue;
        case St.Zero:
          if (c === 0x2e) {
            state = St.Dot;
            return;
          }
          if (c === 0x65 || c === 0x45) {
            state = St.E;
            return;
          }
          state = St.EndValue;
          continue;
        case St.Dot:
          if (isDigit(c)) state = St.Dot0;
          else fail(c, 'after decimal point in numeric literal');
          return;
        case St.Dot0:
          if (isDigit(c)) return;
          if (c === 0x65 || c === 0x45) {
            state = St.E;
            return;
          }
          state = St.EndValue;
          continue;
        case St.E:
          if (c === 0x2b || c === 0x2d) {
            state = St.ESign;
            return;
          }
          state = St.ESign;
          continue;
        case St.ESign:
          if (isDigit(c)) state = St.E0;
          else fail(c, 'in exponent of numeric literal');
          return;
        case St.E0:
          if (isDigit(c)) return;
          state = St.EndValue;
          continue;
        default: {
          const [want, next, context] = literalExpect[state]!;
          if (c !== want) return fail(c, context);
          state = next === 'end' ? St.EndValue : next;
          return;
        }
      }
    }
  };

  for (let i = 0; i < data.length; i++) {
    step(data[i]);
    if (err !== undefined) return err;
  }
  // scanner.eof(): a value still open at the end is "unexpected end of JSON input".
  if (endTop) return undefined;
  step(0x20);
  if (err !== undefined) return err;
  return endTop ? undefined : 'unexpected end of JSON input';
}

/**
 * A parsed JSON body, or the error Go's decoder reports for it. `nonFinite`:
 * the body holds a number out of float64 range (JSON.parse made it Infinity;
 * Go refuses it).
 */
export type GoJsonResult = { value: unknown; text: string; nonFinite: boolean } | { syntax: string };

/** Whether `data` holds at most `limit` opening brackets (it then cannot nest deeper than that). */
function bracketsAtMost(data: Uint8Array, limit: number): boolean {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  let count = 0;
  for (const bracket of [0x7b, 0x5b]) {
    for (let i = bytes.indexOf(bracket); i >= 0; i = bytes.indexOf(bracket, i + 1)) if (++count > limit) return false;
  }
  return true;
}

/**
 * `json.Unmarshal`'s reading of a body: the parsed value (lone surrogates
 * made U+FFFD), or Go's error text for a body it refuses. A body with few
 * brackets (every real object) is parsed natively and handed to the Go
 * scanner only when the parse fails, for its words: the byte-by-byte scan
 * costs several times the parse (17 ms for a 1.6 MB string). A body with
 * more brackets than `maxDepth` is scanned first, which refuses a deep one
 * within `maxDepth` bytes instead of parsing megabytes of `[`.
 */
export function parseJsonLikeGo(data: Uint8Array, maxDepth = maxJsonNestingDepth, decoded?: string): GoJsonResult {
  if (!bracketsAtMost(data, maxDepth)) {
    const syntax = goJsonSyntaxError(data, maxDepth);
    if (syntax !== undefined) return { syntax };
  }
  // `decoded`: the caller's UTF-8 decoding of `data`, when it has one already.
  const text = decoded ?? Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
  let value: unknown;
  try {
    value = parseGoJson(text);
  } catch (e) {
    return { syntax: goJsonSyntaxError(data, maxDepth) ?? (e as Error).message };
  }
  return { value, text, nonFinite: mayContainNonFinite(text) && containsNonFinite(value) };
}

/**
 * Whether a parsed JSON text may hold a number out of float64 range: only a
 * literal with an exponent or with more than 308 digits can be one, so most
 * bodies need no walk.
 */
function mayContainNonFinite(text: string): boolean {
  return /[0-9][eE]|[0-9]{309}/.test(text);
}

/** A `\uXXXX` escape of a UTF-16 surrogate, which may stand alone in JSON text. */
const escapedSurrogate = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;

/**
 * JSON.parse of `text` as Go's decoder reads it: a lone surrogate escape
 * (`"\ud800"`) becomes U+FFFD, as Go turns it into the replacement character,
 * instead of a string no UTF-8 encoder can write. Only text that has such an
 * escape is walked.
 */
export function parseGoJson(text: string): unknown {
  const value = JSON.parse(text) as unknown;
  return escapedSurrogate.test(text) ? wellFormed(value) : value;
}

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const toWellFormed = (s: string): string => s.replace(loneSurrogate, '\uFFFD');

function wellFormed(value: unknown): unknown {
  if (typeof value === 'string') return toWellFormed(value);
  if (Array.isArray(value)) return value.map(wellFormed);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [toWellFormed(k), wellFormed(v)]));
  }
  return value;
}

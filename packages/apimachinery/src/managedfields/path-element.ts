/**
 * Path elements of structured-merge-diff (fieldpath.PathElement): how one step
 * from a value to a child is named in a field set. `f:<name>` selects a field,
 * `k:{...}` the item of a list-map by its keys, `v:<json>` the item of a set by
 * its value, `i:<n>` an item by index. Their order, their serialized form and
 * their printed form (`.spec.ports[port=80,protocol="TCP"]`) follow the Go
 * library exactly, since kube shows all three to users.
 */
import { goNumber, goQuote, isIntegral } from '../schema/go-text.js';

/** One step of a path: exactly one of the four forms. */
export type PathElement =
  | { readonly field: string }
  | { readonly key: ReadonlyArray<readonly [string, unknown]> }
  | { readonly value: unknown }
  | { readonly index: number };

/** A path from the root of an object. */
export type FieldPath = readonly PathElement[];

/** The rank of a value's type in structured-merge-diff's total order: numbers, strings, bools, lists, maps, null. */
function typeRank(v: unknown): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 2;
  if (typeof v === 'boolean') return 3;
  if (Array.isArray(v)) return 4;
  if (v !== null && typeof v === 'object') return 5;
  return 6;
}

/** value.Compare: a total order over JSON values (floats and ints compare numerically). */
export function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 2:
      return compareStrings(a as string, b as string);
    case 3:
      return a === b ? 0 : a === false ? -1 : 1;
    case 4: {
      const la = a as unknown[];
      const lb = b as unknown[];
      for (let i = 0; i < Math.min(la.length, lb.length); i++) {
        const c = compareValues(la[i], lb[i]);
        if (c !== 0) return c;
      }
      return la.length === lb.length ? 0 : la.length < lb.length ? -1 : 1;
    }
    case 5: {
      // Maps compare as their sorted (key, value) lists.
      const ea = Object.entries(a as object).sort(([x], [y]) => compareStrings(x, y));
      const eb = Object.entries(b as object).sort(([x], [y]) => compareStrings(x, y));
      for (let i = 0; i < Math.min(ea.length, eb.length); i++) {
        const c = compareStrings(ea[i]![0], eb[i]![0]) || compareValues(ea[i]![1], eb[i]![1]);
        if (c !== 0) return c;
      }
      return ea.length === eb.length ? 0 : ea.length < eb.length ? -1 : 1;
    }
    default:
      return 0;
  }
}

/**
 * Go's strings.Compare: by UTF-8 bytes, which is code point order. UTF-16 code
 * units sort the same way except where a surrogate meets a unit above the
 * surrogate range, so only a difference at a surrogate needs the code points.
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if ((x >= 0xd800 && x <= 0xdfff) || (y >= 0xd800 && y <= 0xdfff)) return compareCodePoints(a, b);
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : 1;
}

/** compareStrings by whole code points (strings that differ at a surrogate). */
function compareCodePoints(a: string, b: string): number {
  const ca = [...a];
  const cb = [...b];
  for (let i = 0; i < Math.min(ca.length, cb.length); i++) {
    if (ca[i] !== cb[i]) return ca[i]!.codePointAt(0)! < cb[i]!.codePointAt(0)! ? -1 : 1;
  }
  return ca.length === cb.length ? 0 : ca.length < cb.length ? -1 : 1;
}

/** PathElement.Compare: fields, then keys, then values, then indices. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  if ('field' in a) return compareStrings(a.field, (b as { field: string }).field);
  if ('key' in a) {
    const kb = (b as { key: ReadonlyArray<readonly [string, unknown]> }).key;
    for (let i = 0; i < Math.min(a.key.length, kb.length); i++) {
      const c = compareStrings(a.key[i]![0], kb[i]![0]) || compareValues(a.key[i]![1], kb[i]![1]);
      if (c !== 0) return c;
    }
    return a.key.length === kb.length ? 0 : a.key.length < kb.length ? -1 : 1;
  }
  if ('value' in a) return compareValues(a.value, (b as { value: unknown }).value);
  const ib = (b as { index: number }).index;
  return a.index === ib ? 0 : a.index < ib ? -1 : 1;
}

function rank(pe: PathElement): number {
  return 'field' in pe ? 0 : 'key' in pe ? 1 : 'value' in pe ? 2 : 3;
}

/**
 * Go's encoding/json of a value as jsoniter writes it in managedFields: map keys
 * sorted, and `<`, `>`, `&`, U+2028 and U+2029 escaped as Go escapes HTML.
 */
export function goJsonEscaped(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return escapeHtml(JSON.stringify(value));
  if (typeof value === 'number') return isIntegral(value) ? String(value) : JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(goJsonEscaped).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as object).sort(([a], [b]) => compareStrings(a, b));
    return `{${entries.map(([k, v]) => `${escapeHtml(JSON.stringify(k))}:${goJsonEscaped(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function escapeHtml(json: string): string {
  return json.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`);
}

/** The key under which a path element appears in FieldsV1 (`f:name`, `k:{"name":"x"}`, `v:"a"`, `i:0`). */
export function serializePathElement(pe: PathElement): string {
  if ('field' in pe) return `f:${pe.field}`;
  let s = serialized.get(pe);
  if (s === undefined) serialized.set(pe, (s = serializeCompound(pe)));
  return s;
}

/** Keys and values are costly to print and elements are reused: their forms are remembered. */
const serialized = new WeakMap<PathElement, string>();

function serializeCompound(pe: Exclude<PathElement, { field: string }>): string {
  if ('key' in pe) return `k:{${pe.key.map(([k, v]) => `${escapeHtml(JSON.stringify(k))}:${goJsonEscaped(v)}`).join(',')}}`;
  if ('value' in pe) return `v:${goJsonEscaped(pe.value)}`;
  return `i:${pe.index}`;
}

/** Parses a FieldsV1 key; undefined for an unknown prefix (skipped, as kube skips it); throws on malformed content. */
export function parsePathElement(s: string): PathElement | undefined {
  if (s.length < 2) throw new Error(`key must be 2 characters long: ${s}`);
  if (s[1] !== ':') throw new Error(`missing colon: ${s}`);
  const body = s.slice(2);
  switch (s[0]) {
    case 'f':
      return { field: body };
    case 'v':
      return { value: JSON.parse(body) as unknown };
    case 'k': {
      const parsed = JSON.parse(body) as unknown;
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`key is not an object: ${s}`);
      return keyElement(Object.entries(parsed));
    }
    case 'i': {
      if (!/^-?\d+$/.test(body)) throw new Error(`strconv.Atoi: parsing ${JSON.stringify(body)}: invalid syntax`);
      return { index: Number(body) };
    }
    default:
      return undefined;
  }
}

/** A key element with its fields sorted by name, as structured-merge-diff keeps them. */
export function keyElement(fields: Array<readonly [string, unknown]>): PathElement {
  return { key: [...fields].sort(([a], [b]) => compareStrings(a, b)) };
}

/** value.ToString: strings quoted, numbers and bools bare, as in conflict messages. */
function valueString(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(valueString).join(',')}]`;
  return Object.entries(v as object)
    .map(([k, x]) => `${k}=${valueString(x)}`)
    .join('');
}

/** PathElement.String: `.name`, `[name="x",port=80]`, `[="a"]`, `[0]`. */
export function pathElementString(pe: PathElement): string {
  if ('field' in pe) return `.${pe.field}`;
  if ('key' in pe) return `[${pe.key.map(([k, v]) => `${k}=${valueString(v)}`).join(',')}]`;
  if ('value' in pe) return `[=${valueString(pe.value)}]`;
  return `[${pe.index}]`;
}

/** Path.String: the elements' strings joined, as kube prints a conflicting field. */
export function pathString(path: FieldPath): string {
  return path.map(pathElementString).join('');
}

/**
 * JSON values as CEL sees them, per the schema node's declaration: integers become
 * bigint (CEL int64), date-time strings timestamps, duration strings durations,
 * base64 strings bytes, objects typed records (null fields absent), maps `Map`s.
 * Lists stay arrays; those with `x-kubernetes-list-type: set` or `map` are marked
 * so that equality ignores order, as Kubernetes' CEL list types do.
 */
import { Optional } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { CelRecord, type CelDecl, type ListDecl } from './decl-types.js';
import { CidrPrefix, IpAddress } from './net.js';
import { Quantity } from './quantity.js';
import { GoUrl } from './url.js';

const listKinds = new WeakMap<readonly unknown[], ListDecl>();

/** Per-evaluation cache of converted objects (a raw subtree is converted once even when several nodes have rules). */
export type ConversionMemo = WeakMap<object, unknown>;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Parses an RFC 3339 date-time (or a full-date) into a Date, or `undefined`. */
export function parseTimestamp(s: string): Date | undefined {
  if (rfc3339.test(s)) {
    const d = new Date(s.toUpperCase());
    return Number.isNaN(d.getTime()) ? undefined : d;
  }
  if (/^\d{4}-\d{2}-\d{2}$/.test(s)) {
    const d = new Date(`${s}T00:00:00Z`);
    return Number.isNaN(d.getTime()) ? undefined : d;
  }
  return undefined;
}

const durationUnits: Record<string, bigint> = {
  ns: 1n,
  us: 1000n,
  µs: 1000n,
  μs: 1000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
  d: 86_400_000_000_000n,
  w: 604_800_000_000_000n,
};

/** Parses a Go duration (`1h30m`, `-1.5s`; also `d` and `w` as kube's `duration` format allows) into a CEL duration. */
export function parseDuration(s: string): Duration | undefined {
  let rest = s.trim();
  let negative = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    negative = rest.startsWith('-');
    rest = rest.slice(1);
  }
  if (rest === '0') return new Duration(0n, 0);
  if (rest === '') return undefined;
  let total = 0n;
  const part = /^([0-9]*)(?:\.([0-9]*))?(ns|us|µs|μs|ms|s|m|h|d|w)/;
  while (rest !== '') {
    const m = part.exec(rest);
    if (!m || (m[1] === '' && (m[2] ?? '') === '')) return undefined;
    const unit = durationUnits[m[3]];
    total += BigInt(m[1] || '0') * unit;
    if (m[2]) total += (BigInt(m[2]) * unit) / 10n ** BigInt(m[2].length);
    rest = rest.slice(m[0].length);
  }
  if (negative) total = -total;
  const seconds = total / 1_000_000_000n;
  return new Duration(seconds, Number(total - seconds * 1_000_000_000n));
}

function toInt(v: unknown): unknown {
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  return v;
}

/** Converts a JSON value to its CEL form for `decl`; values of the wrong JSON type are passed through unchanged. */
export function toCelValue(raw: unknown, decl: CelDecl, memo: ConversionMemo): unknown {
  if (raw === null || raw === undefined) return null;
  switch (decl.kind) {
    case 'object': {
      if (!isPlainObject(raw)) return raw;
      const hit = memo.get(raw);
      if (hit !== undefined) return hit;
      const rec = new decl.ctor();
      for (const [jsonName, field] of decl.fields) {
        if (!Object.prototype.hasOwnProperty.call(raw, jsonName)) continue;
        const v = raw[jsonName];
        if (v !== null && v !== undefined) rec.set(field.celName, toCelValue(v, field.decl, memo));
      }
      memo.set(raw, rec);
      return rec;
    }
    case 'map': {
      if (!isPlainObject(raw)) return raw;
      const hit = memo.get(raw);
      if (hit !== undefined) return hit;
      const m = new Map<string, unknown>();
      for (const [k, v] of Object.entries(raw)) if (v !== null && v !== undefined) m.set(k, toCelValue(v, decl.value, memo));
      memo.set(raw, m);
      return m;
    }
    case 'list': {
      if (!Array.isArray(raw)) return raw;
      const hit = memo.get(raw);
      if (hit !== undefined) return hit;
      const list = raw.map((v) => toCelValue(v, decl.item, memo));
      if (decl.listType !== 'atomic') listKinds.set(list, decl);
      memo.set(raw, list);
      return list;
    }
    case 'scalar':
      switch (decl.scalar) {
        case 'int':
        case 'intOrString':
          return toInt(raw);
        case 'double':
          return typeof raw === 'bigint' ? Number(raw) : raw;
        case 'timestamp':
          return typeof raw === 'string' ? (parseTimestamp(raw) ?? raw) : raw;
        case 'duration':
          return typeof raw === 'string' ? (parseDuration(raw) ?? raw) : raw;
        case 'bytes':
          return typeof raw === 'string' ? new Uint8Array(Buffer.from(raw, 'base64')) : raw;
        default:
          return raw;
      }
  }
}

function numericValue(v: unknown): bigint | number | undefined {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (v instanceof UnsignedInt) return v.valueOf();
  return undefined;
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function mapEntries(v: unknown): Array<[unknown, unknown]> | undefined {
  if (v instanceof CelRecord) return undefined;
  if (v instanceof Map) return [...v.entries()];
  if (isPlainObject(v) && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null)) return Object.entries(v);
  return undefined;
}

function mapGet(v: unknown, key: unknown): { found: boolean; value: unknown } {
  if (v instanceof Map) return { found: v.has(key), value: v.get(key) };
  if (isPlainObject(v) && typeof key === 'string' && Object.prototype.hasOwnProperty.call(v, key)) return { found: true, value: v[key] };
  return { found: false, value: undefined };
}

function asList(v: unknown): readonly unknown[] | undefined {
  if (Array.isArray(v)) return v;
  if (v instanceof Set) return [...v];
  return undefined;
}

/** A string identifying a scalar value under CEL equality, or `undefined` for other values. */
function scalarKey(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string':
      return `s:${v}`;
    case 'boolean':
      return `b:${v}`;
    case 'bigint':
      return `n:${v}`;
    case 'number':
      return Number.isInteger(v) ? `n:${BigInt(v)}` : `n:${v}`;
    default:
      return v === null ? 'null' : undefined;
  }
}

function mapListKey(item: unknown, keys: ReadonlyArray<readonly [string, string]>): string | undefined {
  if (!(item instanceof CelRecord)) return undefined;
  let out = '';
  for (const [, cel] of keys) {
    const k = scalarKey(item.get(cel) ?? null);
    if (k === undefined) return undefined;
    out += `${k.length}:${k}`;
  }
  return out;
}

/** Every element of `b` is equal to some element of `a` (hashing scalars, comparing the rest pairwise). */
function containsAll(a: readonly unknown[], b: readonly unknown[]): boolean {
  const scalars = new Set<string>();
  const others: unknown[] = [];
  for (const x of a) {
    const k = scalarKey(x);
    if (k === undefined) others.push(x);
    else scalars.add(k);
  }
  outer: for (const y of b) {
    const k = scalarKey(y);
    if (k !== undefined) {
      if (!scalars.has(k)) return false;
      continue;
    }
    for (const x of others) if (celEqual(x, y)) continue outer;
    return false;
  }
  return true;
}

function listEqual(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  const kind = listKinds.get(a) ?? listKinds.get(b);
  if (kind?.listType === 'map' && kind.mapKeys.length > 0) {
    const index = new Map<string, unknown>();
    for (const x of a) {
      const k = mapListKey(x, kind.mapKeys);
      if (k === undefined) return false;
      index.set(k, x);
    }
    for (const y of b) {
      const k = mapListKey(y, kind.mapKeys);
      if (k === undefined || !index.has(k) || !celEqual(index.get(k), y)) return false;
    }
    return true;
  }
  if (kind !== undefined) return containsAll(a, b) && containsAll(b, a);
  for (let i = 0; i < a.length; i++) if (!celEqual(a[i], b[i])) return false;
  return true;
}

/**
 * CEL equality as Kubernetes evaluates it: numbers compare across int, uint and double;
 * lists of type set and map ignore order; records, maps and lists compare deeply;
 * values of different types are unequal.
 */
export function celEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const na = numericValue(a);
  if (na !== undefined) {
    const nb = numericValue(b);
    // eslint-disable-next-line eqeqeq
    return nb !== undefined && na == nb;
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (a instanceof Date) return b instanceof Date && a.getTime() === b.getTime();
  if (a instanceof Duration) return b instanceof Duration && a.seconds === b.seconds && a.nanos === b.nanos;
  if (a instanceof Uint8Array) return b instanceof Uint8Array && bytesEqual(a, b);
  if (a instanceof Quantity) return b instanceof Quantity && a.compare(b) === 0;
  if (a instanceof GoUrl) return b instanceof GoUrl && JSON.stringify(a) === JSON.stringify(b);
  if (a instanceof IpAddress) return b instanceof IpAddress && a.equals(b);
  if (a instanceof CidrPrefix) return b instanceof CidrPrefix && a.equals(b);
  if (a instanceof Optional) {
    if (!(b instanceof Optional)) return false;
    if (a.hasValue() !== b.hasValue()) return false;
    return !a.hasValue() || celEqual(a.value(), b.value());
  }
  const la = asList(a);
  if (la) {
    const lb = asList(b);
    return lb !== undefined && listEqual(la, lb);
  }
  if (a instanceof CelRecord) {
    if (!(b instanceof CelRecord) || a.constructor !== b.constructor || a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !celEqual(v, b.get(k))) return false;
    return true;
  }
  const ea = mapEntries(a);
  const eb = mapEntries(b);
  if (!ea || !eb || ea.length !== eb.length) return false;
  for (const [k, v] of ea) {
    const other = mapGet(b, k);
    if (!other.found || !celEqual(v, other.value)) return false;
  }
  return true;
}

/** Ordering for CEL's comparable types (numbers, strings, bools, bytes, timestamps, durations); `undefined` when not comparable. */
export function celCompare(a: unknown, b: unknown): number | undefined {
  const na = numericValue(a);
  const nb = numericValue(b);
  if (na !== undefined && nb !== undefined) return na < nb ? -1 : na > nb ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (a instanceof Date && b instanceof Date) return Math.sign(a.getTime() - b.getTime());
  if (a instanceof Duration && b instanceof Duration) {
    if (a.seconds !== b.seconds) return a.seconds < b.seconds ? -1 : 1;
    return Math.sign(a.nanos - b.nanos);
  }
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
    return Math.sign(a.length - b.length);
  }
  return undefined;
}

/** The number of elements a CEL list holds. */
export function celListItems(v: unknown): readonly unknown[] {
  return asList(v) ?? [];
}

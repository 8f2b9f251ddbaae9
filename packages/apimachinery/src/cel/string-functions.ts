/**
 * The string functions of cel-go's strings extension that cel-js lacks or implements
 * differently: ASCII-only case mapping, `charAt`, `replace`, `format` and `strings.quote`.
 */
import { quoteEscaped } from '../schema/go-text.js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { CelLibraryError } from './issues.js';
import { chargeTraversal } from './meter.js';
import { celListItems } from './values.js';

/** Lower-cases ASCII letters only (cel-go `lowerAscii`). */
export function asciiLower(s: string): string {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

/** Upper-cases ASCII letters only (cel-go `upperAscii`). */
export function asciiUpper(s: string): string {
  return s.replace(/[a-z]+/g, (m) => m.toUpperCase());
}

/** The character (code point) at `i`; the empty string at the end of the string. */
export function charAt(s: string, i: bigint): string {
  const chars = [...s];
  if (i < 0n || i > BigInt(chars.length)) throw new CelLibraryError(`index out of range: ${i}`);
  return chars[Number(i)] ?? '';
}

/** Replaces the first `n` occurrences (all when negative), as Go's `strings.Replace`. */
export function replaceN(s: string, from: string, to: string, n: bigint): string {
  chargeTraversal(s.length);
  if (n === 0n || (from === to && from !== '')) return s;
  let out = '';
  let count = 0n;
  if (from === '') {
    const chars = [...s];
    for (let i = 0; i <= chars.length; i++) {
      if (n < 0n || count < n) {
        out += to;
        count++;
      }
      if (i < chars.length) out += chars[i];
    }
    return out;
  }
  let pos = 0;
  for (;;) {
    if (n >= 0n && count >= n) break;
    const idx = s.indexOf(from, pos);
    if (idx < 0) break;
    out += s.slice(pos, idx) + to;
    pos = idx + from.length;
    count++;
  }
  return out + s.slice(pos);
}

/** `string(x)` as the strings extension's `%s` prints it. */
function formatString(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return formatDouble(v);
  if (v instanceof UnsignedInt) return String(v.valueOf());
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  if (v instanceof Date) return v.toISOString().replace('.000Z', 'Z');
  if (v instanceof Duration) return v.toString();
  if (Array.isArray(v) || v instanceof Set) return `[${celListItems(v).map(formatQuoted).join(', ')}]`;
  if (v instanceof Map) {
    const entries = [...v.entries()].map(([k, x]) => `${formatQuoted(k)}: ${formatQuoted(x)}`).sort();
    return `{${entries.join(', ')}}`;
  }
  if (typeof v === 'object' && v !== null && 'name' in v && typeof (v as { name: unknown }).name === 'string') return (v as { name: string }).name;
  return String(v);
}

function formatQuoted(v: unknown): string {
  return typeof v === 'string' ? quoteString(v) : formatString(v);
}

function formatDouble(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : '-Inf';
  return String(v);
}

/** A CEL string literal for `s` (cel-go `strings.quote`). */
export function quoteString(s: string): string {
  return quoteEscaped(s, false);
}

function formatInteger(v: unknown, radix: number, verb: string): string {
  if (typeof v === 'bigint') return v.toString(radix);
  if (v instanceof UnsignedInt) return v.valueOf().toString(radix);
  if (radix === 2 && typeof v === 'boolean') return v ? '1' : '0';
  if (radix === 16) {
    if (typeof v === 'string') return Buffer.from(v, 'utf8').toString('hex');
    if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
  }
  throw new CelLibraryError(`error during formatting: ${verb} clause can only be used on integers, was given ${typeNameOf(v)}`);
}

function typeNameOf(v: unknown): string {
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (v === null) return 'null_type';
  if (Array.isArray(v)) return 'list';
  if (v instanceof Map) return 'map';
  return typeof v;
}

/** The strings extension's `format`: `%s %d %f %e %b %o %x %X %%` with optional precision. */
export function formatWith(fmt: string, args: readonly unknown[]): string {
  chargeTraversal(fmt.length);
  let out = '';
  let argIndex = 0;
  for (let i = 0; i < fmt.length; i++) {
    const c = fmt[i];
    if (c !== '%') {
      out += c;
      continue;
    }
    if (fmt[i + 1] === '%') {
      out += '%';
      i++;
      continue;
    }
    const m = /^(?:\.([0-9]+))?([sdfeboxX])/.exec(fmt.slice(i + 1));
    if (!m) throw new CelLibraryError(`could not parse formatting clause: unrecognized formatting clause "${fmt[i + 1] ?? ''}"`);
    if (argIndex >= args.length) throw new CelLibraryError(`index ${argIndex} out of range`);
    const arg = args[argIndex++];
    const precision = m[1] === undefined ? undefined : Number(m[1]);
    switch (m[2]) {
      case 's':
        out += formatString(arg);
        break;
      case 'd':
        if (typeof arg === 'bigint' || arg instanceof UnsignedInt) out += String(arg.valueOf());
        else if (typeof arg === 'number' && !Number.isFinite(arg)) out += formatDouble(arg);
        else throw new CelLibraryError(`error during formatting: decimal clause can only be used on integers, was given ${typeNameOf(arg)}`);
        break;
      case 'f':
      case 'e': {
        const n = typeof arg === 'bigint' ? Number(arg) : arg instanceof UnsignedInt ? Number(arg.valueOf()) : arg;
        if (typeof n !== 'number') {
          throw new CelLibraryError(`error during formatting: fixed-point clause can only be used on doubles, was given ${typeNameOf(arg)}`);
        }
        if (!Number.isFinite(n)) out += formatDouble(n);
        else if (m[2] === 'f') out += n.toFixed(precision ?? 6);
        else out += n.toExponential(precision ?? 6).replace(/e([+-])(\d)$/, 'e$10$2');
        break;
      }
      case 'b':
        out += formatInteger(arg, 2, 'binary');
        break;
      case 'o':
        out += formatInteger(arg, 8, 'octal');
        break;
      case 'x':
        out += formatInteger(arg, 16, 'hex');
        break;
      case 'X':
        out += formatInteger(arg, 16, 'hex').toUpperCase();
        break;
    }
    i += m[0].length;
  }
  return out;
}

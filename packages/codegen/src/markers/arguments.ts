/**
 * Typed marker arguments, parsed as controller-tools parses them
 * (`pkg/markers/parse.go`): strings quoted or bare, lists as `{a,b}` or the legacy
 * `a;b`, maps as `{key: value}`, and `any` values whose type is guessed from the
 * first token (which is how `+kubebuilder:default=Allow` becomes a string and
 * `+kubebuilder:default={}` an object).
 */
import { EOF, MarkerSyntaxError, Scanner, unquoteGo } from './scanner.js';

export type ArgType =
  | { kind: 'string' | 'int' | 'number' | 'bool' | 'any' | 'raw' }
  | { kind: 'slice'; item: ArgType }
  | { kind: 'map'; item: ArgType };

/** A parsed argument value: what JSON can hold. */
export type ArgValue = string | number | boolean | null | ArgValue[] | { [key: string]: ArgValue };

export const Arg = {
  string: { kind: 'string' },
  int: { kind: 'int' },
  number: { kind: 'number' },
  bool: { kind: 'bool' },
  any: { kind: 'any' },
  raw: { kind: 'raw' },
  strings: { kind: 'slice', item: { kind: 'string' } },
  anys: { kind: 'slice', item: { kind: 'any' } },
} as const satisfies Record<string, ArgType>;

/** How an argument type reads in help texts and error messages, as controller-tools names them. */
export function argTypeName(t: ArgType): string {
  switch (t.kind) {
    case 'slice':
      return `[]${argTypeName(t.item)}`;
    case 'map':
      return `map[string]${argTypeName(t.item)}`;
    case 'any':
      return 'any';
    case 'raw':
      return 'raw';
    default:
      return t.kind;
  }
}

/** Parses one argument of type `t` from the scanner. */
export function parseArg(s: Scanner, t: ArgType, inSlice = false): ArgValue {
  switch (t.kind) {
    case 'raw': {
      const rest = s.text.slice(s.offset);
      while (s.scan().kind !== EOF);
      return rest;
    }
    case 'string':
      return parseString(s);
    case 'int':
      return parseInteger(s);
    case 'number':
      return parseNumber(s);
    case 'bool': {
      const tok = s.expect('ident', 'true or false');
      if (tok.text === 'true') return true;
      if (tok.text === 'false') return false;
      throw new MarkerSyntaxError(`expected true or false, got ${JSON.stringify(tok.text)}`, tok.offset);
    }
    case 'slice':
      return parseSlice(s, t.item);
    case 'map':
      return parseMap(s, t.item);
    case 'any':
      return parseArg(s, guessType(s, !inSlice), inSlice);
  }
}

function parseString(s: Scanner): string {
  const hint = s.peekNoSpace();
  if (hint === '"' || hint === '`') return unquoteGo(s.scan());
  // TypeScript users quote with single quotes; Go's scanner would not, but nothing valid there breaks.
  if (hint === "'") {
    const start = s.offset;
    const end = s.text.indexOf("'", start + 1);
    if (end < 0) throw new MarkerSyntaxError('literal not terminated', start);
    while (s.offset <= end) s.scan();
    return s.text.slice(start + 1, end);
  }
  // A bare string: every token up to an argument, list or map separator.
  const start = s.offset;
  let end = start;
  for (let c = s.peekNoSpace(); c !== '' && !',;:}'.includes(c); c = s.peekNoSpace()) {
    const tok = s.scan();
    end = tok.offset + tok.text.length;
  }
  return s.text.slice(start, end).trim();
}

function signedNumberText(s: Scanner, allowFloat: boolean, what: string): string {
  let sign = '';
  if (s.peekNoSpace() === '-') {
    s.scan();
    sign = '-';
  }
  const tok = s.scan();
  if (tok.kind !== 'int' && !(allowFloat && tok.kind === 'float')) {
    throw new MarkerSyntaxError(`expected ${what}, got ${JSON.stringify(tok.text)}`, tok.offset);
  }
  return sign + tok.text;
}

function parseInteger(s: Scanner): number {
  const text = signedNumberText(s, false, 'integer');
  if (!/^-?\d+$/.test(text)) throw new MarkerSyntaxError(`unable to parse integer: ${text}`, s.offset);
  return Number(text);
}

function parseNumber(s: Scanner): number {
  const text = signedNumberText(s, true, 'integer or float');
  const n = Number(text.replace(/_/g, ''));
  if (!Number.isFinite(n)) throw new MarkerSyntaxError(`unable to parse number: ${text}`, s.offset);
  return n;
}

function parseSlice(s: Scanner, item: ArgType): ArgValue[] {
  const out: ArgValue[] = [];
  if (s.peekNoSpace() === '{') {
    s.scan();
    while (s.peekNoSpace() !== '}' && s.peekNoSpace() !== '') {
      out.push(parseArg(s, item, true));
      if (s.peekNoSpace() === '}') break;
      s.expect(',', 'comma');
    }
    s.expect('}', 'close curly brace');
    return out;
  }
  // The legacy form, a;b;c, ends at an argument separator.
  for (let c = s.peekNoSpace(); c !== ',' && c !== '}' && c !== ''; c = s.peekNoSpace()) {
    out.push(parseArg(s, item, true));
    const next = s.peekNoSpace();
    if (next === ',' || next === '}' || next === '') break;
    s.expect(';', 'comma');
  }
  return out;
}

function parseMap(s: Scanner, item: ArgType): { [key: string]: ArgValue } {
  const out: { [key: string]: ArgValue } = {};
  s.expect('{', 'open curly brace');
  while (s.peekNoSpace() !== '}' && s.peekNoSpace() !== '') {
    const key = parseString(s);
    s.expect(':', 'colon');
    out[key] = parseArg(s, item, false);
    if (s.peekNoSpace() === '}') break;
    s.expect(',', 'comma');
  }
  s.expect('}', 'close curly brace');
  return out;
}

/** Guesses an `any` argument's type from what follows, as controller-tools does. */
function guessType(s: Scanner, allowSlice: boolean): ArgType {
  const look = new Scanner(s.text.slice(s.offset));
  if (allowSlice) {
    const item = guessType(s, false);
    for (;;) {
      const tok = look.scan();
      if (tok.kind === EOF || (tok.kind === 'char' && (tok.text === ',' || tok.text === ';'))) {
        return tok.text === ';' ? { kind: 'slice', item } : item;
      }
    }
  }
  const hint = look.peekNoSpace();
  if (hint === '"' || hint === "'" || hint === '`') return Arg.string;
  if (hint === '{') {
    look.scan();
    const inner = look.peekNoSpace();
    const first = guessType(look, false);
    if (first.kind === 'string') {
      parseString(look);
      const after = look.scan();
      if ((after.kind === 'char' && after.text === ':') || inner === '}') return { kind: 'map', item: Arg.any };
    }
    return { kind: 'slice', item: first };
  }
  if (hint === 't' || hint === 'f') {
    const tok = look.scan();
    if (tok.text === 'true' || tok.text === 'false') return Arg.bool;
    return Arg.string;
  }
  let tok = look.scan();
  if (tok.kind === 'char' && tok.text === '-') tok = look.scan();
  if (tok.kind === 'int') return Arg.int;
  if (tok.kind === 'float') return Arg.number;
  return Arg.string;
}

/**
 * Field selectors as k8s.io/apimachinery/pkg/fields parses and matches them:
 * `a=b`, `a==b`, `a!=b`, comma-separated, with `\,`, `\=` and `\\` escapes in values.
 */
import { SelectorError } from './labels.js';

/** `=` (also written `==`) or `!=`. */
export type FieldOperator = '=' | '!=';

/** One condition on one field. */
export interface FieldRequirement {
  readonly field: string;
  readonly operator: FieldOperator;
  /** The unescaped value. */
  readonly value: string;
}

/** Reads a field of the object under test; `undefined` (a missing field) reads as "". */
export type FieldGetter = (field: string) => string | undefined;

/** A parsed field selector. */
export interface FieldSelector {
  /** The requirements, in kube's order (sorted by their text). */
  readonly requirements: readonly FieldRequirement[];
  /** Whether all requirements hold for the object `get` reads from. */
  matches(get: FieldGetter): boolean;
  /** True when the selector selects everything. */
  empty(): boolean;
  /** The value `field` must have, when an `=` requirement pins it (for index lookups). */
  requiresExactMatch(field: string): string | undefined;
  /**
   * A selector with each requirement's field and value mapped by `fn` (kube's Transform,
   * used to rename field labels or reject unsupported ones by throwing). A requirement
   * mapped to an empty field and value is dropped.
   */
  transform(fn: (field: string, value: string) => { field: string; value: string }): FieldSelector;
  /** kube's canonical text, values escaped, e.g. `metadata.name=a\,b,spec.nodeName!=`. */
  toString(): string;
}

/** Escapes `\`, `,` and `=` so that any string can be a field selector value (kube's EscapeValue). */
export function escapeFieldSelectorValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/**
 * Undoes {@link escapeFieldSelectorValue}. An unknown escape, a trailing backslash, or a
 * bare `,` or `=` is an error, worded as kube words it. Go prints the bare character as
 * its code point (`61` for `=`), and so do we.
 */
export function unescapeFieldSelectorValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') {
        throw new SelectorError(`invalid field selector: invalid escape sequence: \\${c}`);
      }
      out += c;
      inSlash = false;
    } else if (c === '\\') {
      inSlash = true;
    } else if (c === ',' || c === '=') {
      throw new SelectorError(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else {
      out += c;
    }
  }
  if (inSlash) throw new SelectorError('invalid field selector: invalid escape sequence: \\');
  return out;
}

class RequirementsFieldSelector implements FieldSelector {
  constructor(readonly requirements: readonly FieldRequirement[]) {}
  matches(get: FieldGetter): boolean {
    return this.requirements.every((r) => ((get(r.field) ?? '') === r.value) === (r.operator === '='));
  }
  empty(): boolean {
    return this.requirements.length === 0;
  }
  requiresExactMatch(field: string): string | undefined {
    return this.requirements.find((r) => r.field === field && r.operator === '=')?.value;
  }
  transform(fn: (field: string, value: string) => { field: string; value: string }): FieldSelector {
    const next: FieldRequirement[] = [];
    for (const r of this.requirements) {
      const t = fn(r.field, r.value);
      if (t.field !== '' || t.value !== '') next.push({ field: t.field, operator: r.operator, value: t.value });
    }
    return new RequirementsFieldSelector(next);
  }
  toString(): string {
    return this.requirements.map((r) => `${r.field}${r.operator}${escapeFieldSelectorValue(r.value)}`).join(',');
  }
}

/** The selector that selects every object. */
export function everythingFieldSelector(): FieldSelector {
  return new RequirementsFieldSelector([]);
}

/** A selector requiring `field=value` for each entry. */
export function fieldSelectorFromSet(set: Readonly<Record<string, string>>): FieldSelector {
  return new RequirementsFieldSelector(Object.entries(set).map(([field, value]) => ({ field, operator: '=', value })));
}

/** Splits at commas not escaped by a backslash; the escapes stay in the terms. */
function splitTerms(selector: string): string[] {
  if (selector === '') return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

/** Operators in the order kube tries them at each position: `==` before `=` leaves no `=` in the value. */
const termOperators = ['!=', '==', '='] as const;

/** Splits a term at its first operator; the field part knows no escapes. */
function splitTerm(term: string): { field: string; op: (typeof termOperators)[number]; value: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of termOperators) {
      if (term.startsWith(op, i)) return { field: term.slice(0, i), op, value: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/** Go's byte-wise string order, which kube sorts the terms in. */
function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * Parses the `fieldSelector` query syntax, as kube's fields.ParseSelector does. An empty
 * text selects everything.
 * @throws SelectorError with kube-apiserver's message, e.g.
 *   `invalid selector: 'a'; can't understand 'a'`.
 */
export function parseFieldSelector(text: string): FieldSelector {
  const parts = splitTerms(text).sort(compareBytes);
  const requirements: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const t = splitTerm(part);
    if (!t) throw new SelectorError(`invalid selector: '${text}'; can't understand '${part}'`);
    const value = unescapeFieldSelectorValue(t.value);
    requirements.push({ field: t.field, operator: t.op === '!=' ? '!=' : '=', value });
  }
  // kube runs an identity transform after parsing, which drops `=` terms with nothing on either side.
  return new RequirementsFieldSelector(requirements).transform((field, value) => ({ field, value }));
}

/**
 * Reads a dotted path such as `spec.nodeName` from a JSON object, as a field selector
 * sees it: strings as they are, booleans and numbers in Go's formatting (`false`, `3`).
 * Missing fields, nulls, objects and arrays give `undefined`.
 *
 * kube's field sets read Go structs, where an absent boolean is `false` and an absent
 * number `0`; a caller that needs `spec.hostNetwork=false` to match a pod without the
 * field supplies such defaults itself.
 */
export function fieldValue(obj: unknown, path: string): string | undefined {
  let cur: unknown = obj;
  for (const key of path.split('.')) {
    if (typeof cur !== 'object' || cur === null || Array.isArray(cur)) return undefined;
    if (!Object.prototype.hasOwnProperty.call(cur, key)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  if (typeof cur === 'string') return cur;
  if (typeof cur === 'boolean') return cur ? 'true' : 'false';
  if (typeof cur === 'number') return String(cur);
  return undefined;
}

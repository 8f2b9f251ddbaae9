/**
 * Label selectors as k8s.io/apimachinery/pkg/labels parses and matches them: the
 * `?labelSelector=` syntax (`a=b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`,
 * `a>1`), and metav1.LabelSelector objects. Parse errors carry kube-apiserver's
 * wording, so the server can answer 400 with `err.message` as it is.
 */
import type { LabelSelector as LabelSelectorObject } from 'kubernetes-types/meta/v1.js';
import { isQualifiedName, isValidLabelValue } from '../validation/names.js';
import { aggregateMessages } from '../status.js';

export type { LabelSelectorObject };

/** A selector the user wrote wrongly; `message` is what kube-apiserver says about it. */
export class SelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectorError';
  }
}

/** kube's selection.Operator values. `exists` is a bare key, `!` a negated one. */
export type LabelOperator = '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

/** One condition on one label key. All requirements of a selector must hold. */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** One value for `=`, `==`, `!=`, `gt`, `lt`; one or more for `in`, `notin`; none for `exists`, `!`. */
  readonly values: readonly string[];
}

/** A parsed label selector. */
export interface LabelSelector {
  /** The requirements, sorted by key; empty for both "everything" and "nothing". */
  readonly requirements: readonly LabelRequirement[];
  /** Whether an object with these labels is selected. Absent labels count as none. */
  matches(labels: Readonly<Record<string, string>> | undefined | null): boolean;
  /** True when the selector selects everything (no requirements). The "nothing" selector is not empty. */
  empty(): boolean;
  /** The value `key` must have, when the selector pins it to exactly one (for index lookups). */
  requiresExactMatch(key: string): string | undefined;
  /** kube's canonical text, e.g. `app=web,tier in (a,b)`. */
  toString(): string;
}

const binaryOperators: readonly LabelOperator[] = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];

/** Go's `%#v` of a []string, used where kube prints the values slice in an error. */
function goStringSlice(values: readonly string[] | undefined): string {
  if (values === undefined) return '[]string(nil)';
  return `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
}

const int64 = /^[+-]?[0-9]+$/;
const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

/** Go's strconv.ParseInt(s, 10, 64), or undefined where Go reports an error. */
function parseInt64(s: string): bigint | undefined {
  if (!int64.test(s)) return undefined;
  const n = BigInt(s);
  return n < int64Min || n > int64Max ? undefined : n;
}

/** The `<path>: Invalid value: "<key>": <why>` error of a bad label key (path `<nil>` in the parser, as in kube). */
function labelKeyError(key: string, path: string): string | undefined {
  const errs = isQualifiedName(key);
  return errs.length ? `${path}: Invalid value: ${JSON.stringify(key)}: ${errs.join('; ')}` : undefined;
}

/**
 * Builds one requirement, checked as kube's labels.NewRequirement checks it.
 * `values` of undefined stands for Go's nil slice (it prints differently in errors).
 * @throws SelectorError with kube's aggregated message.
 */
export function newLabelRequirement(key: string, operator: LabelOperator, values?: readonly string[]): LabelRequirement {
  const errs: string[] = [];
  const keyErr = labelKeyError(key, 'key');
  if (keyErr) errs.push(keyErr);
  const vals = values ?? [];
  const invalidValues = (why: string) => `values: Invalid value: ${goStringSlice(values)}: ${why}`;
  switch (operator) {
    case 'in':
    case 'notin':
      if (vals.length === 0) errs.push(invalidValues("for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (vals.length !== 1) errs.push(invalidValues('exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (vals.length !== 0) errs.push(invalidValues('values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (vals.length !== 1) errs.push(invalidValues("for 'Gt', 'Lt' operators, exactly one value is required"));
      vals.forEach((v, i) => {
        if (parseInt64(v) === undefined) {
          errs.push(`values[${i}]: Invalid value: ${JSON.stringify(v)}: for 'Gt', 'Lt' operators, the value must be an integer`);
        }
      });
      break;
    default: {
      const supported = [...binaryOperators, 'exists', '!'].map((o) => JSON.stringify(o)).join(', ');
      errs.push(`operator: Unsupported value: ${JSON.stringify(operator)}: supported values: ${supported}`);
    }
  }
  vals.forEach((v, i) => {
    const msgs = isValidLabelValue(v);
    if (msgs.length) errs.push(`values[${i}][${key}]: Invalid value: ${JSON.stringify(v)}: ${msgs.join('; ')}`);
  });
  if (errs.length) throw new SelectorError(aggregateMessages(errs));
  return { key, operator, values: [...vals] };
}

function requirementMatches(r: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(labels[r.key]!);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(labels[r.key]!);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || r.values.length !== 1) return false;
      const actual = parseInt64(labels[r.key]!);
      const bound = parseInt64(r.values[0]!);
      if (actual === undefined || bound === undefined) return false;
      return r.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

const operatorText: Record<LabelOperator, string> = {
  '=': '=',
  '==': '==',
  '!=': '!=',
  in: ' in ',
  notin: ' notin ',
  gt: '>',
  lt: '<',
  exists: '',
  '!': '',
};

/** kube's Requirement.String(): values of a set sorted, without touching the requirement. */
function requirementString(r: LabelRequirement): string {
  const prefix = r.operator === '!' ? '!' : '';
  if (r.operator === 'exists' || r.operator === '!') return `${prefix}${r.key}`;
  const values = r.values.length === 1 ? r.values[0]! : [...r.values].sort().join(',');
  const set = r.operator === 'in' || r.operator === 'notin';
  return `${r.key}${operatorText[r.operator]}${set ? `(${values})` : values}`;
}

class RequirementsSelector implements LabelSelector {
  readonly requirements: readonly LabelRequirement[];
  constructor(requirements: readonly LabelRequirement[]) {
    // Sorted by key (stably) so that the text form is deterministic, as kube's Add does.
    this.requirements = [...requirements].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
  matches(labels: Readonly<Record<string, string>> | undefined | null): boolean {
    const ls = labels ?? {};
    return this.requirements.every((r) => requirementMatches(r, ls));
  }
  empty(): boolean {
    return this.requirements.length === 0;
  }
  requiresExactMatch(key: string): string | undefined {
    const r = this.requirements.find((q) => q.key === key);
    if (!r || !['=', '==', 'in'].includes(r.operator) || r.values.length !== 1) return undefined;
    return r.values[0];
  }
  toString(): string {
    return this.requirements.map(requirementString).join(',');
  }
}

const nothing: LabelSelector = Object.freeze({
  requirements: Object.freeze([]) as readonly LabelRequirement[],
  matches: () => false,
  empty: () => false,
  requiresExactMatch: () => undefined,
  toString: () => '',
});

/** The selector that selects every object (kube's labels.Everything()). */
export function everythingLabelSelector(): LabelSelector {
  return new RequirementsSelector([]);
}

/** The selector that selects no object (kube's labels.Nothing()). */
export function nothingLabelSelector(): LabelSelector {
  return nothing;
}

/** A selector of the given requirements, all of which must hold. */
export function labelSelectorFromRequirements(requirements: readonly LabelRequirement[]): LabelSelector {
  return new RequirementsSelector(requirements);
}

/** A selector matching exactly these labels (`k=v` for each); an empty set selects everything. */
export function labelSelectorFromSet(set: Readonly<Record<string, string>> | undefined | null): LabelSelector {
  return new RequirementsSelector(Object.entries(set ?? {}).map(([key, v]) => ({ key, operator: '=', values: [v] })));
}

// ---- The lexer and parser: a port of labels/selector.go's, so that errors match token for token.

type Token =
  | 'error'
  | 'eos'
  | ')'
  | ','
  | '!'
  | '=='
  | '='
  | '>'
  | 'identifier'
  | 'in'
  | '<'
  | '!='
  | 'notin'
  | '(';

interface Scanned {
  tok: Token;
  lit: string;
}

const literalTokens: Readonly<Record<string, Token>> = {
  ')': ')',
  ',': ',',
  '!': '!',
  '==': '==',
  '=': '=',
  '>': '>',
  in: 'in',
  '<': '<',
  '!=': '!=',
  notin: 'notin',
  '(': '(',
};

const isWhitespace = (ch: string) => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecialSymbol = (ch: string) => '=!(),><'.includes(ch);

function lookupToken(s: string): Token | undefined {
  return Object.prototype.hasOwnProperty.call(literalTokens, s) ? literalTokens[s] : undefined;
}

function lex(s: string): Scanned[] {
  const items: Scanned[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWhitespace(s[pos]!)) pos++;
    if (pos >= s.length) {
      items.push({ tok: 'eos', lit: '' });
      return items;
    }
    if (isSpecialSymbol(s[pos]!)) {
      // The longest run of symbols that still spells an operator: `!=` rather than `!` then `=`.
      let buffer = '';
      let last: Scanned | undefined;
      while (pos < s.length && isSpecialSymbol(s[pos]!)) {
        buffer += s[pos];
        const tok = lookupToken(buffer);
        if (tok) last = { tok, lit: buffer };
        else if (last) break;
        pos++;
      }
      items.push(last ?? { tok: 'error', lit: `error expected: keyword found '${buffer}'` });
    } else {
      const start = pos;
      while (pos < s.length && !isSpecialSymbol(s[pos]!) && !isWhitespace(s[pos]!)) pos++;
      const lit = s.slice(start, pos);
      items.push({ tok: lookupToken(lit) ?? 'identifier', lit });
    }
  }
}

/** Where a token is read: among values, `in` and `notin` are plain identifiers (`a in (in)`). */
type Context = 'keyAndOperator' | 'values';

class Parser {
  private position = 0;
  constructor(private readonly items: Scanned[]) {}

  private lookahead(ctx: Context): Scanned {
    return this.asContext(this.items[this.position]!, ctx);
  }
  private consume(ctx: Context): Scanned {
    return this.asContext(this.items[this.position++]!, ctx);
  }
  private asContext(item: Scanned, ctx: Context): Scanned {
    return ctx === 'values' && (item.tok === 'in' || item.tok === 'notin') ? { tok: 'identifier', lit: item.lit } : item;
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead('values');
      switch (tok) {
        case 'identifier':
        case '!': {
          let r: LabelRequirement;
          try {
            r = this.parseRequirement();
          } catch (e) {
            if (e instanceof SelectorError) throw new SelectorError(`unable to parse requirement: ${e.message}`);
            throw e;
          }
          requirements.push(r);
          const next = this.consume('values');
          if (next.tok === 'eos') return requirements;
          if (next.tok === ',') {
            const after = this.lookahead('values');
            if (after.tok !== 'identifier' && after.tok !== '!') {
              throw new SelectorError(`found '${after.lit}', expected: identifier after ','`);
            }
            break;
          }
          throw new SelectorError(`found '${next.lit}', expected: ',' or 'end of string'`);
        }
        case 'eos':
          return requirements;
        default:
          throw new SelectorError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  private parseRequirement(): LabelRequirement {
    const { key, operator } = this.parseKeyAndInferOperator();
    if (operator === 'exists' || operator === '!') return newLabelRequirement(key, operator, []);
    const op = this.parseOperator();
    const values = op === 'in' || op === 'notin' ? this.parseValues() : this.parseExactValue();
    // kube collects values in a set and lists them sorted.
    return newLabelRequirement(key, op, [...values].sort());
  }

  private parseKeyAndInferOperator(): { key: string; operator: LabelOperator | undefined } {
    let operator: LabelOperator | undefined;
    let item = this.consume('values');
    if (item.tok === '!') {
      operator = '!';
      item = this.consume('values');
    }
    if (item.tok !== 'identifier') throw new SelectorError(`found '${item.lit}', expected: identifier`);
    const keyErr = labelKeyError(item.lit, '<nil>');
    if (keyErr) throw new SelectorError(keyErr);
    const next = this.lookahead('values').tok;
    if ((next === 'eos' || next === ',') && operator !== '!') operator = 'exists';
    return { key: item.lit, operator };
  }

  private parseOperator(): LabelOperator {
    const { tok, lit } = this.consume('keyAndOperator');
    switch (tok) {
      case 'in':
        return 'in';
      case '=':
        return '=';
      case '==':
        return '==';
      case '>':
        return 'gt';
      case '<':
        return 'lt';
      case 'notin':
        return 'notin';
      case '!=':
        return '!=';
      default:
        throw new SelectorError(`found '${lit}', expected: ${binaryOperators.join(', ')}`);
    }
  }

  private parseValues(): Set<string> {
    const open = this.consume('values');
    if (open.tok !== '(') throw new SelectorError(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.lookahead('values');
    switch (tok) {
      case 'identifier':
      case ',': {
        const values = this.parseIdentifiersList();
        if (this.consume('values').tok !== ')') throw new SelectorError(`found '${lit}', expected: ')'`);
        return values;
      }
      case ')':
        this.consume('values');
        return new Set(['']);
      default:
        throw new SelectorError(`found '${lit}', expected: ',', ')' or identifier`);
    }
  }

  /** A comma-separated list of possibly empty values: `(a,,b)` holds a, "" and b. */
  private parseIdentifiersList(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const { tok, lit } = this.consume('values');
      if (tok === 'identifier') {
        values.add(lit);
        const next = this.lookahead('values');
        if (next.tok === ',') continue;
        if (next.tok === ')') return values;
        throw new SelectorError(`found '${next.lit}', expected: ',' or ')'`);
      } else if (tok === ',') {
        if (values.size === 0) values.add('');
        const next = this.lookahead('values').tok;
        if (next === ')') {
          values.add('');
          return values;
        }
        if (next === ',') {
          this.consume('values');
          values.add('');
        }
      } else {
        throw new SelectorError(`found '${lit}', expected: ',', or identifier`);
      }
    }
  }

  private parseExactValue(): Set<string> {
    const ahead = this.lookahead('values').tok;
    if (ahead === 'eos' || ahead === ',') return new Set(['']);
    const { tok, lit } = this.consume('values');
    if (tok === 'identifier') return new Set([lit]);
    throw new SelectorError(`found '${lit}', expected: identifier`);
  }
}

/**
 * Parses the `labelSelector` query syntax, as kube's labels.Parse does. An empty or
 * blank text selects everything.
 * @throws SelectorError with kube-apiserver's message, e.g.
 *   `unable to parse requirement: found 'x' expected: '('` for `a in x`.
 */
export function parseLabelSelector(text: string): LabelSelector {
  return new RequirementsSelector(new Parser(lex(text)).parse());
}

/** kube's metav1 operator names and the selector operators they map to. */
const objectOperators: Readonly<Record<string, LabelOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/** What {@link labelSelectorFromObject} does with an absent (undefined or null) selector. */
export interface LabelSelectorFromObjectOptions {
  /**
   * `nothing` (the default) is kube's LabelSelectorAsSelector: a nil selector selects no
   * object (ReplicaSets, PodDisruptionBudgets). `everything` is for fields where absence
   * means "no restriction" (webhooks' namespaceSelector and objectSelector).
   * An empty `{}` selector selects everything either way.
   */
  absent?: 'nothing' | 'everything';
}

/**
 * Converts a metav1.LabelSelector (matchLabels and matchExpressions with In, NotIn,
 * Exists, DoesNotExist) as kube's LabelSelectorAsSelector does.
 * @throws SelectorError for an unknown operator (`"Foo" is not a valid label selector operator`)
 *   or a bad key, value or value count, in kube's words.
 */
export function labelSelectorFromObject(
  sel: LabelSelectorObject | undefined | null,
  opts: LabelSelectorFromObjectOptions = {},
): LabelSelector {
  if (sel === undefined || sel === null) {
    return opts.absent === 'everything' ? everythingLabelSelector() : nothingLabelSelector();
  }
  const requirements: LabelRequirement[] = [];
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) requirements.push(newLabelRequirement(k, '=', [v]));
  for (const expr of sel.matchExpressions ?? []) {
    const op = Object.prototype.hasOwnProperty.call(objectOperators, expr.operator) ? objectOperators[expr.operator] : undefined;
    if (!op) throw new SelectorError(`${JSON.stringify(expr.operator ?? '')} is not a valid label selector operator`);
    // An absent or empty values list is Go's nil slice here (kube copies with append(nil, ...)).
    const values = expr.values && expr.values.length > 0 ? expr.values : undefined;
    requirements.push(newLabelRequirement(expr.key, op, values));
  }
  return new RequirementsSelector(requirements);
}

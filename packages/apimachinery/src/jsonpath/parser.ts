/**
 * The parser of Kubernetes' JSONPath templates (client-go util/jsonpath): the
 * dialect `kubectl -o jsonpath=...`, `kubectl get -o custom-columns` and CRD
 * additionalPrinterColumns use. A template is plain text with actions in
 * braces, e.g. `{range .items[*]}{.metadata.name}{"\n"}{end}`.
 *
 * The grammar, its quirks and its error messages follow client-go's parser
 * (e.g. `['a.b']` is two fields, `a` then `b`; `[]` means `[0]`).
 */

/** One bound of a slice `[start:end:step]`, as client-go keeps it. */
export interface JsonPathSliceParam {
  /** The number given, or derived (`end` of a single index is `start + 1`). */
  value: number;
  /** Whether a value was given (or derived); an unknown bound takes its default. */
  known: boolean;
  /** True for the `end` of a single index such as `[-1]`, which wraps like a negative index. */
  derived: boolean;
}

/** A sequence of nodes evaluated one after the other; each `{...}` action is one. */
export interface JsonPathListNode {
  type: 'list';
  nodes: JsonPathNode[];
}

/** Literal text: outside actions, or a quoted string inside one. */
export interface JsonPathTextNode {
  type: 'text';
  text: string;
}

/** `.name`: a key of an object. */
export interface JsonPathFieldNode {
  type: 'field';
  name: string;
}

/** `[i]`, `[a:b]`, `[a:b:step]`, `[*]`: elements of an array. */
export interface JsonPathArrayNode {
  type: 'array';
  params: [JsonPathSliceParam, JsonPathSliceParam, JsonPathSliceParam];
}

/** `[?(@.x == "y")]`, or `[?(@.x)]` (operator `exists`): array elements passing a test. */
export interface JsonPathFilterNode {
  type: 'filter';
  left: JsonPathListNode;
  right: JsonPathListNode;
  /** `==`, `!=`, `<`, `>`, `<=`, `>=`, `exists`, or whatever else was written (an error at run time). */
  operator: string;
}

/** An integer literal (in filters). */
export interface JsonPathIntNode {
  type: 'int';
  value: number;
}

/** A floating-point literal such as `1.5` (in filters). */
export interface JsonPathFloatNode {
  type: 'float';
  value: number;
}

/** `true` or `false`. */
export interface JsonPathBoolNode {
  type: 'bool';
  value: boolean;
}

/** `.*`: every value of an object or array. */
export interface JsonPathWildcardNode {
  type: 'wildcard';
}

/** `..`: the value and everything below it. */
export interface JsonPathRecursiveNode {
  type: 'recursive';
}

/** `[a,b]`: the results of each alternative, in order. */
export interface JsonPathUnionNode {
  type: 'union';
  nodes: JsonPathListNode[];
}

/** A keyword: `range` or `end` (anything else is an error at run time). */
export interface JsonPathIdentifierNode {
  type: 'identifier';
  name: string;
}

/** Any node of a parsed template. */
export type JsonPathNode =
  | JsonPathListNode
  | JsonPathTextNode
  | JsonPathFieldNode
  | JsonPathArrayNode
  | JsonPathFilterNode
  | JsonPathIntNode
  | JsonPathFloatNode
  | JsonPathBoolNode
  | JsonPathWildcardNode
  | JsonPathRecursiveNode
  | JsonPathUnionNode
  | JsonPathIdentifierNode;

/** A parsed template: its top-level text and action nodes, in order. */
export interface JsonPathTemplate {
  /** The template as written. */
  readonly source: string;
  /** Top-level nodes: text nodes and one list node per `{...}` action. */
  readonly root: JsonPathListNode;
}

/**
 * A parse or execution error, worded as client-go words it
 * (e.g. `unclosed action`, `name is not found`).
 */
export class JsonPathError extends Error {
  /**
   * What the failing step had produced when it failed. client-go's filters
   * use it: an existence test (`[?(@.a[5])]`) counts a partial result as a match.
   */
  readonly partial: readonly unknown[];

  constructor(message: string, partial: readonly unknown[] = []) {
    super(message);
    this.name = 'JsonPathError';
    this.partial = partial;
  }
}

const EOF = -1;

const dictKeyPattern = /^'([^']*)'$/;
const slicePattern = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;
const filterPattern = /^([^!<>=]+)([!<>=]+)(.+?)$/;

function isSpace(r: number): boolean {
  return r === 0x20 || r === 0x09;
}

function isEndOfLine(r: number): boolean {
  return r === 0x0d || r === 0x0a;
}

// Made at first use: V8 parses a regular expression as it makes it, and Unicode classes cost every start.
let letterRe: RegExp | undefined;
let digitRe: RegExp | undefined;
let printableRe: RegExp | undefined;
const letterPattern = (): RegExp => (letterRe ??= /^\p{L}$/u);
const digitPattern = (): RegExp => (digitRe ??= /^\p{Nd}$/u);
const printablePattern = (): RegExp => (printableRe ??= /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u);

function isDigit(r: number): boolean {
  return r >= 0 && digitPattern().test(String.fromCodePoint(r));
}

function isAlphaNumeric(r: number): boolean {
  if (r < 0) return false;
  if (r === 0x5f) return true;
  const c = String.fromCodePoint(r);
  return letterPattern().test(c) || digitPattern().test(c);
}

/** Whether `r` may end an identifier or a field name. */
function isTerminator(r: number): boolean {
  if (r === EOF || isSpace(r) || isEndOfLine(r)) return true;
  switch (String.fromCodePoint(r)) {
    case '.':
    case ',':
    case '[':
    case ']':
    case '$':
    case '@':
    case '{':
    case '}':
      return true;
  }
  return false;
}

/** Go's `%#U`: `U+002A '*'` (the character only when printable). */
function formatRune(r: number): string {
  const hex = r.toString(16).toUpperCase().padStart(4, '0');
  const c = String.fromCodePoint(r);
  return printablePattern().test(c) ? `U+${hex} '${c}'` : `U+${hex}`;
}

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();
const simpleEscapes: Record<string, number> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 0x5c };

/**
 * client-go's `UnquoteExtend`: Go's `strconv.Unquote` for double- or
 * single-quoted strings of any length. Returns undefined on bad syntax.
 */
function unquoteExtend(quoted: string): string | undefined {
  if (quoted.length < 2) return undefined;
  const quote = quoted[0];
  if (quote !== quoted[quoted.length - 1] || (quote !== '"' && quote !== "'")) return undefined;
  const body = quoted.slice(1, -1);
  if (!body.includes('\\') && !body.includes(quote)) return body;
  const bytes: number[] = [];
  const cps = Array.from(body);
  for (let i = 0; i < cps.length; ) {
    const c = cps[i];
    if (c === quote) return undefined;
    if (c !== '\\') {
      bytes.push(...utf8.encode(c));
      i++;
      continue;
    }
    if (i + 1 >= cps.length) return undefined;
    const e = cps[i + 1];
    i += 2;
    if (e in simpleEscapes) {
      bytes.push(simpleEscapes[e]);
    } else if (e === 'x' || e === 'u' || e === 'U') {
      const n = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const hex = cps.slice(i, i + n).join('');
      if (hex.length !== n || !/^[0-9a-fA-F]+$/.test(hex)) return undefined;
      i += n;
      const v = parseInt(hex, 16);
      if (e === 'x') {
        bytes.push(v);
      } else {
        if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return undefined;
        bytes.push(...utf8.encode(String.fromCodePoint(v)));
      }
    } else if (e >= '0' && e <= '7') {
      const oct = e + cps.slice(i, i + 2).join('');
      if (!/^[0-7]{3}$/.test(oct)) return undefined;
      i += 2;
      const v = parseInt(oct, 8);
      if (v > 255) return undefined;
      bytes.push(v);
    } else if (e === "'" || e === '"') {
      if (e !== quote) return undefined;
      bytes.push(e.charCodeAt(0));
    } else {
      return undefined;
    }
  }
  return utf8Decoder.decode(new Uint8Array(bytes));
}

function newList(): JsonPathListNode {
  return { type: 'list', nodes: [] };
}

/** client-go's `parseAction`: parses `{text}` and returns its one action list. */
function parseAction(text: string): JsonPathListNode {
  const root = new Parser(`{${text}}`).parse();
  const first = root.nodes[0];
  return first && first.type === 'list' ? first : newList();
}

/** What to do after one step inside an action. */
type Next = 'action' | 'text';

class Parser {
  private pos = 0;
  private start = 0;
  private width = 0;
  private readonly root = newList();

  constructor(private readonly input: string) {}

  parse(): JsonPathListNode {
    let mode: Next = 'text';
    let cur: JsonPathListNode = this.root;
    for (;;) {
      if (mode === 'text') {
        const at = this.input.indexOf('{', this.pos);
        if (at < 0) {
          this.pos = this.input.length;
          if (this.pos > this.start) this.root.nodes.push({ type: 'text', text: this.consume() });
          return this.root;
        }
        this.pos = at;
        if (this.pos > this.start) this.root.nodes.push({ type: 'text', text: this.consume() });
        this.pos += 1;
        this.consume();
        cur = newList();
        this.root.nodes.push(cur);
      }
      mode = this.insideAction(cur);
    }
  }

  private consume(): string {
    const value = this.input.slice(this.start, this.pos);
    this.start = this.pos;
    return value;
  }

  private next(): number {
    if (this.pos >= this.input.length) {
      this.width = 0;
      return EOF;
    }
    const r = this.input.codePointAt(this.pos) ?? EOF;
    this.width = r > 0xffff ? 2 : 1;
    this.pos += this.width;
    return r;
  }

  private peek(): number {
    const r = this.next();
    this.backup();
    return r;
  }

  private backup(): void {
    this.pos -= this.width;
  }

  private rest(): string {
    return this.input.slice(this.pos);
  }

  /** One step of client-go's `parseInsideAction`. */
  private insideAction(cur: JsonPathListNode): Next {
    const rest = this.rest();
    if (rest.startsWith('}')) {
      this.pos += 1;
      this.consume();
      return 'text';
    }
    if (rest.startsWith('[?(')) {
      this.parseFilter(cur);
      return 'action';
    }
    if (rest.startsWith('..')) {
      this.parseRecursive(cur);
      return 'action';
    }
    const r = this.next();
    if (r === EOF || isEndOfLine(r)) throw new JsonPathError('unclosed action');
    if (r === 0x20 || r === 0x40 /* @ */ || r === 0x24 /* $ */) {
      this.consume();
    } else if (r === 0x5b /* [ */) {
      this.parseArray(cur);
    } else if (r === 0x22 || r === 0x27) {
      this.parseQuote(cur, r);
    } else if (r === 0x2e /* . */) {
      this.parseField(cur);
    } else if (r === 0x2b || r === 0x2d || isDigit(r)) {
      this.backup();
      this.parseNumber(cur);
    } else if (isAlphaNumeric(r)) {
      this.backup();
      this.parseIdentifier(cur);
    } else {
      throw new JsonPathError(`unrecognized character in action: ${formatRune(r)}`);
    }
    return 'action';
  }

  private parseIdentifier(cur: JsonPathListNode): void {
    for (;;) {
      const r = this.next();
      if (isTerminator(r)) {
        this.backup();
        break;
      }
    }
    const value = this.consume();
    if (value === 'true' || value === 'false') cur.nodes.push({ type: 'bool', value: value === 'true' });
    else cur.nodes.push({ type: 'identifier', name: value });
  }

  private parseRecursive(cur: JsonPathListNode): void {
    const last = cur.nodes[cur.nodes.length - 1];
    if (last && last.type === 'recursive') throw new JsonPathError('invalid multiple recursive descent');
    this.pos += 2;
    this.consume();
    cur.nodes.push({ type: 'recursive' });
    if (isAlphaNumeric(this.peek())) this.parseField(cur);
  }

  private parseNumber(cur: JsonPathListNode): void {
    const first = this.peek();
    if (first === 0x2b || first === 0x2d) this.next();
    for (;;) {
      const r = this.next();
      if (r !== 0x2e && !isDigit(r)) {
        this.backup();
        break;
      }
    }
    const value = this.consume();
    if (/^[+-]?[0-9]+$/.test(value)) {
      const n = Number(value);
      // Go's Atoi takes 64-bit integers; beyond that, ParseFloat gets it.
      if (Math.abs(n) < 2 ** 63) {
        cur.nodes.push({ type: 'int', value: n });
        return;
      }
    }
    if (/^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)$/.test(value)) {
      cur.nodes.push({ type: 'float', value: Number(value) });
      return;
    }
    throw new JsonPathError(`cannot parse number ${value}`);
  }

  private parseArray(cur: JsonPathListNode): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || r === 0x0a) throw new JsonPathError('unterminated array');
      if (r === 0x5d /* ] */) break;
    }
    let text = this.consume();
    text = text.slice(1, -1);
    if (text === '*') text = ':';

    const alternatives = text.split(',');
    if (alternatives.length > 1) {
      const nodes = alternatives.map((alt) => parseAction(`[${trimSpaces(alt)}]`));
      cur.nodes.push({ type: 'union', nodes });
      return;
    }

    const key = dictKeyPattern.exec(text);
    if (key) {
      cur.nodes.push(...parseAction(`.${key[1]}`).nodes);
      return;
    }

    const m = slicePattern.exec(text);
    if (!m) throw new JsonPathError(`invalid array index ${text}`);
    const groups = [m[1] ?? '', m[2] ?? '', m[3] ?? ''];
    const params: [JsonPathSliceParam, JsonPathSliceParam, JsonPathSliceParam] = [
      { value: 0, known: false, derived: false },
      { value: 0, known: false, derived: false },
      { value: 0, known: false, derived: false },
    ];
    for (let i = 0; i < 3; i++) {
      let g = groups[i];
      if (g !== '') {
        if (i > 0) g = g.slice(1);
        if (i > 0 && g === '') {
          params[i].known = false;
        } else {
          if (!/^[+-]?[0-9]+$/.test(g)) throw new JsonPathError(`array index ${g} is not a number`);
          params[i].known = true;
          params[i].value = Number(g);
        }
      } else if (i === 1) {
        params[i] = { value: params[0].value + 1, known: true, derived: true };
      }
    }
    cur.nodes.push({ type: 'array', params });
  }

  private parseFilter(cur: JsonPathListNode): void {
    this.pos += 3;
    this.consume();
    let begin = false;
    let end = false;
    let pair = 0;
    for (;;) {
      const r = this.next();
      if (r === EOF || r === 0x0a) throw new JsonPathError('unterminated filter');
      if (r === 0x22 || r === 0x27) {
        if (!begin) {
          begin = true;
          pair = r;
          continue;
        }
        if (this.input[this.pos - 2] !== '\\' && r === pair) end = true;
      } else if (r === 0x29 /* ) */) {
        if (begin === end) break;
      }
    }
    if (this.next() !== 0x5d) throw new JsonPathError('unclosed array expect ]');
    let text = this.consume();
    text = text.slice(0, -2);
    const m = filterPattern.exec(text);
    if (!m) {
      cur.nodes.push({ type: 'filter', left: parseAction(text), right: newList(), operator: 'exists' });
    } else {
      cur.nodes.push({ type: 'filter', left: parseAction(m[1]), right: parseAction(m[3]), operator: m[2] });
    }
  }

  private parseQuote(cur: JsonPathListNode, quote: number): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || r === 0x0a) throw new JsonPathError('unterminated quoted string');
      if (r === quote && this.input[this.pos - 2] !== '\\') break;
    }
    const value = this.consume();
    const text = unquoteExtend(value);
    if (text === undefined) throw new JsonPathError(`unquote string ${value} error invalid syntax`);
    cur.nodes.push({ type: 'text', text });
  }

  private parseField(cur: JsonPathListNode): void {
    this.consume();
    while (this.advance()) {
      // scan to the next unescaped terminator
    }
    const value = this.consume();
    if (value === '*') cur.nodes.push({ type: 'wildcard' });
    else cur.nodes.push({ type: 'field', name: value.replaceAll('\\', '') });
  }

  private advance(): boolean {
    const r = this.next();
    if (r === 0x5c /* \ */) {
      this.next();
    } else if (isTerminator(r)) {
      this.backup();
      return false;
    }
    return true;
  }
}

/** Go's `strings.Trim(s, " ")`. */
function trimSpaces(s: string): string {
  return s.replace(/^ +| +$/g, '');
}

/**
 * Parses a JSONPath template as client-go does. Throws a {@link JsonPathError}
 * worded as kube's (`unclosed action`, `unterminated array`,
 * `unrecognized character in action: U+002A '*'`, ...).
 *
 * @example parseJsonPath('{range .items[*]}{.metadata.name}{"\\n"}{end}')
 */
export function parseJsonPath(template: string): JsonPathTemplate {
  return { source: template, root: new Parser(template).parse() };
}

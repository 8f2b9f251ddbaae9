/**
 * Extracts the Go type declarations of k8s.io/api and k8s.io/apimachinery into
 * `packages/codegen/src/k8s/go-types.json` (the IR described in
 * `src/k8s/go-types.ts`).
 *
 * Why: controller-gen writes k8s.io/api types (PodTemplateSpec, Container,
 * metav1.Condition, ...) out in full inside CRDs, and it does so from the Go
 * sources: field order, json tags, doc comments and the markers in them
 * (`+optional`, `+listType=map`, `+kubebuilder:validation:MaxLength=316`, ...).
 * The `kubernetes-types` package has the shapes but none of those facts, so
 * our generator reads them from this committed data file instead. This script
 * only records facts as written in the sources; it does not interpret markers.
 *
 * The Go sources are read from bare git mirrors with `git show <ref>:<path>`
 * (no checkout needed). The mirrors are not available in CI, so this script is
 * run by hand and its output is committed. To re-run (from the repo root):
 *
 *   node --import tsx packages/codegen/scripts/extract-go-types.ts \
 *     [--api /work/.mirror/kubernetes+api/repo] \
 *     [--apimachinery /work/.mirror/kubernetes+apimachinery/repo] \
 *     [--ref v0.36.0] [--out packages/codegen/src/k8s/go-types.json] \
 *     [--root k8s.io/api/events/v1 ...]
 *
 * `--root` adds a root package (repeatable); the apiserver's
 * gen-go-encoded-zeros.ts needs the groups it serves beyond ROOT_PACKAGES.
 *
 * What is extracted: every type declaration of the root packages (ROOT_PACKAGES
 * below), plus, transitively, every declaration of any other package of the
 * two repos that those declarations reference. Non-root packages contribute
 * only the declarations actually reachable (k8s.io/apimachinery/pkg/runtime as a
 * whole references klog, structured-merge-diff, ...; only RawExtension & co.
 * are needed). References to packages outside the two repos (the standard
 * library, gopkg.in/inf.v0) are kept as `named` refs without a declaration.
 *
 * The Go parser here is deliberately small: a tokenizer that understands
 * comments, strings, raw strings and runes (with Go's automatic semicolons),
 * then a parser for top-level `type` declarations only; func/var/const
 * declarations are skipped by bracket matching.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { GoField, GoTypeDecl, GoTypeExpr, GoTypeIndex } from '../src/k8s/go-types.js';

const API_MODULE = 'k8s.io/api';
const APIMACHINERY_MODULE = 'k8s.io/apimachinery';

const ROOT_PACKAGES = [
  'k8s.io/api/core/v1',
  'k8s.io/api/apps/v1',
  'k8s.io/api/batch/v1',
  'k8s.io/api/networking/v1',
  'k8s.io/api/rbac/v1',
  'k8s.io/api/policy/v1',
  'k8s.io/api/autoscaling/v1',
  'k8s.io/api/autoscaling/v2',
  'k8s.io/api/coordination/v1',
  'k8s.io/api/discovery/v1',
  'k8s.io/api/storage/v1',
  'k8s.io/api/scheduling/v1',
  'k8s.io/api/admissionregistration/v1',
  'k8s.io/apimachinery/pkg/apis/meta/v1',
];

// ---------------------------------------------------------------------------
// Command line

interface Options {
  api: string;
  apimachinery: string;
  ref: string;
  out: string;
  /** Root packages added to ROOT_PACKAGES. */
  roots: string[];
}

function parseArgs(argv: string[]): Options {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const opts: Options = {
    api: '/work/.mirror/kubernetes+api/repo',
    apimachinery: '/work/.mirror/kubernetes+apimachinery/repo',
    ref: 'v0.36.0',
    out: path.resolve(here, '../src/k8s/go-types.json'),
    roots: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (value === undefined) throw new Error(`missing value for ${flag}`);
    switch (flag) {
      case '--api': opts.api = value; break;
      case '--apimachinery': opts.apimachinery = value; break;
      case '--ref': opts.ref = value; break;
      case '--out': opts.out = path.resolve(value); break;
      case '--root': opts.roots.push(value); break;
      default: throw new Error(`unknown argument ${flag} (expected --api, --apimachinery, --ref, --out, --root)`);
    }
    i++;
  }
  return opts;
}

// ---------------------------------------------------------------------------
// Reading the mirrors

/** Where a Go import path lives: a bare repo and a directory inside it. */
interface RepoLocation {
  repo: string;
  dir: string;
}

class GoSources {
  constructor(private readonly opts: Options) {}

  /** Maps an import path of the two modules to its repo dir; null for anything else. */
  locate(importPath: string): RepoLocation | null {
    for (const [module, repo] of [[API_MODULE, this.opts.api], [APIMACHINERY_MODULE, this.opts.apimachinery]] as const) {
      if (importPath === module) return { repo, dir: '' };
      if (importPath.startsWith(module + '/')) return { repo, dir: importPath.slice(module.length + 1) };
    }
    return null;
  }

  /** Names of the .go files directly inside `loc.dir` (not recursive). */
  listGoFiles(loc: RepoLocation): string[] {
    const treeish = `${this.opts.ref}:${loc.dir}`;
    let out: string;
    try {
      out = this.git(loc.repo, ['ls-tree', '--name-only', treeish]);
    } catch {
      return []; // not a directory at this ref
    }
    return out.split('\n').filter((name) => name.endsWith('.go')).sort();
  }

  read(loc: RepoLocation, file: string): string {
    const p = loc.dir === '' ? file : `${loc.dir}/${file}`;
    return this.git(loc.repo, ['show', `${this.opts.ref}:${p}`]);
  }

  private git(repo: string, args: string[]): string {
    return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
  }
}

// ---------------------------------------------------------------------------
// Tokenizer

type TokenKind = 'ident' | 'number' | 'string' | 'rune' | 'op' | 'semi';

interface Token {
  kind: TokenKind;
  /** Source text; for strings the *decoded* value. */
  text: string;
  line: number;
  endLine: number;
  /** true for a semicolon inserted at a newline (Go's automatic semicolons). */
  auto: boolean;
  /** Number of comments seen before this token: comments[commentsBefore] is the first one after it. */
  commentsBefore: number;
}

interface Comment {
  /** `//` or `/*` comment. */
  block: boolean;
  /** Raw text without the comment delimiters. */
  body: string;
  line: number;
  endLine: number;
}

interface Tokenized {
  tokens: Token[];
  comments: Comment[];
}

/** Operators, longest first so that `<-` wins over `<`. */
const OPERATORS = [
  '<<=', '>>=', '&^=', '...', '&&', '||', '<-', '++', '--', '==', '!=', '<=', '>=', ':=', '+=', '-=', '*=', '/=', '%=',
  '&=', '|=', '^=', '<<', '>>', '&^', '~',
  '+', '-', '*', '/', '%', '&', '|', '^', '<', '>', '=', '!', '(', ')', '[', ']', '{', '}', ',', ';', '.', ':',
];

const IDENT_START = /[\p{L}_]/u;
const IDENT_PART = /[\p{L}\p{Nd}_]/u;

/** Whether Go inserts a semicolon at a newline following this token. */
function endsStatement(tok: Token | undefined): boolean {
  if (!tok || tok.kind === 'semi') return false;
  if (tok.kind === 'ident') return true; // includes break/continue/fallthrough/return; other keywords never end a line in valid Go
  if (tok.kind === 'number' || tok.kind === 'string' || tok.kind === 'rune') return true;
  return [')', ']', '}', '++', '--'].includes(tok.text);
}

export function tokenize(src: string): Tokenized {
  const tokens: Token[] = [];
  const comments: Comment[] = [];
  let i = 0;
  let line = 1;

  const push = (kind: TokenKind, text: string, startLine: number, auto = false): void => {
    tokens.push({ kind, text, line: startLine, endLine: line, auto, commentsBefore: comments.length });
  };
  const newline = (): void => {
    if (endsStatement(tokens[tokens.length - 1])) push('semi', ';', line, true);
    line++;
  };

  while (i < src.length) {
    const c = src[i]!;
    if (c === '\n') {
      newline();
      i++;
    } else if (c === ' ' || c === '\t' || c === '\r') {
      i++;
    } else if (src.startsWith('//', i)) {
      const end = src.indexOf('\n', i);
      const stop = end < 0 ? src.length : end;
      comments.push({ block: false, body: src.slice(i + 2, stop).replace(/\r$/, ''), line, endLine: line });
      i = stop; // the newline itself is handled above (and may insert a semicolon)
    } else if (src.startsWith('/*', i)) {
      const end = src.indexOf('*/', i + 2);
      if (end < 0) throw new Error(`unterminated block comment at line ${line}`);
      const body = src.slice(i + 2, end);
      const startLine = line;
      const newlines = countNewlines(body);
      // A block comment spanning lines acts like a newline for semicolon insertion.
      if (newlines > 0 && endsStatement(tokens[tokens.length - 1])) push('semi', ';', line, true);
      line += newlines;
      comments.push({ block: true, body: body.replace(/\r/g, ''), line: startLine, endLine: line });
      i = end + 2;
    } else if (c === '`') {
      const end = src.indexOf('`', i + 1);
      if (end < 0) throw new Error(`unterminated raw string at line ${line}`);
      const startLine = line;
      const value = src.slice(i + 1, end);
      line += countNewlines(value);
      push('string', value.replace(/\r/g, ''), startLine);
      i = end + 1;
    } else if (c === '"' || c === "'") {
      const end = scanQuoted(src, i, c, line);
      const raw = src.slice(i, end);
      push(c === '"' ? 'string' : 'rune', c === '"' ? unquote(raw) : raw, line);
      i = end;
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const m = /^(?:0[xX][0-9a-fA-F_.pP+-]*|[0-9_.]+(?:[eE][+-]?[0-9_]+)?)i?/.exec(src.slice(i, i + 64));
      const text = m ? m[0] : c;
      push('number', text, line);
      i += text.length;
    } else if (IDENT_START.test(c)) {
      let j = i + 1;
      while (j < src.length && IDENT_PART.test(src[j]!)) j++;
      push('ident', src.slice(i, j), line);
      i = j;
    } else {
      const op = OPERATORS.find((o) => src.startsWith(o, i));
      if (!op) throw new Error(`unexpected character ${JSON.stringify(c)} at line ${line}`);
      push(op === ';' ? 'semi' : 'op', op, line);
      i += op.length;
    }
  }
  if (endsStatement(tokens[tokens.length - 1])) push('semi', ';', line, true);
  return { tokens, comments };
}

function countNewlines(s: string): number {
  let n = 0;
  for (const ch of s) if (ch === '\n') n++;
  return n;
}

/** Returns the index just past the closing quote of a "..." or '...' literal starting at `start`. */
function scanQuoted(src: string, start: number, quote: string, line: number): number {
  let j = start + 1;
  while (j < src.length) {
    const ch = src[j]!;
    if (ch === '\\') j += 2;
    else if (ch === quote) return j + 1;
    else if (ch === '\n') break;
    else j++;
  }
  throw new Error(`unterminated ${quote === '"' ? 'string' : 'rune'} literal at line ${line}`);
}

/** Decodes a Go interpreted string literal (only needed for struct tags, which rarely use escapes). */
function unquote(raw: string): string {
  const body = raw.slice(1, -1);
  return body.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{3}|.)/g, (_, esc: string) => {
    const simple: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"' };
    if (esc.length === 1) return simple[esc] ?? esc;
    if (/^[0-7]{3}$/.test(esc)) return String.fromCharCode(parseInt(esc, 8));
    return String.fromCodePoint(parseInt(esc.slice(1), 16));
  });
}

// ---------------------------------------------------------------------------
// Comments: groups, docs, markers

/** A run of comments on consecutive lines (go/ast's CommentGroup). */
interface CommentGroup {
  comments: Comment[];
  line: number;
  endLine: number;
}

/** Text lines of a comment: after `//` (or inside `/* *\/`), one leading space removed. */
function commentLines(c: Comment): string[] {
  const lines = c.block ? c.body.split('\n') : [c.body];
  return lines.map((l) => (l.startsWith(' ') ? l.slice(1) : l));
}

function groupLines(g: CommentGroup | undefined): string[] {
  return g ? g.comments.flatMap(commentLines) : [];
}

/**
 * The comments between the previous (real) token and `tokIndex`, split into
 * groups the way go/parser does. Comments on the same line as the previous
 * token are its line comment (`Foo int // ...`) and are left out; the rest are
 * grouped by adjacency (no blank line in between).
 */
function commentGroupsBefore(t: Tokenized, tokIndex: number): CommentGroup[] {
  let prev = tokIndex - 1;
  while (prev >= 0 && t.tokens[prev]!.auto) prev--;
  const from = prev >= 0 ? t.tokens[prev]!.commentsBefore : 0;
  const prevLine = prev >= 0 ? t.tokens[prev]!.endLine : -1;
  const cur = t.tokens[tokIndex]!;
  const comments = t.comments.slice(from, cur.commentsBefore);

  let k = 0;
  while (k < comments.length && comments[k]!.line === prevLine) k++; // the previous token's line comment
  const groups: CommentGroup[] = [];
  for (const c of comments.slice(k)) {
    const last = groups[groups.length - 1];
    if (last && c.line <= last.endLine + 1) {
      last.comments.push(c);
      last.endLine = c.endLine;
    } else {
      groups.push({ comments: [c], line: c.line, endLine: c.endLine });
    }
  }
  return groups;
}

interface DocInfo {
  doc: CommentGroup | undefined;
  /** The closest comment group before the node that is not its doc comment (controller-gen reads markers from it). */
  previous: CommentGroup | undefined;
}

function docFor(t: Tokenized, tokIndex: number): DocInfo {
  const groups = commentGroupsBefore(t, tokIndex);
  const last = groups[groups.length - 1];
  const line = t.tokens[tokIndex]!.line;
  if (last && last.endLine + 1 === line) return { doc: last, previous: groups[groups.length - 2] };
  return { doc: undefined, previous: last };
}

/** Marker lines: `//` comments whose text starts with `+` (controller-gen's isMarkerComment). */
function markerLines(g: CommentGroup | undefined): string[] {
  if (!g) return [];
  return g.comments.filter((c) => !c.block && c.body.trim().startsWith('+')).flatMap(commentLines);
}

// ---------------------------------------------------------------------------
// Build constraints (the default build: linux/amd64, gc, cgo, no custom tags)

const KNOWN_GOOS = ['aix', 'android', 'darwin', 'dragonfly', 'freebsd', 'hurd', 'illumos', 'ios', 'js', 'linux', 'nacl', 'netbsd', 'openbsd', 'plan9', 'solaris', 'wasip1', 'windows', 'zos'];
const KNOWN_GOARCH = ['386', 'amd64', 'arm', 'arm64', 'loong64', 'mips', 'mipsle', 'mips64', 'mips64le', 'ppc64', 'ppc64le', 'riscv64', 's390x', 'wasm'];
const UNIX_GOOS = ['aix', 'android', 'darwin', 'dragonfly', 'freebsd', 'hurd', 'illumos', 'ios', 'linux', 'netbsd', 'openbsd', 'solaris'];
const TARGET = { goos: 'linux', goarch: 'amd64' };

function tagSatisfied(tag: string): boolean {
  if (tag === TARGET.goos || tag === TARGET.goarch || tag === 'gc' || tag === 'cgo') return true;
  if (tag === 'unix') return UNIX_GOOS.includes(TARGET.goos);
  return /^go1\.\d+$/.test(tag); // any released Go version
}

/** Evaluates a `//go:build` expression (`!`, `&&`, `||`, parentheses). */
function evalGoBuild(expr: string): boolean {
  const toks = expr.match(/!|&&|\|\||\(|\)|[\w.]+/g) ?? [];
  let pos = 0;
  const parseOr = (): boolean => {
    let v = parseAnd();
    while (toks[pos] === '||') { pos++; const r = parseAnd(); v = v || r; }
    return v;
  };
  const parseAnd = (): boolean => {
    let v = parseNot();
    while (toks[pos] === '&&') { pos++; const r = parseNot(); v = v && r; }
    return v;
  };
  const parseNot = (): boolean => {
    const tok = toks[pos++];
    if (tok === '!') return !parseNot();
    if (tok === '(') { const v = parseOr(); pos++; return v; }
    if (tok === undefined) throw new Error(`bad build constraint: ${expr}`);
    return tagSatisfied(tok);
  };
  return parseOr();
}

/** Evaluates old-style `// +build` lines: lines are ANDed, space-separated options ORed, commas ANDed. */
function evalPlusBuild(lines: string[]): boolean {
  return lines.every((l) =>
    l.trim().split(/\s+/).some((opt) => opt.split(',').every((t) => (t.startsWith('!') ? !tagSatisfied(t.slice(1)) : tagSatisfied(t)))),
  );
}

/** Whether a file is part of the default build, by its name and its constraint comments. */
function fileIncluded(name: string, t: Tokenized): boolean {
  if (name.endsWith('_test.go') || name.startsWith('_') || name.startsWith('.')) return false;
  // _GOOS, _GOARCH and _GOOS_GOARCH file name suffixes.
  const parts = name.slice(0, -3).split('_');
  const last = parts[parts.length - 1] ?? '';
  const beforeLast = parts.length > 2 ? parts[parts.length - 2] ?? '' : '';
  if (parts.length > 1 && KNOWN_GOARCH.includes(last)) {
    if (last !== TARGET.goarch) return false;
    if (KNOWN_GOOS.includes(beforeLast) && beforeLast !== TARGET.goos) return false;
  } else if (parts.length > 1 && KNOWN_GOOS.includes(last) && last !== TARGET.goos) {
    return false;
  }
  // Constraints are comments before the package clause.
  const pkgTok = t.tokens.findIndex((tok) => tok.kind === 'ident' && tok.text === 'package');
  const header = t.comments.slice(0, pkgTok >= 0 ? t.tokens[pkgTok]!.commentsBefore : 0).filter((c) => !c.block);
  const goBuild = header.find((c) => c.body.startsWith('go:build '));
  if (goBuild) return evalGoBuild(goBuild.body.slice('go:build '.length));
  const plusBuild = header.map((c) => c.body.trim()).filter((b) => b.startsWith('+build ')).map((b) => b.slice('+build '.length));
  return evalPlusBuild(plusBuild);
}

/** Generated files without hand-written type declarations. */
function skippedByName(name: string): boolean {
  return name === 'generated.pb.go' || name.startsWith('zz_generated') || name.endsWith('_swagger_doc_generated.go');
}

// ---------------------------------------------------------------------------
// Parser for top-level type declarations

const BASIC_TYPES = new Set([
  'bool', 'string', 'int', 'int8', 'int16', 'int32', 'int64', 'uint', 'uint8', 'uint16', 'uint32', 'uint64', 'uintptr',
  'byte', 'rune', 'float32', 'float64', 'complex64', 'complex128', 'error',
]);

/** Resolves the package qualifier of `x.Name` to an import path. */
type QualifierResolver = (qualifier: string) => string;

/** A parsed type declaration, before the closure walk decides whether it is kept. */
interface ParsedDecl extends GoTypeDecl {
  name: string;
}

interface ParsedFile {
  packageName: string;
  /** Import path -> explicit alias (undefined when none; "_" and "." kept as is). */
  imports: { path: string; alias: string | undefined }[];
  decls: ParsedDecl[];
  /** Problems worth reporting (e.g. array lengths given by a constant). */
  warnings: string[];
}

export class FileParser {
  private pos = 0;
  private readonly tokens: Token[];
  private resolveQualifier: QualifierResolver = (q) => { throw new Error(`import ${q} used before imports are known`); };
  private typeParams = new Set<string>();
  readonly result: ParsedFile = { packageName: '', imports: [], decls: [], warnings: [] };

  constructor(
    private readonly t: Tokenized,
    private readonly pkgPath: string,
    private readonly fileName: string,
    private readonly makeResolver: (imports: ParsedFile['imports']) => QualifierResolver,
  ) {
    this.tokens = t.tokens;
  }

  parse(): ParsedFile {
    this.expectIdent('package');
    this.result.packageName = this.next().text;
    this.skipSemis();
    while (this.isIdent('import')) {
      this.parseImportDecl();
      this.skipSemis();
    }
    this.resolveQualifier = this.makeResolver(this.result.imports);
    while (this.pos < this.tokens.length) {
      if (this.isIdent('type')) this.parseTypeDecl();
      else this.skipDecl();
      this.skipSemis();
    }
    return this.result;
  }

  // -- token helpers

  private peek(offset = 0): Token | undefined {
    return this.tokens[this.pos + offset];
  }

  private next(): Token {
    const tok = this.tokens[this.pos++];
    if (!tok) throw this.error('unexpected end of file');
    return tok;
  }

  private isOp(text: string, offset = 0): boolean {
    const tok = this.peek(offset);
    return tok?.kind === 'op' && tok.text === text;
  }

  private isIdent(text?: string, offset = 0): boolean {
    const tok = this.peek(offset);
    return tok?.kind === 'ident' && (text === undefined || tok.text === text);
  }

  private isSemi(offset = 0): boolean {
    return this.peek(offset)?.kind === 'semi';
  }

  private expectOp(text: string): Token {
    if (!this.isOp(text)) throw this.error(`expected ${text}`);
    return this.next();
  }

  private expectIdent(text?: string): Token {
    if (!this.isIdent(text)) throw this.error(`expected ${text ?? 'identifier'}`);
    return this.next();
  }

  private skipSemis(): void {
    while (this.isSemi()) this.pos++;
  }

  private error(message: string): Error {
    const tok = this.peek();
    return new Error(`${this.pkgPath}/${this.fileName}:${tok?.line ?? 'EOF'}: ${message} (at ${JSON.stringify(tok?.text)})`);
  }

  /** Skips a balanced (...) / [...] / {...} starting at the current opening bracket. */
  private skipBalanced(): void {
    let depth = 0;
    do {
      const tok = this.next();
      if (tok.kind === 'op' && ['(', '[', '{'].includes(tok.text)) depth++;
      else if (tok.kind === 'op' && [')', ']', '}'].includes(tok.text)) depth--;
    } while (depth > 0);
  }

  /** Skips a func/var/const declaration: everything up to the next semicolon outside brackets. */
  private skipDecl(): void {
    while (this.pos < this.tokens.length && !this.isSemi()) {
      if (this.isOp('(') || this.isOp('[') || this.isOp('{')) this.skipBalanced();
      else this.pos++;
    }
  }

  // -- imports

  private parseImportDecl(): void {
    this.expectIdent('import');
    if (this.isOp('(')) {
      this.pos++;
      this.skipSemis();
      while (!this.isOp(')')) {
        this.parseImportSpec();
        this.skipSemis();
      }
      this.pos++;
    } else {
      this.parseImportSpec();
    }
  }

  private parseImportSpec(): void {
    let alias: string | undefined;
    if (this.isIdent()) alias = this.next().text;
    else if (this.isOp('.')) { this.pos++; alias = '.'; }
    const tok = this.next();
    if (tok.kind !== 'string') throw this.error('expected import path');
    this.result.imports.push({ path: tok.text, alias });
  }

  // -- type declarations

  private parseTypeDecl(): void {
    const typeTok = this.pos;
    this.expectIdent('type');
    if (!this.isOp('(')) {
      this.parseTypeSpec(docFor(this.t, typeTok));
      return;
    }
    const groupDoc = docFor(this.t, typeTok);
    this.pos++;
    this.skipSemis();
    const specs: number[] = [];
    while (!this.isOp(')')) {
      specs.push(this.pos);
      this.parseTypeSpec(docFor(this.t, this.pos));
      this.skipSemis();
    }
    this.pos++;
    // go/doc convention: a group's only spec without a comment of its own takes the group's doc comment.
    const only = this.result.decls[this.result.decls.length - 1];
    if (specs.length === 1 && only && only.doc.length === 0 && groupDoc.doc) {
      only.doc = groupLines(groupDoc.doc);
    }
  }

  private parseTypeSpec(docs: DocInfo): void {
    const name = this.expectIdent().text;
    this.typeParams = this.parseTypeParams();
    if (this.isOp('=')) this.pos++; // alias declaration: recorded like a normal declaration
    const type = this.parseType();
    this.typeParams = new Set();
    this.result.decls.push({ name, doc: groupLines(docs.doc), extraMarkers: markerLines(docs.previous), type });
  }

  /**
   * `type Set[T comparable] ...`: returns the parameter names. `[` after the
   * name is a parameter list unless it is an array/slice length (`[]T`, `[N]T`, `[pkg.N]T`).
   */
  private parseTypeParams(): Set<string> {
    const names = new Set<string>();
    if (!this.isOp('[') || this.isOp(']', 1) || !this.isIdent(undefined, 1) || this.isOp(']', 2) || this.isOp('.', 2)) return names;
    const line = this.next().line;
    while (!this.isOp(']')) {
      // Parameter names up to the constraint, then the constraint itself.
      names.add(this.expectIdent().text);
      while (this.isOp(',')) { this.pos++; names.add(this.expectIdent().text); }
      this.skipConstraint();
      if (this.isOp(',')) this.pos++;
    }
    this.pos++;
    this.result.warnings.push(`${this.pkgPath}/${this.fileName}:${line}: generic type declaration; its type parameters are recorded as interface`);
    return names;
  }

  private skipConstraint(): void {
    while (!this.isOp(',') && !this.isOp(']')) {
      if (this.isOp('(') || this.isOp('[') || this.isOp('{')) this.skipBalanced();
      else this.pos++;
    }
  }

  // -- type expressions

  private parseType(): GoTypeExpr {
    const tok = this.peek();
    if (!tok) throw this.error('expected type');
    if (tok.kind === 'op') {
      switch (tok.text) {
        case '*': this.pos++; return { kind: 'pointer', elem: this.parseType() };
        case '[': return this.parseArrayOrSlice();
        case '(': { this.pos++; const inner = this.parseType(); this.expectOp(')'); return inner; }
        case '<-': this.pos++; this.expectIdent('chan'); this.parseType(); return { kind: 'interface' };
      }
      throw this.error('expected type');
    }
    if (tok.kind !== 'ident') throw this.error('expected type');
    switch (tok.text) {
      case 'struct': return this.parseStruct();
      case 'interface': this.pos++; this.skipBalanced(); return { kind: 'interface' };
      case 'map': return this.parseMap();
      case 'func': this.pos++; this.skipSignature(); return { kind: 'interface' };
      case 'chan':
        this.pos++;
        if (this.isOp('<-')) this.pos++;
        this.parseType();
        return { kind: 'interface' };
    }
    return this.parseTypeName();
  }

  private parseArrayOrSlice(): GoTypeExpr {
    this.expectOp('[');
    if (this.isOp(']')) {
      this.pos++;
      return { kind: 'slice', elem: this.parseType() };
    }
    const lenTok = this.next();
    let len = Number(lenTok.kind === 'number' ? lenTok.text.replace(/_/g, '') : NaN);
    if (!this.isOp(']') || !Number.isInteger(len)) {
      // A constant expression as length: not evaluated (never seen in API types).
      this.result.warnings.push(`${this.pkgPath}/${this.fileName}:${lenTok.line}: array length ${lenTok.text}... not a literal; recorded as -1`);
      len = -1;
      while (!this.isOp(']')) this.pos++;
    }
    this.expectOp(']');
    return { kind: 'array', len, elem: this.parseType() };
  }

  private parseMap(): GoTypeExpr {
    this.expectIdent('map');
    this.expectOp('[');
    const key = this.parseType();
    this.expectOp(']');
    return { kind: 'map', key, elem: this.parseType() };
  }

  /** Skips `(params) results` of a func type; results may be a parenthesized list or a single type. */
  private skipSignature(): void {
    if (this.isOp('[')) this.skipBalanced(); // (type parameters are not allowed here, but be lenient)
    this.skipBalanced();
    if (this.isOp('(')) this.skipBalanced();
    else if (this.startsType()) this.parseType();
  }

  private startsType(): boolean {
    const tok = this.peek();
    if (!tok) return false;
    if (tok.kind === 'ident') return true;
    return tok.kind === 'op' && ['*', '[', '(', '<-'].includes(tok.text);
  }

  /** `Name`, `pkg.Name`, optionally instantiated (`sets.Set[string]`). */
  private parseTypeName(): GoTypeExpr {
    const first = this.expectIdent();
    const qualified = this.isOp('.');
    const name = qualified ? (this.pos++, this.expectIdent().text) : first.text;
    if (this.isOp('[') && !this.isOp(']', 1)) {
      // Instantiation of a generic type: the type arguments are not recorded.
      this.skipBalanced();
      this.result.warnings.push(`${this.pkgPath}/${this.fileName}:${first.line}: type arguments of ${qualified ? first.text + '.' : ''}${name} not recorded`);
    }
    if (qualified) return { kind: 'named', pkg: this.resolveQualifier(first.text), name };
    if (this.typeParams.has(name) || name === 'any') return { kind: 'interface' };
    if (BASIC_TYPES.has(name)) return { kind: 'basic', name };
    return { kind: 'named', pkg: this.pkgPath, name };
  }

  private parseStruct(): GoTypeExpr {
    this.expectIdent('struct');
    this.expectOp('{');
    this.skipSemis();
    const fields: GoField[] = [];
    while (!this.isOp('}')) {
      fields.push(...this.parseFieldDecl());
      this.skipSemis();
    }
    this.pos++;
    return { kind: 'struct', fields };
  }

  /** One line of a struct: `A, B T "tag"`, `T "tag"`, `*T`, `pkg.T`. */
  private parseFieldDecl(): GoField[] {
    const doc = groupLines(docFor(this.t, this.pos).doc);
    if (this.isEmbedded()) {
      const type = this.parseType();
      const base = type.kind === 'pointer' ? type.elem : type;
      const name = base.kind === 'named' || base.kind === 'basic' ? base.name : '?';
      return [{ name, embedded: true, tag: this.parseTag(), doc, type }];
    }
    const names = [this.expectIdent().text];
    while (this.isOp(',')) {
      this.pos++;
      names.push(this.expectIdent().text);
    }
    const type = this.parseType();
    const tag = this.parseTag();
    return names.map((name) => ({ name, embedded: false, tag, doc: [...doc], type }));
  }

  /** An embedded field is `*T`, `pkg.T` or `T` followed by a tag/end of line. */
  private isEmbedded(): boolean {
    if (this.isOp('*')) return true;
    if (!this.isIdent()) throw this.error('expected field');
    if (this.isOp('.', 1)) return true;
    const after = this.peek(1);
    return !after || after.kind === 'semi' || after.kind === 'string' || (after.kind === 'op' && after.text === '}');
  }

  /** The json key of the struct tag, if a tag follows; "" otherwise. */
  private parseTag(): string {
    if (this.peek()?.kind !== 'string') return '';
    return lookupStructTag(this.next().text, 'json') ?? '';
  }
}

/** reflect.StructTag.Lookup: `key:"value" key2:"value2"`. */
function lookupStructTag(tag: string, key: string): string | undefined {
  let rest = tag;
  while (rest !== '') {
    rest = rest.replace(/^ +/, '');
    const m = /^([^\x00-\x20:"\x7f]+):"((?:[^"\\]|\\.)*)"/.exec(rest);
    if (!m) return undefined;
    if (m[1] === key) return unquote(`"${m[2]}"`);
    rest = rest.slice(m[0].length);
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// Packages and the closure walk

interface LoadedPackage {
  decls: Map<string, ParsedDecl>;
  /** Parser warnings, reported only if the package ends up in the output. */
  warnings: string[];
}

class Extractor {
  private readonly packages = new Map<string, LoadedPackage | null>();
  private readonly packageNames = new Map<string, string | null>();
  readonly warnings: string[] = [];

  constructor(private readonly sources: GoSources) {}

  /** Parses all type declarations of a package of the two repos; null if not in them (or empty). */
  load(importPath: string): LoadedPackage | null {
    if (!this.packages.has(importPath)) {
      const loc = this.sources.locate(importPath);
      this.packages.set(importPath, loc ? this.parsePackage(importPath, loc) : null);
    }
    return this.packages.get(importPath) ?? null;
  }

  /** The Go files of a package that are part of the default build, tokenized. */
  private buildFiles(loc: RepoLocation): { file: string; tokens: Tokenized }[] {
    const files = this.sources.listGoFiles(loc).filter((f) => !skippedByName(f));
    return files.map((file) => ({ file, tokens: tokenize(this.sources.read(loc, file)) })).filter(({ file, tokens }) => fileIncluded(file, tokens));
  }

  private parsePackage(importPath: string, loc: RepoLocation): LoadedPackage | null {
    const decls = new Map<string, ParsedDecl>();
    const warnings: string[] = [];
    let found = false;
    for (const { file, tokens } of this.buildFiles(loc)) {
      const parsed = new FileParser(tokens, importPath, file, (imports) => this.resolverFor(importPath, file, imports)).parse();
      if (parsed.packageName.endsWith('_test')) continue;
      found = true;
      warnings.push(...parsed.warnings);
      for (const decl of parsed.decls) {
        if (decls.has(decl.name)) throw new Error(`${importPath}: duplicate type ${decl.name} (build constraints?)`);
        decls.set(decl.name, decl);
      }
    }
    return found ? { decls, warnings } : null;
  }

  private resolverFor(pkgPath: string, file: string, imports: ParsedFile['imports']): QualifierResolver {
    return (qualifier) => {
      const explicit = imports.find((imp) => imp.alias === qualifier);
      if (explicit) return explicit.path;
      const implicit = imports.find((imp) => imp.alias === undefined && this.packageName(imp.path) === qualifier);
      if (implicit) return implicit.path;
      throw new Error(`${pkgPath}/${file}: cannot resolve package qualifier ${qualifier}`);
    };
  }

  /**
   * The package clause name of an import path: read from the first file for
   * our repos (without parsing the package: it may be one we do not need),
   * conventional otherwise (last path element without a major version suffix).
   */
  private packageName(importPath: string): string {
    if (!this.packageNames.has(importPath)) {
      const loc = this.sources.locate(importPath);
      const first = loc ? this.buildFiles(loc)[0]?.tokens.tokens : undefined;
      const clause = first?.findIndex((tok) => tok.kind === 'ident' && tok.text === 'package') ?? -1;
      this.packageNames.set(importPath, first && clause >= 0 ? first[clause + 1]?.text ?? null : null);
    }
    const known = this.packageNames.get(importPath);
    if (known) return known;
    const segments = importPath.split('/');
    let last = segments[segments.length - 1] ?? importPath;
    if (/^v\d+$/.test(last) && segments.length > 1 && importPath.includes('.')) last = segments[segments.length - 2] ?? last; // module major version suffix
    return last.replace(/\.v\d+$/, '').replace(/^go-/, '').replace(/[-.]/g, '_');
  }

  /** Root packages keep every declaration; others only what is reachable from them. */
  run(roots: string[]): GoTypeIndex['packages'] {
    const kept = new Map<string, Map<string, ParsedDecl>>();
    const queue: ParsedDecl[] = [];
    const keep = (pkgPath: string, decl: ParsedDecl): void => {
      let m = kept.get(pkgPath);
      if (!m) kept.set(pkgPath, (m = new Map()));
      if (m.has(decl.name)) return;
      m.set(decl.name, decl);
      queue.push(decl);
    };
    for (const root of roots) {
      const pkg = this.load(root);
      if (!pkg) throw new Error(`root package ${root} not found`);
      for (const decl of pkg.decls.values()) keep(root, decl);
    }
    for (let decl = queue.shift(); decl; decl = queue.shift()) {
      for (const ref of namedRefs(decl.type)) {
        if (!this.sources.locate(ref.pkg)) continue; // outside the two repos: left unresolved on purpose
        const target = this.load(ref.pkg)?.decls.get(ref.name);
        if (target) keep(ref.pkg, target);
        else this.warnings.push(`unresolved reference ${ref.pkg}.${ref.name}`);
      }
    }
    for (const pkgPath of kept.keys()) this.warnings.push(...(this.load(pkgPath)?.warnings ?? []));
    return toSortedRecord(kept);
  }
}

function namedRefs(t: GoTypeExpr): { pkg: string; name: string }[] {
  switch (t.kind) {
    case 'named': return [{ pkg: t.pkg, name: t.name }];
    case 'pointer': case 'slice': case 'array': return namedRefs(t.elem);
    case 'map': return [...namedRefs(t.key), ...namedRefs(t.elem)];
    case 'struct': return t.fields.flatMap((f) => namedRefs(f.type));
    case 'basic': case 'interface': return [];
  }
}

/** Sorted package and type keys; each decl without the parser's `name`. */
function toSortedRecord(kept: Map<string, Map<string, ParsedDecl>>): GoTypeIndex['packages'] {
  const out: GoTypeIndex['packages'] = {};
  for (const pkgPath of [...kept.keys()].sort()) {
    const types: Record<string, GoTypeDecl> = {};
    const decls = kept.get(pkgPath)!;
    for (const name of [...decls.keys()].sort()) {
      const { doc, extraMarkers, type } = decls.get(name)!;
      types[name] = { doc, extraMarkers, type };
    }
    out[pkgPath] = types;
  }
  return out;
}

// ---------------------------------------------------------------------------
// Main

/** Prints a few facts to eyeball against the Go sources. */
function printSpotChecks(index: GoTypeIndex): void {
  const decl = (pkg: string, name: string): GoTypeDecl | undefined => index.packages[pkg]?.[name];
  const fieldNames = (d: GoTypeDecl | undefined): string => (d?.type.kind === 'struct' ? d.type.fields.map((f) => (f.embedded ? `(embedded ${f.name})` : f.name)).join(', ') : JSON.stringify(d?.type));
  const core = 'k8s.io/api/core/v1';
  const meta = 'k8s.io/apimachinery/pkg/apis/meta/v1';
  console.log('core/v1 Container:', fieldNames(decl(core, 'Container')));
  const cond = decl(meta, 'Condition');
  if (cond?.type.kind === 'struct') {
    for (const f of cond.type.fields) console.log(`meta/v1 Condition.${f.name} json=${JSON.stringify(f.tag)} markers:`, f.doc.filter((l) => l.trim().startsWith('+')).join(' | '));
  }
  const jobSpec = decl('k8s.io/api/batch/v1', 'JobSpec');
  console.log('batch/v1 JobSpec has managedBy:', jobSpec?.type.kind === 'struct' && jobSpec.type.fields.some((f) => f.tag.startsWith('managedBy')));
  console.log('meta/v1 Time:', JSON.stringify(decl(meta, 'Time')?.type));
  console.log('resource.Quantity:', fieldNames(decl('k8s.io/apimachinery/pkg/api/resource', 'Quantity')));
  console.log('intstr.IntOrString:', fieldNames(decl('k8s.io/apimachinery/pkg/util/intstr', 'IntOrString')));
}

function main(): void {
  const opts = parseArgs(process.argv.slice(2));
  const extractor = new Extractor(new GoSources(opts));
  const index: GoTypeIndex = {
    source: { api: opts.ref, apimachinery: opts.ref },
    packages: extractor.run([...ROOT_PACKAGES, ...opts.roots]),
  };
  const json = JSON.stringify(index, null, 1) + '\n';
  writeFileSync(opts.out, json);

  const typeCount = Object.values(index.packages).reduce((n, types) => n + Object.keys(types).length, 0);
  console.log(`wrote ${opts.out}: ${Buffer.byteLength(json)} bytes, ${Object.keys(index.packages).length} packages, ${typeCount} types`);
  for (const w of [...new Set(extractor.warnings)].sort()) console.log(`warning: ${w}`);
  printSpotChecks(index);
}

// Run only when executed, so that the parser can be imported for ad-hoc checks.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();

/**
 * cel-js errors reworded as cel-go words them, since those words reach users in
 * kube's messages: `undefined field 'z'`, `undeclared reference to 'f' (in container '')`,
 * `found no matching overload for '_==_' applied to '(int, bool)'`, `no such key: z`.
 */
import { celIssue } from './go-format.js';
import { CostLimitExceeded } from './meter.js';

interface ErrorNode {
  op?: string;
  args?: unknown;
  start?: number;
  end?: number;
}

interface CelJsError {
  name?: string;
  code?: string;
  summary?: string;
  message: string;
  range?: { start: number; end: number };
  node?: ErrorNode;
}

function asCelJsError(err: unknown): CelJsError | undefined {
  return err instanceof Error ? (err as CelJsError) : undefined;
}

/** cel-go's spelling of a cel-js type name: `list(int)`, `map(string, int)`. */
export function celGoTypeName(t: string): string {
  return t
    .replace(/dyn<[^<>]*(?:<[^<>]*>)?[^<>]*>/g, 'dyn')
    .replace(/optional</g, 'optional_type<')
    .replace(/</g, '(')
    .replace(/>/g, ')');
}

const binaryFunctionNames: Record<string, string> = {
  '==': '_==_',
  '!=': '_!=_',
  '<': '_<_',
  '<=': '_<=_',
  '>': '_>_',
  '>=': '_>=_',
  '+': '_+_',
  '-': '_-_',
  '*': '_*_',
  '/': '_/_',
  '%': '_%_',
  in: '@in',
};

function operatorOffset(source: string, node: ErrorNode | undefined, op: string): number | undefined {
  const args = node?.args;
  if (!Array.isArray(args) || args.length !== 2) return node?.start;
  const [l, r] = args as [ErrorNode, ErrorNode];
  const from = l?.end ?? node?.start ?? 0;
  const to = r?.start ?? source.length;
  const idx = source.slice(from, to).indexOf(op);
  return idx < 0 ? node?.start : from + idx;
}

function openParenOffset(source: string, node: ErrorNode | undefined, name: string): number | undefined {
  if (!node) return undefined;
  let from = node.start ?? 0;
  if (node.op === 'rcall' && Array.isArray(node.args)) from = (node.args[1] as ErrorNode)?.end ?? from;
  const re = new RegExp(`${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*\\(`, 'g');
  re.lastIndex = from;
  const m = re.exec(source);
  return m ? m.index + m[0].length - 1 : node.start;
}

function dotOffset(source: string, start: number | undefined): number | undefined {
  if (start === undefined) return undefined;
  let i = start - 1;
  while (i >= 0 && /\s/.test(source[i])) i--;
  return source[i] === '.' ? i : start;
}

/**
 * The cel-go issue text (`ERROR: <input>:1:6: ...` with snippet) for a cel-js parse or
 * type-check error. `declaredFunctions` are the function names known to the environment,
 * to tell an undeclared function from a bad overload.
 */
export function compileIssueText(source: string, err: unknown, declaredFunctions: ReadonlySet<string>): string {
  const e = asCelJsError(err);
  if (!e) return celIssue(source, 0, String(err));
  const summary = e.summary ?? e.message;
  const start = e.range?.start ?? e.node?.start ?? 0;
  if (e.name === 'ParseError') return celIssue(source, start, `Syntax error: ${summary}`);
  switch (e.code) {
    case 'no_such_key': {
      const field = /^No such key: (.*)$/.exec(summary)?.[1] ?? summary;
      return celIssue(source, dotOffset(source, start) ?? start, `undefined field '${field}'`);
    }
    case 'unknown_variable': {
      const name = /^Unknown variable: (.*)$/.exec(summary)?.[1] ?? summary;
      return celIssue(source, start, `undeclared reference to '${name}' (in container '')`);
    }
    case 'no_matching_overload': {
      const m = /^found no matching overload for '(?:(.+)\.)?(\w+)\((.*)\)'$/.exec(summary);
      if (!m) break;
      const [, receiver, name, argTypes] = m;
      const offset = openParenOffset(source, e.node, name) ?? start;
      if (!declaredFunctions.has(name)) return celIssue(source, offset, `undeclared reference to '${name}' (in container '')`);
      const applied = receiver ? `${celGoTypeName(receiver)}.(${celGoTypeName(argTypes)})` : `(${celGoTypeName(argTypes)})`;
      return celIssue(source, offset, `found no matching overload for '${name}' applied to '${applied}'`);
    }
    case 'no_such_overload': {
      const bin = /^no such overload: (.+?) (==|!=|<=|>=|<|>|\+|-|\*|\/|%|in) (.+)$/.exec(summary);
      if (bin) {
        const [, l, op, r] = bin;
        return celIssue(
          source,
          operatorOffset(source, e.node, op) ?? start,
          `found no matching overload for '${binaryFunctionNames[op]}' applied to '(${celGoTypeName(l)}, ${celGoTypeName(r)})'`,
        );
      }
      const un = /^no such overload: ([-!])(.+)$/.exec(summary);
      if (un) return celIssue(source, start, `found no matching overload for '${un[1]}_' applied to '(${celGoTypeName(un[2])})'`);
      break;
    }
    case 'heterogeneous_list_element':
    case 'heterogeneous_map_key':
    case 'heterogeneous_map_value': {
      const m = /expected type '(.*)' but found '(.*)'$/.exec(summary);
      if (m) return celIssue(source, start, `expected type '${celGoTypeName(m[1])}' but found '${celGoTypeName(m[2])}'`);
      break;
    }
  }
  return celIssue(source, start, summary);
}

/** What a runtime error says in kube's `... evaluating rule: <rule>` message. */
export interface RuntimeErrorText {
  text: string;
  /** cel-go's `no such overload`, which kube reports with its own wording. */
  noSuchOverload: boolean;
  /** The per-call cost limit was exceeded. */
  costLimit: boolean;
}

/** Rewords a runtime error as cel-go reports it. */
export function runtimeErrorText(err: unknown): RuntimeErrorText {
  if (err instanceof CostLimitExceeded) return { text: err.message, noSuchOverload: false, costLimit: true };
  const e = asCelJsError(err);
  if (!e) return { text: String(err), noSuchOverload: false, costLimit: false };
  const summary = e.summary ?? e.message;
  const plain = (text: string): RuntimeErrorText => ({ text, noSuchOverload: false, costLimit: false });
  switch (e.code) {
    case 'no_such_key': {
      const idx = /index out of bounds, index (-?\d+) (?:>= size (\d+)|< 0)/.exec(summary);
      if (idx) return plain(`index out of bounds: ${idx[1]}`);
      return plain(summary.replace(/^No such key/, 'no such key'));
    }
    case 'index_out_of_bounds':
      return plain(summary.replace(/^No such key: /, ''));
    case 'numeric_overflow':
      return plain(/unsigned/i.test(summary) ? 'unsigned integer overflow' : 'integer overflow');
    case 'modulo_by_zero':
      return plain('modulus by zero');
    case 'no_such_overload':
    case 'no_matching_overload':
      return { text: 'no such overload', noSuchOverload: true, costLimit: false };
    case 'optional_value_missing':
      return plain('optional.none() dereference');
  }
  if (summary === 'no such overload') return { text: summary, noSuchOverload: true, costLimit: false };
  return plain(summary);
}

/** An error raised by a library function; its message is what kube reports. */
export class CelLibraryError extends Error {}

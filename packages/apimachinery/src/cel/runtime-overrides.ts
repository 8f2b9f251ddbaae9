/**
 * Runtime fixes applied to checked cel-js expressions: Kubernetes' equality
 * (order-insensitive for set and map lists), RE2 syntax for `matches`, ASCII-only
 * `lowerAscii`/`upperAscii`, and cost charging for size-proportional built-ins.
 */
import { CelLibraryError } from './issues.js';
import { chargeCost, chargeTraversal } from './meter.js';
import { re2Matches } from './regex.js';
import { asciiLower, asciiUpper } from './string-functions.js';
import { celEqual, celListItems } from './values.js';

interface Node {
  op: string;
  args: unknown;
  handle?: (...args: never[]) => unknown;
}

function isNode(v: unknown): v is Node {
  return typeof v === 'object' && v !== null && typeof (v as { op?: unknown }).op === 'string' && 'args' in v;
}

function sizeOf(v: unknown): number {
  if (typeof v === 'string') return v.length;
  if (Array.isArray(v)) return v.length;
  if (v instanceof Uint8Array) return v.length;
  if (v instanceof Map || v instanceof Set) return v.size;
  return 1;
}

type RcallHandle = (args: unknown[], ev: unknown, ast: unknown) => unknown;
type BinaryHandle = (l: unknown, r: unknown, ast: unknown, ev: unknown) => unknown;

const traversalCharged: Record<string, (args: unknown[]) => number> = {
  contains: (a) => Math.ceil(sizeOf(a[0]) * 0.1) * Math.ceil(sizeOf(a[1]) * 0.1),
  startsWith: (a) => Math.ceil(sizeOf(a[1]) * 0.1),
  endsWith: (a) => Math.ceil(sizeOf(a[1]) * 0.1),
  indexOf: (a) => (typeof a[0] === 'string' ? Math.ceil(sizeOf(a[0]) * 0.1) : 0),
  lastIndexOf: (a) => (typeof a[0] === 'string' ? Math.ceil(sizeOf(a[0]) * 0.1) : 0),
  split: (a) => Math.ceil(sizeOf(a[0]) * 0.1),
  join: (a) => Math.ceil(celListItems(a[0]).reduce<number>((n, x) => n + sizeOf(x), 0) * 0.1),
  trim: (a) => Math.ceil(sizeOf(a[0]) * 0.1),
  substring: (a) => Math.ceil(sizeOf(a[0]) * 0.1),
};

function overrideRcall(node: Node, name: string, argc: number): void {
  const original = node.handle as RcallHandle | undefined;
  if (!original) return;
  if (name === 'matches' && argc === 1) {
    node.handle = ((args: unknown[]) => {
      const [s, re] = args;
      if (typeof s !== 'string' || typeof re !== 'string') throw new CelLibraryError('no such overload');
      chargeCost(Math.ceil((s.length + 1) * 0.1) * Math.ceil(re.length * 0.25));
      try {
        return re2Matches(s, re);
      } catch (e) {
        throw new CelLibraryError((e as Error).message);
      }
    }) as RcallHandle;
    return;
  }
  if ((name === 'lowerAscii' || name === 'upperAscii') && argc === 0) {
    node.handle = ((args: unknown[], ev: unknown, ast: unknown) => {
      const s = args[0];
      if (typeof s !== 'string') return original(args, ev, ast);
      chargeTraversal(s.length);
      return name === 'lowerAscii' ? asciiLower(s) : asciiUpper(s);
    }) as RcallHandle;
    return;
  }
  const charge = traversalCharged[name];
  if (charge) {
    node.handle = ((args: unknown[], ev: unknown, ast: unknown) => {
      chargeCost(charge(args));
      return original(args, ev, ast);
    }) as RcallHandle;
  }
}

function overrideBinary(node: Node): void {
  const original = node.handle as BinaryHandle | undefined;
  if (!original) return;
  switch (node.op) {
    case '==':
      node.handle = ((l: unknown, r: unknown) => {
        chargeCost(Math.ceil(Math.min(sizeOf(l), sizeOf(r)) * 0.1) - 1);
        return celEqual(l, r);
      }) as BinaryHandle;
      return;
    case '!=':
      node.handle = ((l: unknown, r: unknown) => {
        chargeCost(Math.ceil(Math.min(sizeOf(l), sizeOf(r)) * 0.1) - 1);
        return !celEqual(l, r);
      }) as BinaryHandle;
      return;
    case 'in':
      node.handle = ((l: unknown, r: unknown, ast: unknown, ev: unknown) => {
        if (Array.isArray(r)) {
          chargeCost(r.length);
          return r.some((x) => celEqual(x, l));
        }
        return original(l, r, ast, ev);
      }) as BinaryHandle;
      return;
    case '+':
      node.handle = ((l: unknown, r: unknown, ast: unknown, ev: unknown) => {
        if (typeof l === 'string' && typeof r === 'string') chargeTraversal(l.length + r.length);
        return original(l, r, ast, ev);
      }) as BinaryHandle;
      return;
  }
}

/**
 * Rewires the evaluation handlers of a type-checked cel-js AST: Kubernetes equality,
 * RE2 `matches`, ASCII-only case mapping, and cost charging for size-proportional
 * built-ins. Must run after `check()`, which is where cel-js installs the handlers.
 */
export function applyRuntimeOverrides(root: unknown): void {
  const seen = new Set<unknown>();
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) {
      for (const x of v) visit(x);
      return;
    }
    if (!isNode(v) || seen.has(v)) return;
    seen.add(v);
    const args = v.args;
    switch (v.op) {
      case 'rcall': {
        const [name, receiver, list] = args as [string, unknown, unknown[]];
        visit(receiver);
        visit(list);
        overrideRcall(v, name, list.length);
        return;
      }
      case 'call': {
        visit((args as [string, unknown[]])[1]);
        return;
      }
      case '==':
      case '!=':
      case 'in':
      case '+':
        visit(args);
        overrideBinary(v);
        return;
      case 'value':
      case 'id':
        return;
      case '.':
      case '.?':
        visit((args as [unknown, string])[0]);
        return;
      case 'map':
        for (const entry of args as unknown[][]) visit(entry);
        return;
      default:
        visit(args);
    }
  };
  visit(root);
}

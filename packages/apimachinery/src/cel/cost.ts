/**
 * Static cost estimation of a checked expression, after cel-go's model
 * (checker/cost.go) with Kubernetes' size estimates: one unit per identifier,
 * field selection and function call, size-proportional costs for string and list
 * work (traversals cost 0.1 per character), and comprehensions costing their loop
 * body times the size of the range. Sizes come from the schema (maxItems,
 * maxLength, maxProperties) or, when unbounded, from how many values fit in a
 * 3 MiB request — which is what makes rules over unbounded lists too expensive.
 */
import { maxRequestSizeBytes, type CelDecl } from './decl-types.js';

/** The largest cost (cel-go's uint64 max); sums and products saturate at it. */
export const maxCost = 18446744073709551615;

/** A min/max range of cost or size. */
export interface CostRange {
  readonly min: number;
  readonly max: number;
}

const unknownSize: CostRange = { min: 0, max: maxCost };
const one: CostRange = { min: 1, max: 1 };
const zero: CostRange = { min: 0, max: 0 };

function sat(n: number): number {
  return n >= maxCost ? maxCost : n;
}
function add(...rs: CostRange[]): CostRange {
  let min = 0;
  let max = 0;
  for (const r of rs) {
    min = sat(min + r.min);
    max = sat(max + r.max);
  }
  return { min, max };
}
function mul(a: CostRange, b: CostRange): CostRange {
  return { min: sat(a.min * b.min), max: sat(a.max * b.max) };
}
function factor(r: CostRange, f: number): CostRange {
  return { min: sat(Math.ceil(r.min * f)), max: sat(Math.ceil(r.max * f)) };
}
function union(a: CostRange, b: CostRange): CostRange {
  return { min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) };
}
function fixed(n: number): CostRange {
  return { min: n, max: n };
}

/** What is known about a value: its schema declaration, or a computed size and element shape. */
interface Shape {
  decl?: CelDecl;
  size?: CostRange;
  item?: Shape;
}

function sizeOf(s: Shape | undefined): CostRange {
  if (!s) return unknownSize;
  if (s.size) return s.size;
  const d = s.decl;
  if (!d) return unknownSize;
  switch (d.kind) {
    case 'list':
    case 'map':
      return { min: 0, max: d.maxElements };
    case 'object':
      return zero;
    case 'scalar':
      switch (d.scalar) {
        case 'string':
        case 'bytes':
        case 'intOrString':
          return { min: 0, max: d.maxElements };
        default:
          return one;
      }
  }
}

function itemOf(s: Shape | undefined): Shape | undefined {
  if (!s) return undefined;
  if (s.item) return s.item;
  const d = s.decl;
  if (d?.kind === 'list') return { decl: d.item };
  if (d?.kind === 'map') return { size: { min: 0, max: maxRequestSizeBytes } };
  return undefined;
}

function fieldOf(s: Shape | undefined, name: string): Shape | undefined {
  const d = s?.decl;
  if (d?.kind === 'object') {
    const f = d.fieldsByCelName.get(name);
    return f ? { decl: f.decl } : undefined;
  }
  if (d?.kind === 'map') return { decl: d.value };
  return undefined;
}

function indexOf(s: Shape | undefined): Shape | undefined {
  const d = s?.decl;
  if (d?.kind === 'list') return { decl: d.item };
  if (d?.kind === 'map') return { decl: d.value };
  return s?.item;
}

interface Node {
  op: string;
  args: unknown;
  checkedType?: { name: string };
}

interface Result {
  cost: CostRange;
  shape?: Shape;
}

const stringTraversal = 0.1;
const regexFactor = 0.25;

/** Estimates the cost of one checked expression whose `self` (and `oldSelf`) have declaration `self`. */
export function estimateCost(ast: unknown, self: CelDecl | undefined): CostRange {
  const scopes = new Map<string, Shape[]>();
  const bind = (name: string, shape: Shape | undefined): void => {
    const stack = scopes.get(name) ?? [];
    stack.push(shape ?? {});
    scopes.set(name, stack);
  };
  const unbind = (name: string): void => {
    scopes.get(name)?.pop();
  };

  const visit = (v: unknown): Result => {
    const r = visitNode(v as Node);
    if (r.shape) return r;
    // Values of a fixed-size type (numbers, bools, timestamps, types, records) have size 1, as in cel-go.
    const t = (v as Node).checkedType?.name;
    if (t !== undefined && !/^(string|bytes|list|map|dyn|optional)/.test(t)) return { cost: r.cost, shape: { size: one } };
    return r;
  };

  const visitNode = (n: Node): Result => {
    switch (n.op) {
      case 'value': {
        const lit = n.args;
        if (typeof lit === 'string') return { cost: zero, shape: { size: fixed([...lit].length) } };
        if (lit instanceof Uint8Array) return { cost: zero, shape: { size: fixed(lit.length) } };
        return { cost: zero, shape: { size: one } };
      }
      case 'id': {
        const name = n.args as string;
        const scoped = scopes.get(name);
        if (scoped && scoped.length > 0) return { cost: one, shape: scoped[scoped.length - 1] };
        if (name === 'self' || name === 'oldSelf') return { cost: one, shape: self ? { decl: self } : undefined };
        return { cost: one };
      }
      case '.':
      case '.?': {
        const [operand, field] = n.args as [unknown, string];
        const r = visit(operand);
        return { cost: add(r.cost, one), shape: fieldOf(r.shape, field) };
      }
      case '[]':
      case '[?]': {
        const [l, r] = n.args as [unknown, unknown];
        const a = visit(l);
        const b = visit(r);
        return { cost: add(a.cost, b.cost, one), shape: indexOf(a.shape) };
      }
      case 'list': {
        const elems = (n.args as unknown[]).map(visit);
        let item: Shape | undefined;
        for (const e of elems) item = item ? { size: union(sizeOf(item), sizeOf(e.shape)) } : e.shape;
        return { cost: add(fixed(10), ...elems.map((e) => e.cost)), shape: { size: fixed(elems.length), item } };
      }
      case 'map': {
        const entries = n.args as Array<[unknown, unknown]>;
        let cost = fixed(30);
        for (const [k, val] of entries) cost = add(cost, visit(k).cost, visit(val).cost);
        return { cost, shape: { size: fixed(entries.length) } };
      }
      case '?:': {
        const [c, t, f] = (n.args as unknown[]).map(visit);
        const shape = t.shape && f.shape ? { size: union(sizeOf(t.shape), sizeOf(f.shape)) } : undefined;
        return { cost: add(c.cost, union(t.cost, f.cost)), shape };
      }
      case '&&':
      case '||': {
        const [l, r] = (n.args as unknown[]).map(visit);
        return { cost: { min: l.cost.min, max: sat(l.cost.max + r.cost.max) } };
      }
      case '!_':
      case '-_':
        return { cost: add(one, visit(n.args).cost) };
      case 'call':
        return visitCall(n);
      case 'rcall':
        return visitRcall(n);
      default:
        return visitBinary(n);
    }
  };

  const visitBinary = (n: Node): Result => {
    const [lNode, rNode] = n.args as [unknown, unknown];
    const l = visit(lNode);
    const r = visit(rNode);
    const args = add(l.cost, r.cost);
    switch (n.op) {
      case '==':
      case '!=':
      case '<':
      case '<=':
      case '>':
      case '>=': {
        const ls = sizeOf(l.shape);
        const rs = sizeOf(r.shape);
        const smallest = Math.min(ls.max, rs.max);
        return { cost: add(args, factor({ min: smallest > 0 ? 1 : 0, max: smallest }, stringTraversal)) };
      }
      case 'in':
        return { cost: add(args, sizeOf(r.shape)) };
      case '+': {
        // Concatenation costs 1 and tracks the size (cel-go as in Kubernetes 1.32).
        const type = n.checkedType?.name ?? '';
        if (!/^(string|bytes|list)/.test(type)) return { cost: add(args, one) };
        const size = add(sizeOf(l.shape), sizeOf(r.shape));
        return { cost: add(args, one), shape: { size, item: itemOf(l.shape) ?? itemOf(r.shape) } };
      }
      default:
        return { cost: add(args, one) };
    }
  };

  const comprehension = (name: string, receiver: Result, argNodes: unknown[]): Result => {
    const iterVar = (argNodes[0] as Node).args as string;
    const range = sizeOf(receiver.shape);
    bind(iterVar, itemOf(receiver.shape));
    const rest = argNodes.slice(1).map(visit);
    unbind(iterVar);
    let perItem: CostRange;
    let init = zero;
    let result = one;
    let shape: Shape | undefined;
    switch (name) {
      case 'all':
        perItem = add(fixed(3), rest[0].cost);
        break;
      case 'exists':
        perItem = add(fixed(4), rest[0].cost);
        break;
      case 'exists_one':
        perItem = add(fixed(2), rest[0].cost);
        result = fixed(2);
        break;
      case 'filter':
        init = fixed(10);
        perItem = add(fixed(13), rest[0].cost);
        shape = { size: { min: 0, max: range.max }, item: itemOf(receiver.shape) };
        break;
      default: {
        // map(x, f) or map(x, p, f)
        init = fixed(10);
        const transform = rest[rest.length - 1];
        perItem = add(fixed(12), transform.cost, rest.length === 2 ? rest[0].cost : zero);
        shape = { size: { min: rest.length === 2 ? 0 : range.min, max: range.max }, item: transform.shape };
      }
    }
    return { cost: add(receiver.cost, init, result, mul(range, perItem)), shape };
  };

  const visitRcall = (n: Node): Result => {
    const [name, receiverNode, argNodes] = n.args as [string, unknown, unknown[]];
    if (name === 'bind' && (receiverNode as Node).op === 'id' && (receiverNode as Node).args === 'cel' && argNodes.length === 3) {
      const varName = (argNodes[0] as Node).args as string;
      const init = visit(argNodes[1]);
      bind(varName, init.shape);
      const body = visit(argNodes[2]);
      unbind(varName);
      return { cost: add(init.cost, body.cost), shape: body.shape };
    }
    const receiver = visit(receiverNode);
    if (
      ((name === 'all' || name === 'exists' || name === 'exists_one' || name === 'filter') && argNodes.length === 2) ||
      (name === 'map' && (argNodes.length === 2 || argNodes.length === 3))
    ) {
      if ((argNodes[0] as Node).op === 'id') return comprehension(name, receiver, argNodes);
    }
    const args = argNodes.map(visit);
    const argCost = add(receiver.cost, ...args.map((a) => a.cost));
    const recvSize = sizeOf(receiver.shape);
    const argSize = (i: number): CostRange => sizeOf(args[i]?.shape);
    const namespace = (receiverNode as Node).op === 'id' ? ((receiverNode as Node).args as string) : undefined;
    if (namespace === 'sets') return { cost: add(argCost, mul(argSize(0), argSize(1))) };
    if (namespace === 'format' || namespace === 'strings' || namespace === 'optional' || namespace === 'ip') {
      return { cost: add(argCost, one, name === 'quote' || name === 'isCanonical' ? factor(argSize(0), stringTraversal) : zero) };
    }
    switch (name) {
      case 'matches':
      case 'find':
      case 'findAll':
        return {
          cost: add(argCost, mul(factor(add(recvSize, one), stringTraversal), factor(argSize(0), regexFactor))),
          shape: name === 'find' ? { size: recvSize } : name === 'findAll' ? { size: recvSize, item: { size: recvSize } } : undefined,
        };
      case 'contains':
        return { cost: add(argCost, mul(factor(recvSize, stringTraversal), factor(argSize(0), stringTraversal))) };
      case 'startsWith':
      case 'endsWith':
        return { cost: add(argCost, factor(argSize(0), stringTraversal)) };
      case 'lowerAscii':
      case 'upperAscii':
      case 'trim':
      case 'substring':
      case 'charAt':
        return { cost: add(argCost, factor(recvSize, stringTraversal)), shape: { size: recvSize } };
      case 'replace': {
        const size = add(recvSize, mul(recvSize, argSize(1)));
        return { cost: add(argCost, factor(recvSize, 2 * stringTraversal)), shape: { size } };
      }
      case 'split':
        return { cost: add(argCost, factor(recvSize, 2 * stringTraversal)), shape: { size: add(recvSize, one), item: { size: recvSize } } };
      case 'join': {
        const item = itemOf(receiver.shape);
        const size = mul(recvSize, add(sizeOf(item), argSize(0)));
        return { cost: add(argCost, factor(size, stringTraversal)), shape: { size } };
      }
      case 'format':
        return { cost: add(argCost, factor(recvSize, stringTraversal)), shape: { size: unknownSize } };
      case 'indexOf':
      case 'lastIndexOf':
      case 'isSorted':
      case 'sum':
      case 'min':
      case 'max': {
        if (isStringShape(receiver.shape)) return { cost: add(argCost, factor(recvSize, stringTraversal)) };
        // One unit per element, plus a traversal of each element when they are strings or bytes (kube's lists library).
        const item = itemOf(receiver.shape);
        const itemDecl = item?.decl;
        const textual = itemDecl?.kind === 'scalar' && (itemDecl.scalar === 'string' || itemDecl.scalar === 'bytes');
        const perElement = textual ? add(one, factor(sizeOf(item), stringTraversal)) : one;
        return { cost: add(argCost, mul(recvSize, perElement)), shape: name === 'min' || name === 'max' ? item : undefined };
      }
      case 'validate':
        return { cost: add(argCost, factor(argSize(0), stringTraversal)) };
      case 'getQuery':
        return { cost: add(argCost, one), shape: { size: unknownSize } };
      case 'value':
      case 'orValue':
        return { cost: add(argCost, one), shape: receiver.shape };
      default:
        return { cost: add(argCost, one) };
    }
  };

  const visitCall = (n: Node): Result => {
    const [name, argNodes] = n.args as [string, unknown[]];
    if (name === 'has' && argNodes.length === 1) {
      const sel = argNodes[0] as Node;
      if (sel.op === '.' || sel.op === '.?') return { cost: visit((sel.args as [unknown, string])[0]).cost };
    }
    const args = argNodes.map(visit);
    const argCost = add(...args.map((a) => a.cost));
    const argSize = (i: number): CostRange => sizeOf(args[i]?.shape);
    switch (name) {
      case 'size':
        return { cost: add(argCost, one) };
      case 'dyn':
        return { cost: add(argCost, one), shape: args[0]?.shape };
      case 'matches':
        return { cost: add(argCost, mul(factor(add(argSize(0), one), stringTraversal), factor(argSize(1), regexFactor))) };
      case 'url':
      case 'isURL':
      case 'ip':
      case 'isIP':
      case 'cidr':
      case 'isCIDR':
      case 'quantity':
      case 'isQuantity':
      case 'timestamp':
      case 'duration':
        return { cost: add(argCost, one, factor(argSize(0), stringTraversal)) };
      case 'string':
      case 'bytes': {
        // Converting a number, bool, timestamp or duration gives a short string.
        const argType = (argNodes[0] as Node | undefined)?.checkedType?.name ?? '';
        const size = /^(string|bytes|dyn)/.test(argType) ? argSize(0) : { min: 1, max: 64 };
        return { cost: add(argCost, factor(size, stringTraversal)), shape: { size } };
      }
      default:
        return { cost: add(argCost, one) };
    }
  };

  return visit(ast).cost;
}

function isStringShape(s: Shape | undefined): boolean {
  const d = s?.decl;
  if (d) return d.kind === 'scalar' && (d.scalar === 'string' || d.scalar === 'intOrString');
  return s?.size !== undefined && s.item === undefined;
}

/**
 * structured-merge-diff's operations on a value of a known merge type: its field
 * set, the comparison of two values, the merge of an applied configuration into
 * a live object, and the removal of a set of fields. Values are plain JSON;
 * `undefined` is an absent field (Go's nil) and `null` an explicit null.
 */
import { jsonEqual } from '../object.js';
import { goQuote, goSharpV } from '../schema/go-text.js';
import { FieldSet, type NamedFieldNavigator } from './field-set.js';
import { deduce, fieldType, untypedType, type MergeType } from './merge-type.js';
import { keyElement, pathElementString, serializePathElement, type PathElement } from './path-element.js';

type Json = unknown;
type ListType = Extract<MergeType, { kind: 'list' }>;

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The path element naming `item` of an associative list, or the reason it cannot be named. */
export function listItemElement(t: ListType, item: Json): PathElement | string {
  if (t.keys.length) {
    if (item === null) return 'associative list with keys may not have a null element';
    if (!isMap(item)) return 'associative list with keys may not have non-map elements';
    const fields: Array<[string, unknown]> = [];
    for (const k of t.keys) {
      if (Object.hasOwn(item, k)) fields.push([k, item[k]]);
      else if (Object.hasOwn(t.keyDefaults, k)) fields.push([k, t.keyDefaults[k]]);
    }
    if (!fields.length) return `associative list with keys has an element that omits all key fields ${goQuoteList(t.keys)} (and doesn't have default values for any key fields)`;
    return keyElement(fields);
  }
  if (isMap(item)) return "associative list without keys has an element that's a map type";
  if (Array.isArray(item)) return 'not supported: associative list with lists as elements';
  if (item === null) return "associative list without keys has an element that's an explicit null";
  return { value: item };
}

function goQuoteList(xs: readonly string[]): string {
  return `[${xs.map(goQuote).join(' ')}]`;
}

function elementOrThrow(t: ListType, item: Json, i: number): PathElement {
  const pe = listItemElement(t, item);
  if (typeof pe === 'string') throw new TypedError('', `element ${i}: ${pe}`);
  return pe;
}

/** A validation error of structured-merge-diff: a path (`.spec.ports[port=80]`) and a message. */
export class TypedError extends Error {
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super(path ? `${path}: ${detail}` : detail);
  }
}

/**
 * Checks an applied configuration against its type: undeclared fields, values
 * of the wrong kind and repeated list keys are errors, in structured-merge-diff's
 * words. Returns every error found.
 */
export function validateTyped(value: Json, t: MergeType, path = ''): TypedError[] {
  const tt = deduce(t, value);
  if (value === null || value === undefined) return [];
  switch (tt.kind) {
    case 'scalar':
      return scalarError(tt.scalar, value, path);
    case 'list': {
      if (!Array.isArray(value)) return [new TypedError(path, `expected list, got ${goValue(value)}`)];
      if (tt.atomic) return [];
      const errs: TypedError[] = [];
      const seen = new Set<string>();
      value.forEach((item, i) => {
        const pe = listItemElement(tt, item);
        if (typeof pe === 'string') return void errs.push(new TypedError(path, `element ${i}: ${pe}`));
        const key = serializePathElement(pe);
        if (seen.has(key)) return void errs.push(new TypedError(path, `duplicate entries for key ${pathElementString(pe)}`));
        seen.add(key);
        errs.push(...validateTyped(item, tt.item(), path + pathElementString(pe)));
      });
      return errs;
    }
    case 'map': {
      if (!isMap(value)) return [new TypedError(path, `expected map, got ${goValue(value)}`)];
      if (tt.atomic) return [];
      const errs: TypedError[] = [];
      for (const [k, v] of Object.entries(value)) {
        const ft = fieldType(tt, k);
        if (!ft) errs.push(new TypedError(`${path}.${k}`, 'field not declared in schema'));
        else errs.push(...validateTyped(v, ft, `${path}.${k}`));
      }
      return errs;
    }
    default:
      return [];
  }
}

function scalarError(kind: string, v: Json, path: string): TypedError[] {
  const ok =
    kind === 'any' ? !isMap(v) && !Array.isArray(v) : kind === 'string' ? typeof v === 'string' : kind === 'numeric' ? typeof v === 'number' : typeof v === 'boolean';
  if (ok) return [];
  if (kind === 'numeric') return [new TypedError(path, `expected numeric (int or float), got ${goTypeName(v)}`)];
  if (kind === 'string') return [new TypedError(path, `expected string, got &value.valueUnstructured{Value:${goSharpV(v)}}`)];
  if (kind === 'boolean') return [new TypedError(path, `expected boolean, got ${goValue(v)}`)];
  return [new TypedError(path, `expected any scalar, got ${goValue(v)}`)];
}

function goTypeName(v: Json): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

function goValue(v: Json): string {
  return `&{${goSharpV(v)}}`;
}

// ------------------------------------------------------------------ field sets

/** typed.ToFieldSet: the fields a value sets (leaves, list items, empty maps and null fields). */
export function toFieldSet(value: Json, t: MergeType): FieldSet {
  const set = new FieldSet();
  collect(value, t, set, undefined);
  return set;
}

/** Adds the fields of `v`, found at `pe` under the node `parent` (the root when `pe` is undefined). */
function collect(v: Json, t: MergeType, parent: FieldSet, pe: PathElement | undefined): void {
  const tt = deduce(t, v);
  switch (tt.kind) {
    case 'scalar':
    case 'untyped':
      if (pe) parent.addMember(pe);
      return;
    case 'list': {
      if (tt.atomic) return void (pe && parent.addMember(pe));
      if (!Array.isArray(v)) return;
      const node = pe ? parent.descend(pe) : parent;
      const seen = new Set<string>();
      const dups = new Set<string>();
      const pes = v.map((item) => listItemElement(tt, item));
      const keys = pes.map((p) => (typeof p === 'string' ? '' : serializePathElement(p)));
      pes.forEach((p, i) => {
        if (typeof p === 'string') return;
        const key = keys[i]!;
        if (seen.has(key) && !dups.has(key)) {
          dups.add(key);
          node.addMember(p);
        }
        seen.add(key);
      });
      v.forEach((item, i) => {
        const p = pes[i]!;
        if (typeof p === 'string' || dups.has(keys[i]!)) return;
        collect(item, tt.item(), node, p);
        node.addMember(p);
      });
      return;
    }
    case 'map': {
      if (tt.atomic) return void (pe && parent.addMember(pe));
      if (!isMap(v)) return;
      const node = pe ? parent.descend(pe) : parent;
      for (const [k, val] of Object.entries(v)) {
        if (val === undefined) continue;
        const fpe = { field: k };
        const named = tt.field(k);
        collect(val, named ?? tt.element() ?? untypedType, node, fpe);
        if (val === null || (isMap(val) && Object.keys(val).length === 0) || !named) node.addMember(fpe);
      }
    }
  }
}

/** The outcome of typed.Compare: the fields the change added, modified and removed. */
export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/** typed.Compare of `lhs` (before) and `rhs` (after). */
export function compareTyped(lhs: Json, rhs: Json, t: MergeType): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  compareNode(lhs, rhs, t, [], c);
  return c;
}

/**
 * How two walkers over a pair of values (compare, merge) treat it: as one leaf
 * (scalars, atomic lists and maps, empty ones, an untyped value that changed
 * shape), or item by item as a granular list or map.
 */
type PairShape =
  | { kind: 'leaf' }
  | { kind: 'list'; type: ListType; l: Json[]; r: Json[] }
  | { kind: 'map'; type: Extract<MergeType, { kind: 'map' }>; l?: Record<string, unknown>; r?: Record<string, unknown> };

function pairShape(l: Json, r: Json, t: MergeType): PairShape {
  const tl = l === undefined ? undefined : deduce(t, l);
  const tr = r === undefined ? undefined : deduce(t, r);
  const tt = tr ?? tl!;
  if (tl && tr && tl.kind !== tr.kind) return { kind: 'leaf' };
  if (tt.kind === 'list') {
    const ll = Array.isArray(l) ? l : [];
    const rl = Array.isArray(r) ? r : [];
    return tt.atomic || (!ll.length && !rl.length) ? { kind: 'leaf' } : { kind: 'list', type: tt, l: ll, r: rl };
  }
  if (tt.kind === 'map') {
    const lm = isMap(l) ? l : undefined;
    const rm = isMap(r) ? r : undefined;
    const empty = (!lm || !Object.keys(lm).length) && (!rm || !Object.keys(rm).length);
    return tt.atomic || empty ? { kind: 'leaf' } : { kind: 'map', type: tt, l: lm, r: rm };
  }
  return { kind: 'leaf' };
}

/** The keys of two maps: the left's in order, then the right's new ones. */
function unionKeys(l: Record<string, unknown> | undefined, r: Record<string, unknown> | undefined): string[] {
  return [...Object.keys(l ?? {}), ...Object.keys(r ?? {}).filter((k) => !l || !Object.hasOwn(l, k))];
}

function compareNode(l: Json, r: Json, t: MergeType, path: PathElement[], c: Comparison): void {
  // One value on both sides (a status write's tracked object shares the live spec) changed nothing.
  if (l === r) return;
  const shape = pairShape(l, r, t);
  if (shape.kind === 'leaf') {
    if (l === undefined) c.added.insert(path);
    else if (r === undefined) c.removed.insert(path);
    else if (!jsonEqual(l, r)) c.modified.insert(path);
    return;
  }
  if (shape.kind === 'list') compareListItems(shape.type, shape.l, shape.r, path, c);
  else for (const k of unionKeys(shape.l, shape.r)) compareNode(shape.l?.[k], shape.r?.[k], fieldType(shape.type, k) ?? untypedType, [...path, { field: k }], c);
  if (l === undefined) c.added.insert(path);
  else if (r === undefined) c.removed.insert(path);
}

/** Items by path element, in first-seen order; repeated keys keep every item. */
function indexItems(t: ListType, list: Json[]): Map<string, { pe: PathElement; items: Json[] }> {
  const out = new Map<string, { pe: PathElement; items: Json[] }>();
  list.forEach((item, i) => {
    const pe = elementOrThrow(t, item, i);
    const key = serializePathElement(pe);
    const entry = out.get(key);
    if (entry) entry.items.push(item);
    else out.set(key, { pe, items: [item] });
  });
  return out;
}

function compareListItems(t: ListType, l: Json[], r: Json[], path: PathElement[], c: Comparison): void {
  const li = indexItems(t, l);
  const ri = indexItems(t, r);
  const all = new Map(li);
  for (const [k, v] of ri) if (!all.has(k)) all.set(k, v);
  for (const [k, { pe }] of all) {
    const ls = li.get(k)?.items ?? [];
    const rs = ri.get(k)?.items ?? [];
    const p = [...path, pe];
    if (ls.length <= 1 && rs.length <= 1) compareNode(ls[0], rs[0], t.item(), p, c);
    else if (ls.length >= 2 && rs.length >= 2) {
      if (!jsonEqual(ls, rs)) c.modified.insert(p);
    } else if (ls.length >= 2) {
      if (rs.length) compareNode(undefined, rs[0], t.item(), p, c);
      c.removed.insert(p);
    } else {
      if (ls.length) compareNode(ls[0], undefined, t.item(), p, c);
      c.added.insert(p);
    }
  }
}

// ------------------------------------------------------------------ merge

/**
 * typed.Merge with "keep the right-hand side": the applied configuration `rhs`
 * merged into the live object `lhs`. Atomic lists and maps are replaced; maps
 * merge per field; associative lists merge per item, in the order
 * structured-merge-diff produces (the configuration's order for the items it
 * names, the live order for the rest).
 */
export function mergeTyped(lhs: Json, rhs: Json, t: MergeType): Json {
  return mergeNode(lhs, rhs, t);
}

function mergeNode(l: Json, r: Json, t: MergeType): Json {
  if (l === undefined && r === undefined) return undefined;
  const shape = pairShape(l, r, t);
  // Leaves keep the configuration's value (an explicit null included).
  if (shape.kind === 'leaf' || r === null) return r !== undefined ? r : l;
  if (shape.kind === 'list') return mergeListItems(shape.type, shape.l, shape.r);
  const out: Record<string, unknown> = {};
  for (const k of unionKeys(shape.l, shape.r)) {
    const v = mergeNode(shape.l?.[k], shape.r?.[k], fieldType(shape.type, k) ?? untypedType);
    if (v !== undefined) out[k] = v;
  }
  return Object.keys(out).length ? out : undefined;
}

function mergeListItems(t: ListType, lhs: Json[], rhs: Json[]): Json {
  const rPEs = rhs.map((item, i) => elementOrThrow(t, item, i));
  const rSeen = new Map<string, Json>();
  rPEs.forEach((pe, i) => {
    const key = serializePathElement(pe);
    if (rSeen.has(key)) throw new TypedError('', `duplicate entries for key ${pathElementString(pe)}`);
    rSeen.set(key, rhs[i]);
  });
  const lPEs = lhs.map((item, i) => elementOrThrow(t, item, i));
  const lSeen = new Map<string, Json>();
  // A key the live list repeats merges as if absent from it.
  lPEs.forEach((pe, i) => {
    const key = serializePathElement(pe);
    lSeen.set(key, lSeen.has(key) ? undefined : lhs[i]);
  });
  const lKeys = lPEs.map(serializePathElement);
  const rKeys = rPEs.map(serializePathElement);
  const shared = rKeys.filter((k) => lSeen.has(k));
  let next = shared.shift();
  const merged = new Set<string>();
  const out: Json[] = [];
  const push = (v: Json): void => void (v !== undefined && out.push(v));
  for (let li = 0, ri = 0; li < lKeys.length || ri < rKeys.length; ) {
    if (li < lKeys.length && ri < rKeys.length) {
      const lk = lKeys[li]!;
      if (lk === rKeys[ri]) {
        merged.add(lk);
        push(mergeNode(lSeen.get(lk), rSeen.get(lk), t.item()));
        li++;
        ri++;
        next = shared.shift();
        continue;
      }
      if (rSeen.has(lk) && next !== undefined && next !== lk) {
        li++;
        continue;
      }
    }
    if (li < lKeys.length) {
      const lk = lKeys[li]!;
      if (!rSeen.has(lk)) {
        push(mergeNode(lhs[li], undefined, t.item()));
        li++;
        continue;
      } else if (merged.has(lk)) li++;
    }
    if (ri < rKeys.length) {
      const rk = rKeys[ri]!;
      merged.add(rk);
      push(mergeNode(lSeen.get(rk), rSeen.get(rk), t.item()));
      ri++;
      if (next === rk) next = shared.shift();
    }
  }
  return out.length ? out : undefined;
}

// ------------------------------------------------------------------ removal

/** typed.RemoveItems: the value without the fields and items of `toRemove`; emptied maps and lists disappear. */
export function removeItems(value: Json, toRemove: FieldSet, t: MergeType): Json {
  const tt = deduce(t, value);
  if (tt.kind === 'list') {
    if (!Array.isArray(value) || !value.length || tt.atomic) return value;
    const out: Json[] = [];
    value.forEach((item) => {
      const pe = listItemElement(tt, item);
      if (typeof pe === 'string') return void out.push(item);
      if (toRemove.has([pe])) return;
      const sub = toRemove.withPrefix(pe);
      const kept = sub.empty() ? item : removeItems(item, sub, tt.item());
      if (kept !== undefined) out.push(kept);
    });
    return out.length ? out : undefined;
  }
  if (tt.kind === 'map') {
    if (!isMap(value) || !Object.keys(value).length || tt.atomic) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const pe = { field: k };
      if (toRemove.has([pe])) continue;
      const sub = toRemove.withPrefix(pe);
      const kept = sub.empty() ? v : removeItems(v, sub, fieldType(tt, k) ?? untypedType);
      if (kept !== undefined) out[k] = kept;
    }
    return Object.keys(out).length ? out : undefined;
  }
  return value;
}

/**
 * Set.EnsureNamedFieldsAreMembers: the set, plus every named (struct) field it
 * reaches into as a member, so that removing it removes the field itself.
 */
export function ensureNamedFieldsAreMembers(set: FieldSet, t: MergeType): FieldSet {
  return set.withNamedMembers(navigator(t));
}

function navigator(t: MergeType): NamedFieldNavigator {
  return {
    named: (pe) => 'field' in pe && t.kind === 'map' && t.field(pe.field) !== undefined,
    below: (pe) => {
      if ('field' in pe && t.kind === 'map') return navigator(t.field(pe.field) ?? t.element() ?? untypedType);
      if ('key' in pe && t.kind === 'list') return navigator(t.item());
      return navigator(untypedType);
    },
  };
}

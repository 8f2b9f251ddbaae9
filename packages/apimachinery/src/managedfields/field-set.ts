/**
 * A set of field paths (structured-merge-diff's fieldpath.Set), stored as a trie:
 * each node holds the path elements that end there (members) and the subtrees
 * under path elements that continue (children). A node can be both: a list item
 * owned as a whole and also through its fields. Serialized as FieldsV1, where a
 * member with children carries a `"."` entry.
 */
import { comparePathElements, compareStrings, parsePathElement, serializePathElement, type FieldPath, type PathElement } from './path-element.js';

/** FieldsV1 as it appears in a managedFields entry: nested objects keyed by serialized path elements. */
export type FieldsV1 = { [key: string]: FieldsV1 };

/** How {@link FieldSet.withNamedMembers} walks a type. */
export interface NamedFieldNavigator {
  named(pe: PathElement): boolean;
  below(pe: PathElement): NamedFieldNavigator;
}

export class FieldSet {
  private readonly members = new Map<string, PathElement>();
  private readonly children = new Map<string, { pe: PathElement; set: FieldSet }>();

  /** A set holding the given paths. */
  static of(...paths: FieldPath[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  insert(path: FieldPath): void {
    if (path.length === 0) return;
    let node: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) node = node.descend(path[i]!);
    const last = path[path.length - 1]!;
    node.members.set(serializePathElement(last), last);
  }

  /** The child set under `pe`, created when absent. */
  descend(pe: PathElement): FieldSet {
    const key = serializePathElement(pe);
    let child = this.children.get(key);
    if (!child) {
      child = { pe, set: new FieldSet() };
      this.children.set(key, child);
    }
    return child.set;
  }

  /** Makes `pe` a member of this node. */
  addMember(pe: PathElement): void {
    this.members.set(serializePathElement(pe), pe);
  }

  /**
   * structured-merge-diff's EnsureNamedFieldsAreMembers, with the type
   * navigation given by the caller: `named(pe)` says whether a child is a named
   * (struct) field, which becomes a member too; `below(pe)` gives the same two
   * questions for the child's own children.
   */
  withNamedMembers(nav: NamedFieldNavigator): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      if (c.set.empty()) continue;
      if (nav.named(c.pe)) out.members.set(k, c.pe);
      out.children.set(k, { pe: c.pe, set: c.set.withNamedMembers(nav.below(c.pe)) });
    }
    return out;
  }

  has(path: FieldPath): boolean {
    let node: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1 && node; i++) node = node.children.get(serializePathElement(path[i]!))?.set;
    return !!node && path.length > 0 && node.members.has(serializePathElement(path[path.length - 1]!));
  }

  /** Whether `pe` itself is a member of this node. */
  hasMember(pe: PathElement): boolean {
    return this.members.has(serializePathElement(pe));
  }

  /** The paths under `pe` (relative to it); an empty set when there are none. */
  withPrefix(pe: PathElement): FieldSet {
    return this.children.get(serializePathElement(pe))?.set ?? new FieldSet();
  }

  /** The paths that start with `pe` (`pe` itself included when it is a member), from the root. */
  onlyUnder(pe: PathElement): FieldSet {
    const out = new FieldSet();
    const key = serializePathElement(pe);
    const member = this.members.get(key);
    if (member) out.members.set(key, member);
    const child = this.children.get(key);
    if (child && !child.set.empty()) out.children.set(key, { pe: child.pe, set: child.set.copy() });
    return out;
  }

  empty(): boolean {
    if (this.members.size) return false;
    for (const c of this.children.values()) if (!c.set.empty()) return false;
    return true;
  }

  union(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) out.members.set(k, pe);
    for (const [k, pe] of other.members) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      const o = other.children.get(k);
      out.children.set(k, { pe: c.pe, set: o ? c.set.union(o.set) : c.set.copy() });
    }
    for (const [k, c] of other.children) if (!this.children.has(k)) out.children.set(k, { pe: c.pe, set: c.set.copy() });
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (other.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      const o = other.children.get(k);
      if (!o) continue;
      const both = c.set.intersection(o.set);
      if (!both.empty()) out.children.set(k, { pe: c.pe, set: both });
    }
    return out;
  }

  /** Paths of this set that are not in `other` (a member of `other` does not remove what lies under it). */
  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (!other.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      const o = other.children.get(k);
      const rest = o ? c.set.difference(o.set) : c.set.copy();
      if (!rest.empty()) out.children.set(k, { pe: c.pe, set: rest });
    }
    return out;
  }

  /** Like {@link difference}, but a member of `other` also removes everything under it. */
  recursiveDifference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (!other.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      if (other.members.has(k)) continue;
      const o = other.children.get(k);
      const rest = o ? c.set.recursiveDifference(o.set) : c.set.copy();
      if (!rest.empty()) out.children.set(k, { pe: c.pe, set: rest });
    }
    return out;
  }

  copy(): FieldSet {
    return this.union(new FieldSet());
  }

  equals(other: FieldSet): boolean {
    return this.difference(other).empty() && other.difference(this).empty();
  }

  /** Members of this node in structured-merge-diff's order. */
  sortedMembers(): PathElement[] {
    return [...this.members.values()].sort(comparePathElements);
  }

  /** Non-empty children of this node in structured-merge-diff's order. */
  sortedChildren(): Array<{ pe: PathElement; set: FieldSet }> {
    return [...this.children.values()].filter((c) => !c.set.empty()).sort((a, b) => comparePathElements(a.pe, b.pe));
  }

  /** Every path, in the order structured-merge-diff iterates: a node's members, then its children. */
  paths(prefix: PathElement[] = []): FieldPath[] {
    const out: FieldPath[] = this.sortedMembers().map((pe) => [...prefix, pe]);
    for (const c of this.sortedChildren()) out.push(...c.set.paths([...prefix, c.pe]));
    return out;
  }

  /** The FieldsV1 form, keys in structured-merge-diff's order. */
  toFieldsV1(): FieldsV1 {
    return this.emit(false);
  }

  private emit(includeSelf: boolean): FieldsV1 {
    // Members and children under one key each (a member may have children too), then in
    // structured-merge-diff's order; an empty child is no entry unless it is also a member.
    const entries = new Map<string, { key: string; pe: PathElement; member: boolean; set?: FieldSet }>();
    for (const [key, pe] of this.members) entries.set(key, { key, pe, member: true });
    for (const [key, c] of this.children) {
      const e = entries.get(key);
      if (e) e.set = c.set;
      else entries.set(key, { key, pe: c.pe, member: false, set: c.set });
    }
    const sorted = [...entries.values()].sort(byKeyOrder);
    const out: FieldsV1 = {};
    let any = false;
    for (const e of sorted) {
      const sub = e.set ? e.set.emit(e.member) : {};
      if (!e.member && isEmptyFields(sub)) continue;
      if (!any && includeSelf) out['.'] = {};
      any = true;
      out[e.key] = sub;
    }
    return out;
  }

  /** Parses FieldsV1; throws on a malformed key. */
  static fromFieldsV1(fields: unknown): FieldSet {
    const set = new FieldSet();
    if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) throw new Error('FieldsV1 must be an object');
    for (const [key, sub] of Object.entries(fields as Record<string, unknown>)) {
      if (key === '.') continue;
      const pe = parsePathElement(key);
      if (!pe) continue;
      const child = FieldSet.fromFieldsV1(sub ?? {});
      const subKeys = sub && typeof sub === 'object' ? Object.keys(sub) : [];
      // A leaf (`{}`) or a node with `.` is a member; a node with only children is not.
      if (subKeys.length === 0 || subKeys.includes('.')) set.members.set(serializePathElement(pe), pe);
      if (!child.empty()) set.children.set(serializePathElement(pe), { pe, set: child });
    }
    return set;
  }
}

/** No entries: what an empty set emits. */
function isEmptyFields(f: FieldsV1): boolean {
  for (const _ in f) return false;
  return true;
}

/**
 * PathElement.Compare over entries that carry their serialized keys: two fields
 * compare as their keys do (the same `f:` before the names), without looking
 * at the elements.
 */
function byKeyOrder(a: { key: string; pe: PathElement }, b: { key: string; pe: PathElement }): number {
  if (a.key.charCodeAt(0) === 102 && b.key.charCodeAt(0) === 102) return compareStrings(a.key, b.key);
  return comparePathElements(a.pe, b.pe);
}

/**
 * structured-merge-diff's merge.Updater: who owns which fields after a write.
 *
 * - An update (create, update, patch) gives its manager every field it added
 *   or changed, and takes them from everyone else; removed fields leave every set.
 * - An apply makes the manager own exactly the fields of its configuration;
 *   fields it applied before and dropped now are removed from the object,
 *   unless another manager owns them. Changing a field another manager owns is
 *   a conflict, unless forced (then the other manager loses it).
 *
 * One API version per object: every served version of a resource has the same
 * shape here, so no conversion between managers' versions is needed.
 */
import { FieldSet } from './field-set.js';
import type { MergeType } from './merge-type.js';
import { compareTyped, ensureNamedFieldsAreMembers, mergeTyped, removeItems, toFieldSet, type Comparison } from './typed.js';
import type { FieldPath } from './path-element.js';

/** One manager's fields: at which API version, and whether by apply. */
export interface VersionedSet {
  set: FieldSet;
  apiVersion: string;
  applied: boolean;
}

/** Managers (by identifier) and their fields. */
export type ManagerSets = Map<string, VersionedSet>;

/** A field another manager owns, which an apply would change. */
export interface Conflict {
  manager: string;
  path: FieldPath;
}

/** Thrown by an apply that conflicts; the conflicts are in structured-merge-diff's order. */
export class ConflictsError extends Error {
  constructor(readonly conflicts: Conflict[]) {
    super('apply conflicts');
  }
}

/** Narrows a set to what an endpoint may own (kube's reset fields, e.g. no `status` on the main resource). */
export type SetFilter = (set: FieldSet) => FieldSet;

export class Updater {
  constructor(
    private readonly type: MergeType,
    private readonly filter: SetFilter = (s) => s,
  ) {}

  private changes(oldObj: unknown, newObj: unknown, managers: ManagerSets, workflow: string, force: boolean): Comparison {
    const raw = compareTyped(oldObj, newObj, this.type);
    const cmp: Comparison = { added: this.filter(raw.added), modified: this.filter(raw.modified), removed: this.filter(raw.removed) };
    const changed = cmp.modified.union(cmp.added);
    const conflicts = new Map<string, FieldSet>();
    for (const [manager, vs] of managers) {
      if (manager === workflow) continue;
      const clash = vs.set.intersection(changed);
      if (!clash.empty()) conflicts.set(manager, clash);
    }
    if (!force && conflicts.size) {
      const list: Conflict[] = [];
      for (const [manager, set] of conflicts) for (const path of set.paths()) list.push({ manager, path });
      throw new ConflictsError(list);
    }
    for (const [manager, vs] of managers) {
      if (manager === workflow) continue;
      let set = vs.set;
      const clash = conflicts.get(manager);
      if (clash) set = set.difference(clash);
      if (!cmp.removed.empty()) set = set.difference(cmp.removed);
      if (set.empty()) managers.delete(manager);
      else managers.set(manager, { ...vs, set });
    }
    return cmp;
  }

  /** Records an update by `manager` that turned `liveObj` into `newObj`. */
  update(liveObj: unknown, newObj: unknown, apiVersion: string, managers: ManagerSets, manager: string): ManagerSets {
    const cmp = this.changes(liveObj, newObj, managers, manager, true);
    const previous = managers.get(manager)?.set ?? new FieldSet();
    const set = this.filter(previous.difference(cmp.removed).union(cmp.modified).union(cmp.added));
    if (set.empty()) managers.delete(manager);
    else managers.set(manager, { set, apiVersion, applied: false });
    return managers;
  }

  /**
   * Applies `config` for `manager`: the merged object (undefined when nothing
   * changed) and the new manager sets. Throws {@link ConflictsError}.
   */
  apply(liveObj: unknown, config: unknown, apiVersion: string, managers: ManagerSets, manager: string, force: boolean): { object: unknown; managers: ManagerSets } {
    let merged: unknown = mergeTyped(liveObj, config, this.type) ?? {};
    const last = managers.get(manager);
    const set = this.filter(toFieldSet(config, this.type));
    managers.set(manager, { set, apiVersion, applied: true });
    // A manager that dropped nothing it applied before has nothing to prune: whatever the
    // pruning removed, its own new set would add back (the common re-apply, values changed).
    if (last && !last.set.difference(set).empty()) merged = this.prune(merged, managers, last.set);
    this.changes(liveObj, merged, managers, manager, force);
    return { object: merged, managers };
  }

  /** Removes what `manager` applied last time and not now, unless someone still owns it. */
  private prune(merged: unknown, managers: ManagerSets, last: FieldSet | undefined): unknown {
    if (!last || last.empty()) return merged;
    const named = (s: FieldSet): FieldSet => ensureNamedFieldsAreMembers(s, this.type);
    let pruned = removeItems(merged, named(last), this.type) ?? {};
    // Add back what any manager (the applier's new configuration included) owns.
    let owned = new FieldSet();
    for (const vs of managers.values()) owned = owned.union(vs.set);
    const mergedSet = named(toFieldSet(merged, this.type));
    pruned = removeItems(merged, mergedSet.difference(named(toFieldSet(pruned, this.type)).union(named(owned))), this.type) ?? {};
    // Only what the applier owned may go: add back dangling fields nobody applied.
    const gone = mergedSet.difference(named(toFieldSet(pruned, this.type))).intersection(named(last));
    return removeItems(merged, gone, this.type) ?? {};
  }
}

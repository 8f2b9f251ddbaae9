/**
 * Stored objects' managedFields share their FieldsV1 trees: objects of one
 * kind written by one manager usually own the same fields (every Deployment an
 * operator applies, every pod of a template), and a tree costs about as much
 * heap as the object it describes. Identical trees become one frozen object,
 * kept in a bounded table (the oldest forgotten first), so that each stored
 * object pays only for its entries' few strings.
 */
import type { FieldsV1 } from './field-set.js';

/** How many distinct trees are remembered; their keys cost about their JSON each. */
const maxSharedTrees = 2048;
const sharedTrees = new Map<string, FieldsV1>();

function deepFreeze(tree: FieldsV1): FieldsV1 {
  for (const child of Object.values(tree)) deepFreeze(child);
  return Object.freeze(tree);
}

/**
 * Replaces each entry's fieldsV1 with the shared, frozen tree equal to it (the
 * entry's own tree, frozen, when it is the first). For objects about to be
 * stored: their managedFields are read, never changed in place, afterwards.
 *
 * @example
 * ```ts
 * import { shareManagedFields, type ManagedFieldsEntry } from '@operant/apimachinery/managedfields';
 *
 * const a: ManagedFieldsEntry[] = [{ manager: 'op', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:x': {} } } }];
 * const b: ManagedFieldsEntry[] = [{ manager: 'op', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:x': {} } } }];
 * shareManagedFields(a);
 * shareManagedFields(b);
 * a[0]!.fieldsV1 === b[0]!.fieldsV1; // true
 * ```
 */
export function shareManagedFields(entries: ReadonlyArray<{ fieldsV1?: object }> | undefined): void {
  if (!Array.isArray(entries)) return;
  for (const entry of entries) {
    const tree = entry?.fieldsV1 as FieldsV1 | undefined;
    if (!tree || typeof tree !== 'object') continue;
    const key = JSON.stringify(tree);
    let shared: FieldsV1 | undefined = sharedTrees.get(key);
    if (shared) {
      // Most recently used last, so that the oldest is forgotten first.
      sharedTrees.delete(key);
    } else {
      shared = Object.isFrozen(tree) ? tree : deepFreeze(tree);
      if (sharedTrees.size >= maxSharedTrees) sharedTrees.delete(sharedTrees.keys().next().value as string);
    }
    sharedTrees.set(key, shared);
    entry.fieldsV1 = shared;
  }
}

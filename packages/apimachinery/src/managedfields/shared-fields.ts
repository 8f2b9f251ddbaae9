/**
 * Stored objects' managedFields share their FieldsV1 trees: objects of one
 * kind written by one manager usually own the same fields (every Deployment an
 * operator applies, every pod of a template), and a tree costs about as much
 * heap as the object it describes. Identical trees become one frozen object,
 * kept in a bounded table (the oldest forgotten first), so that each stored
 * object pays only for its entries' few strings.
 *
 * A tree that is new (most pods' differ in a leaf or two: the pod's IP, its
 * generated volume name) still shares its small parts: every `{}` leaf is one
 * object, and a node whose children are all leaves (a condition's fields, a
 * container's) is shared with the equal nodes of other trees. Those are most
 * of a tree's nodes, found in the one walk that freezes it. The entries' texts
 * that repeat (the manager's name, the API version, the time to the second)
 * are shared too.
 */
import type { FieldsV1 } from './field-set.js';

/** How many distinct trees are remembered; their keys cost about their JSON each. */
const maxSharedTrees = 2048;
const sharedTrees = new Map<string, FieldsV1>();
/** The key (JSON) each shared tree was shared under: entries carry the same trees write after write. */
const sharedTreeKeys = new WeakMap<object, string>();
/** How many distinct nodes of leaves are remembered; their keys cost about their names each. */
const maxSharedLeafNodes = 8192;
/** Nodes whose children are all `{}`, by their names (in order, NUL-separated), the oldest first. */
const sharedLeafNodes = new Map<string, FieldsV1>();
/** Every `{}` leaf of a shared tree. */
const emptyNode: FieldsV1 = Object.freeze({});

/**
 * Freezes `tree` in place, its `{}` leaves replaced by the shared one and its
 * nodes of leaves by shared equal ones; returns it, or the shared node equal
 * to it. Anything but plain objects is left as it is (frozen).
 */
function shareNodes(tree: FieldsV1): FieldsV1 {
  let key = '';
  let leavesOnly = true;
  for (const name in tree) {
    if (!Object.hasOwn(tree, name)) continue;
    const child = tree[name] as unknown;
    if (child === null || typeof child !== 'object' || Array.isArray(child)) {
      deepFreeze(child);
      leavesOnly = false;
    } else if (isEmpty(child as FieldsV1)) {
      if (child !== emptyNode) tree[name] = emptyNode;
      // A name is JSON-like text without NUL: the separator cannot be confused with it.
      key += `${name}\u0000`;
    } else {
      const shared = Object.isFrozen(child) ? (child as FieldsV1) : shareNodes(child as FieldsV1);
      if (shared !== child) tree[name] = shared;
      leavesOnly = false;
    }
  }
  Object.freeze(tree);
  if (!leavesOnly || key === '') return tree;
  const shared = sharedLeafNodes.get(key);
  if (shared !== undefined) return shared;
  return remember(sharedLeafNodes, maxSharedLeafNodes, key, tree);
}

/** Keeps `value` under `key` in a table of at most `max` entries, forgetting the oldest first; returns `value`. */
function remember<V>(table: Map<string, V>, max: number, key: string, value: V): V {
  if (table.size >= max) table.delete(table.keys().next().value as string);
  table.set(key, value);
  return value;
}

/** How many distinct entry texts (managers, API versions, times to the second) are remembered. */
const maxSharedTexts = 4096;
const sharedTexts = new Map<string, string>();
/** The entry fields whose texts repeat across objects: each request brings its own copy of the same manager name. */
const textFields = ['manager', 'apiVersion', 'time'] as const;

/** The one copy of `text` kept for every entry that holds it. */
function shareText(text: string): string {
  return sharedTexts.get(text) ?? remember(sharedTexts, maxSharedTexts, text, text);
}

function isEmpty(node: FieldsV1): boolean {
  for (const name in node) if (Object.hasOwn(node, name)) return false;
  return true;
}

/** Freezes `value` and everything in it (a frozen object is taken as frozen all through). */
export function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  for (const child of Object.values(value)) deepFreeze(child);
  Object.freeze(value);
}

/**
 * Replaces each entry's fieldsV1 with the shared, frozen tree equal to it (the
 * entry's own tree, frozen, when it is the first, with its leaves and nodes
 * of leaves shared), and its manager, apiVersion and time with the equal texts
 * of other entries. For objects about to be stored: their managedFields are
 * read, never changed in place, afterwards.
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
    if (entry === null || typeof entry !== 'object' || Object.isFrozen(entry)) continue;
    const texts = entry as Record<string, unknown>;
    for (const field of textFields) {
      const text = texts[field];
      if (typeof text === 'string') texts[field] = shareText(text);
    }
    const tree = entry.fieldsV1 as FieldsV1 | undefined;
    if (!tree || typeof tree !== 'object') continue;
    // A tree shared already (an entry a write kept from the stored object) is looked up by the key it was shared under.
    const key = sharedTreeKeys.get(tree) ?? JSON.stringify(tree);
    let shared: FieldsV1 | undefined = sharedTrees.get(key);
    if (shared) {
      // Most recently used last, so that the oldest is forgotten first.
      sharedTrees.delete(key);
    } else {
      if (Object.isFrozen(tree)) shared = tree;
      else if (Array.isArray(tree)) {
        deepFreeze(tree);
        shared = tree;
      } else shared = shareNodes(tree);
      if (sharedTrees.size >= maxSharedTrees) sharedTrees.delete(sharedTrees.keys().next().value as string);
    }
    sharedTrees.set(key, shared);
    sharedTreeKeys.set(shared, key);
    entry.fieldsV1 = shared;
  }
}

/**
 * metadata.managedFields on the wire: decoding the entries into manager sets,
 * encoding them back in kube's order, and the identifiers kube gives managers
 * (a manager name is unique per operation, API version for updates, and
 * subresource). The shapes and checks follow k8s.io/apimachinery's
 * util/managedfields/internal/managedfields.go.
 */
import { FieldSet, type FieldsV1 } from './field-set.js';
import type { ManagerSets, VersionedSet } from './updater.js';
import { deepFreeze } from './shared-fields.js';

/** A metav1.ManagedFieldsEntry. */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: FieldsV1;
  subresource?: string;
}

/** Manager sets and the time each manager last changed something. */
export interface Managed {
  sets: ManagerSets;
  times: Map<string, string | undefined>;
}

export function emptyManaged(): Managed {
  return { sets: new Map(), times: new Map() };
}

/** What identifies a manager: its name, operation, subresource, and for updates the API version. */
export interface ManagerInfo {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion?: string;
  subresource?: string;
}

/** BuildManagerIdentifier: the entry's JSON without fields, time, and (for applies) API version. */
export function managerIdentifier(info: ManagerInfo): string {
  const apiVersion = info.operation === 'Update' && info.apiVersion ? info.apiVersion : '';
  const subresource = info.subresource ?? '';
  // Every write names its manager: the few identifiers a server sees are made once each.
  // Each part but the last is prefixed by its length, so that no two sets of parts share a key.
  const key = `${info.operation.length}:${info.operation}${apiVersion.length}:${apiVersion}${subresource.length}:${subresource}${info.manager}`;
  let text = identifiers.get(key);
  if (text === undefined) {
    const id: Record<string, string> = { manager: info.manager, operation: info.operation };
    if (apiVersion) id.apiVersion = apiVersion;
    if (subresource) id.subresource = subresource;
    text = JSON.stringify(id);
    if (identifiers.size >= maxRememberedIdentifiers) identifiers.clear();
    identifiers.set(key, text);
  }
  return text;
}

/** How many identifiers (and their parsed forms) are remembered before starting afresh: manager names come from clients. */
const maxRememberedIdentifiers = 1024;
/** Identifiers by their parts. */
const identifiers = new Map<string, string>();
/** Parsed identifiers, frozen: each caller gets its own copy. */
const parsedIdentifiers = new Map<string, Readonly<ManagerInfo> | undefined>();

/** The parts of an identifier; a bare name when it is not one (structured-merge-diff's own managers). */
export function parseManagerIdentifier(id: string): ManagerInfo | undefined {
  let info = parsedIdentifiers.get(id);
  if (info === undefined && !parsedIdentifiers.has(id)) {
    info = parseIdentifierText(id);
    if (info) Object.freeze(info);
    if (parsedIdentifiers.size >= maxRememberedIdentifiers) parsedIdentifiers.clear();
    parsedIdentifiers.set(id, info);
  }
  return info && { ...info };
}

function parseIdentifierText(id: string): ManagerInfo | undefined {
  try {
    const v = JSON.parse(id) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as ManagerInfo;
  } catch {
    /* not an identifier */
  }
  return undefined;
}

/** Whether a client asked to reset managedFields: `[]` or `[{}]`. */
export function isResetManagedFields(entries: unknown): boolean {
  if (!Array.isArray(entries)) return false;
  if (entries.length === 0) return true;
  const only = entries[0] as unknown;
  return entries.length === 1 && !!only && typeof only === 'object' && Object.keys(only).length === 0;
}

/** DecodeManagedFields; throws with kube's reason when an entry is malformed. */
export function decodeManagedFields(entries: unknown): Managed {
  const managed = emptyManaged();
  if (entries === undefined || entries === null) return managed;
  if (!Array.isArray(entries)) throw new Error('managedFields must be a list');
  entries.forEach((raw, i) => {
    const e = (raw ?? {}) as ManagedFieldsEntry;
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new Error('operation must be `Apply` or `Update`');
    if (!e.apiVersion) throw new Error('apiVersion must not be empty');
    if (!e.fieldsType) throw new Error(`missing fieldsType in managed fields entry ${i}`);
    if (e.fieldsType !== 'FieldsV1') throw new Error(`invalid fieldsType ${JSON.stringify(e.fieldsType)} in managed fields entry ${i}`);
    const id = managerIdentifier({ manager: e.manager ?? '', operation: e.operation, apiVersion: e.apiVersion, subresource: e.subresource });
    managed.sets.set(id, { set: decodeFields(e.fieldsV1 ?? {}), apiVersion: e.apiVersion, applied: e.operation === 'Apply' });
    managed.times.set(id, e.time);
  });
  return managed;
}

/**
 * Stored objects' FieldsV1 trees are frozen and shared (shareManagedFields):
 * every pod of a template carries the same few. Each such tree is decoded
 * once, and the set decoded from it encodes once: a write that leaves most
 * managers' fields as they were (a status update, a binding) does not parse
 * and print their trees again. FieldSets are never changed in place once
 * built (union, difference and the rest return new sets), so one can serve
 * every object that shares the tree.
 */
const decodedTrees = new WeakMap<object, FieldSet>();
const encodedSets = new WeakMap<FieldSet, FieldsV1>();
/** The sets in `decodedTrees`. */
const sharedSets = new WeakSet<FieldSet>();

function decodeFields(fields: unknown): FieldSet {
  if (fields === null || typeof fields !== 'object' || !Object.isFrozen(fields)) return FieldSet.fromFieldsV1(fields);
  let set = decodedTrees.get(fields);
  if (!set) {
    set = FieldSet.fromFieldsV1(fields);
    decodedTrees.set(fields, set);
    sharedSets.add(set);
  }
  return set;
}

/**
 * `vs` with its set marked as never changed in place, like a set decoded from
 * a shared tree: kept for many objects, its FieldsV1 is encoded (and frozen) once.
 */
export function shareableSet(vs: VersionedSet): VersionedSet {
  sharedSets.add(vs.set);
  return vs;
}

function encodeFields(set: FieldSet): FieldsV1 {
  let encoded = encodedSets.get(set);
  if (encoded) return encoded;
  encoded = set.toFieldsV1();
  // Only the sets decoded from a shared tree come back to be encoded again; the encoding is shared too, so frozen.
  if (sharedSets.has(set)) {
    deepFreeze(encoded);
    encodedSets.set(set, encoded);
  }
  return encoded;
}

/** encodeManagedFields: one entry per manager, sorted as kube sorts them; undefined when there are none. */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  if (managed.sets.size === 0) return undefined;
  const entries: ManagedFieldsEntry[] = [];
  for (const [id, vs] of managed.sets) {
    const info = parseManagerIdentifier(id) ?? { manager: id, operation: 'Update' as const };
    const entry: ManagedFieldsEntry = { manager: info.manager, operation: vs.applied ? 'Apply' : 'Update', apiVersion: vs.apiVersion };
    const time = managed.times.get(id);
    if (time) entry.time = time;
    entry.fieldsType = 'FieldsV1';
    entry.fieldsV1 = encodeFields(vs.set);
    if (info.subresource) entry.subresource = info.subresource;
    entries.push(entry);
  }
  const seconds = (t: string | undefined): number => (t ? Math.floor(Date.parse(t) / 1000) : 0);
  const cmp = (a: string | undefined, b: string | undefined): number => ((a ?? '') < (b ?? '') ? -1 : (a ?? '') > (b ?? '') ? 1 : 0);
  return entries.sort(
    (p, q) =>
      cmp(p.operation, q.operation) ||
      seconds(p.time) - seconds(q.time) ||
      cmp(p.manager, q.manager) ||
      cmp(p.apiVersion, q.apiVersion) ||
      cmp(p.subresource, q.subresource),
  );
}

/**
 * metav1.Time as kube writes it: RFC 3339 in UTC, to the second. Its text is
 * made once per second and shared by every write of that second (managedFields
 * times, and the API server's creationTimestamp and condition times).
 *
 * @example
 * ```ts
 * import { managedFieldsTime } from '@operant/apimachinery/managedfields';
 * const text = managedFieldsTime(new Date('2024-05-01T10:00:00.250Z')); // '2024-05-01T10:00:00Z'
 * ```
 */
export function managedFieldsTime(now: Date): string {
  const second = Math.floor(now.getTime() / 1000);
  // Every write of a second carries the same text: made once per second.
  if (second !== lastTime.second) {
    lastTime.second = second;
    lastTime.text = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  return lastTime.text;
}

/** The last second managedFieldsTime wrote, and its text. */
const lastTime = { second: Number.NaN, text: '' };

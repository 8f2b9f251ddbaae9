/**
 * kube's FieldManager for one resource endpoint: keeps metadata.managedFields
 * on every write and serves server-side apply, layered as
 * k8s.io/apimachinery's util/managedfields does it:
 *
 * | layer | what it does |
 * | --- | --- |
 * | version check | an applied configuration must have the endpoint's apiVersion and kind |
 * | skip non-applied | an existing object without managedFields starts tracking on its first apply (`before-first-apply` owns what was there) |
 * | cap managers | at most 10 update managers; the oldest merge into `ancient-changes` |
 * | manager info | the manager's identifier: name, operation, API version (updates), subresource |
 * | managed-fields updater | an update's fields join its manager's entry; `time` moves only when something changed |
 * | strip meta | nobody owns apiVersion, kind, or metadata's name, namespace, uid, resourceVersion, ... |
 */
import { StatusError, type StatusCause } from '../status.js';
import { jsonEqual, type KubeObject } from '../object.js';
import { FieldSet } from './field-set.js';
import { decodeManagedFields, emptyManaged, encodeManagedFields, isResetManagedFields, managedFieldsTime, managerIdentifier, parseManagerIdentifier, shareableSet, type Managed, type ManagedFieldsEntry } from './managed-fields.js';
import type { MergeType } from './merge-type.js';
import { goJsonEscaped, pathString } from './path-element.js';
import { compareTyped, toFieldSet, validateTyped } from './typed.js';
import { ConflictsError, Updater, type Conflict, type SetFilter, type VersionedSet } from './updater.js';

/** The identity of the endpoint a FieldManager serves. */
export interface FieldManagerOptions {
  /** The merge type of the whole object. */
  type: MergeType;
  group: string;
  version: string;
  kind: string;
  /** `status` or `scale` for a subresource; empty for the resource itself. */
  subresource?: string;
  /** The fields this endpoint may own (kube's reset fields); all when absent. */
  filter?: SetFilter;
  /** The clock, for `time`. */
  now?: () => Date;
  /**
   * The object a create starts from, as kube's field manager compares it (kube:
   * the kind's Go zero value), the same value at every call; an empty object
   * when absent.
   */
  emptyObject?: () => unknown;
}

/**
 * How many distinct created objects each FieldManager remembers the set of
 * (see createdFields), the oldest forgotten first, and the longest JSON it
 * remembers one by: a template's pod is about 1.5 KiB, and each endpoint's
 * table then holds at most 128 KiB of keys.
 */
const maxCreatedSets = 32;
const maxCreatedKeyLength = 4096;

/** kube's limit on update managers kept apart before the oldest are merged. */
const maxUpdateManagers = 10;

/** metadata's fields that strip-meta takes out of every set. */
const strippedMetadataFieldNames = ['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'];

const stripSet = FieldSet.of(
  [{ field: 'apiVersion' }],
  [{ field: 'kind' }],
  [{ field: 'metadata' }],
  ...strippedMetadataFieldNames.map((f) => [
    { field: 'metadata' },
    { field: f },
  ]),
);

/**
 * metadata.managedFields and server-side apply for one endpoint of a kind.
 *
 * @example
 * ```ts
 * import { FieldManager, mergeTypeOf } from '@operant/apimachinery/managedfields';
 *
 * const type = mergeTypeOf({ type: 'object', properties: { data: { type: 'object', additionalProperties: { type: 'string' } } } }, () => undefined);
 * const fm = new FieldManager({ type, group: '', version: 'v1', kind: 'ConfigMap' });
 * const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } };
 * const { object } = fm.apply(undefined, config, 'alice', false);
 * // object.metadata.managedFields: [{ manager: 'alice', operation: 'Apply', fieldsV1: { 'f:data': { 'f:a': {} } }, ... }]
 * fm.apply(object, { ...config, data: { a: '2' } }, 'bob', false);
 * // throws a 409: Apply failed with 1 conflict: conflict with "alice": .data.a
 * ```
 */
export class FieldManager {
  private readonly updater: Updater;
  private readonly apiVersion: string;
  private readonly subresource: string;
  private readonly now: () => Date;

  constructor(private readonly options: FieldManagerOptions) {
    this.updater = new Updater(options.type, options.filter);
    this.apiVersion = options.group ? `${options.group}/${options.version}` : options.version;
    this.subresource = options.subresource ?? '';
    this.now = options.now ?? (() => new Date());
  }

  /**
   * The managedFields after an update by `manager` that turned `live` (absent
   * for a create) into `obj`. `requested` is the managedFields the client sent,
   * before decoding: `[]` or `[{}]` resets them, valid entries replace them.
   * Undefined means the object carries none.
   */
  update(live: KubeObject | undefined, obj: KubeObject, manager: string, requested: unknown = obj.metadata.managedFields): ManagedFieldsEntry[] | undefined {
    let managed: Managed;
    if (this.subresource) managed = decodeOrEmpty(live?.metadata.managedFields);
    else if (isResetManagedFields(requested)) managed = emptyManaged();
    else {
      managed = decodeOrEmpty(requested);
      if (managed.sets.size === 0) managed = decodeOrEmpty(live?.metadata.managedFields);
    }
    // An existing object that nobody tracked stays untracked until its first apply.
    if (managed.sets.size === 0 && live?.metadata.uid) return undefined;
    if (managed.sets.size === 0 && !live) return this.createdFields(withoutManagedFields(obj)!, managed, manager || 'unknown');
    this.recordUpdate(withoutManagedFields(live) ?? this.emptyObject(), withoutManagedFields(obj), managed, manager || 'unknown');
    this.capUpdateManagers(managed);
    return encodeManagedFields(managed);
  }

  /**
   * The fields a manager's create sets, by the created object's shape (see
   * createdShape) and the manager: what a create records depends on nothing
   * else (the empty object it is compared with is the same each time), and a
   * controller creates object after object from one template (a ReplicaSet's
   * pods differ only in the name the server generates after this; a client's
   * ConfigMaps, in their names and values), so the comparison and its set are
   * made once per shape. The set is shared, so its FieldsV1 is encoded once too.
   */
  private createdFields(obj: KubeObject, managed: Managed, manager: string): ManagedFieldsEntry[] | undefined {
    this.zeroValue ??= this.emptyObject();
    const shape = createdShape(obj, this.zeroValue);
    if (shape === undefined) {
      this.recordUpdate(this.emptyObject(), obj, managed, manager);
      return encodeManagedFields(managed);
    }
    const key = `${manager}\u0000${shape}`;
    let created = this.createdSets.get(key);
    if (created === undefined) {
      const computed = emptyManaged();
      this.recordUpdate(this.emptyObject(), obj, computed, manager);
      const [entry] = computed.sets;
      created = entry ? { id: entry[0], set: shareableSet(entry[1]) } : null;
      if (this.createdSets.size >= maxCreatedSets) this.createdSets.delete(this.createdSets.keys().next().value as string);
      this.createdSets.set(key, created);
    }
    if (created === null) return undefined;
    managed.sets.set(created.id, created.set);
    managed.times.set(created.id, managedFieldsTime(this.now()));
    return encodeManagedFields(managed);
  }

  /** Creates' sets by manager and object shape (see createdFields); null when a create records nothing. */
  private readonly createdSets = new Map<string, { id: string; set: VersionedSet } | null>();
  /** The empty object a create is compared with, kept to read createdShape's keys against (never handed to the updater). */
  private zeroValue: unknown;

  /**
   * Server-side apply of `config` by `manager` onto `live` (absent: the apply
   * creates). Returns the object to store, with its managedFields, and whether
   * anything but managedFields changed. Throws kube's StatusErrors: 400 for a
   * configuration of another kind or with managedFields, 409 for conflicts.
   */
  apply(live: KubeObject | undefined, config: Record<string, unknown>, manager: string, force: boolean): { object: KubeObject; changed: boolean } {
    const { group, version, kind } = this.options;
    const gvk = parseGvk(config);
    if (gvk.group !== group || gvk.version !== version || gvk.kind !== kind) {
      throw new StatusError(400, 'BadRequest', `invalid object type: ${gvk.group}/${gvk.version}, Kind=${gvk.kind}`);
    }
    const meta = config.metadata as Record<string, unknown> | undefined;
    if (meta && meta.managedFields !== undefined && meta.managedFields !== null) throw new StatusError(400, 'BadRequest', 'metadata.managedFields must be nil');
    try {
      return this.applyOnce(live, config, manager, force);
    } catch (e) {
      if (!(e instanceof ConflictsError) || manager !== kubectlManager || !live) throw conflictOr(e);
      // kubectl taking over from client-side apply: conflicts on fields that still hold
      // what kubectl last applied client-side are not conflicts (lastAppliedManager).
      const allowed = this.unchangedSinceLastApplied(live);
      const remaining = allowed ? e.conflicts.filter((c) => !allowed.has(c.path)) : e.conflicts;
      if (remaining.length) throw applyConflictError(remaining);
      return this.applyOnce(live, config, manager, true);
    }
  }

  private applyOnce(live: KubeObject | undefined, config: Record<string, unknown>, manager: string, force: boolean): { object: KubeObject; changed: boolean } {
    const { group, version, kind } = this.options;
    const meta = config.metadata as Record<string, unknown> | undefined;
    let managed: Managed;
    try {
      managed = decodeManagedFields(live?.metadata.managedFields);
    } catch (e) {
      throw new StatusError(500, 'InternalError', `failed to decode managed fields: ${(e as Error).message}`);
    }
    const liveValue = withoutManagedFields(live) ?? { apiVersion: this.apiVersion, kind, metadata: {} };
    if (managed.sets.size === 0 && live) this.recordUpdate(this.emptyObject(), liveValue, managed, 'before-first-apply');
    const errors = validateTyped(config, this.options.type);
    if (errors.length) {
      const text = errors.length === 1 ? errors[0]!.message : ['errors:', ...errors.map((e) => `  ${e.message}`)].join('\n');
      // kube names the configuration as sent (objectGVKNN of the patch object).
      const name = `${String(meta?.namespace ?? '')}/${String(meta?.name ?? '')}`;
      throw new StatusError(400, 'BadRequest', `failed to create typed patch object (${name}; ${group}/${version}, Kind=${kind}): ${text}`);
    }
    const id = managerIdentifier({ manager, operation: 'Apply', subresource: this.subresource });
    const merged = this.updater.apply(liveValue, config, this.apiVersion, managed.sets, id, force).object as KubeObject;
    // lastAppliedUpdater: kubectl's annotation keeps following what kubectl applies.
    if (manager === kubectlManager && merged.metadata?.annotations?.[lastAppliedAnnotation]) {
      merged.metadata.annotations[lastAppliedAnnotation] = lastAppliedOf(config);
    }
    this.strip(managed, id);
    const changed = !jsonEqual(liveValue, merged);
    if (changed) managed.times.set(id, managedFieldsTime(this.now()));
    const object = (changed ? merged : structuredClone(liveValue)) as KubeObject;
    const entries = encodeManagedFields(managed);
    if (entries) object.metadata.managedFields = entries as KubeObject['metadata']['managedFields'];
    else delete object.metadata.managedFields;
    return { object, changed };
  }

  /**
   * The fields of the last-applied-configuration annotation that still hold
   * the values kubectl applied client-side; undefined without a usable annotation.
   */
  private unchangedSinceLastApplied(live: KubeObject): FieldSet | undefined {
    const text = live.metadata.annotations?.[lastAppliedAnnotation];
    if (!text) return undefined;
    let last: unknown;
    try {
      last = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (!last || typeof last !== 'object' || (last as { apiVersion?: unknown }).apiVersion !== this.apiVersion) return undefined;
    if (validateTyped(last, this.options.type).length) return undefined;
    const liveValue = withoutManagedFields(live);
    const set = toFieldSet(last, this.options.type);
    const cmp = compareTyped(last, liveValue, this.options.type);
    return set.difference(cmp.modified).difference(cmp.added).difference(cmp.removed);
  }

  private emptyObject(): unknown {
    return this.options.emptyObject?.() ?? {};
  }

  /** The managed-fields updater over strip-meta: the update's fields join the manager's entry. */
  private recordUpdate(live: unknown, obj: unknown, managed: Managed, manager: string): void {
    const id = managerIdentifier({ manager, operation: 'Update', apiVersion: this.apiVersion, subresource: this.subresource });
    const self = 'current-operation';
    this.updater.update(live, obj, this.apiVersion, managed.sets, self);
    this.strip(managed, self);
    const vs = managed.sets.get(self);
    if (!vs) return;
    managed.sets.delete(self);
    const previous = managed.sets.get(id);
    managed.sets.set(id, previous ? { ...vs, set: vs.set.union(previous.set) } : vs);
    managed.times.set(id, managedFieldsTime(this.now()));
  }

  private strip(managed: Managed, id: string): void {
    const vs = managed.sets.get(id);
    if (!vs) return;
    const set = vs.set.difference(stripSet);
    if (set.empty()) managed.sets.delete(id);
    else managed.sets.set(id, { ...vs, set });
  }

  /** capManagersManager: the oldest update managers beyond the limit merge into `ancient-changes`, per API version. */
  private capUpdateManagers(managed: Managed): void {
    const updaters = [...managed.sets].filter(([, vs]) => !vs.applied).map(([id]) => id);
    if (updaters.length <= maxUpdateManagers) return;
    const seconds = (id: string): number => {
      const t = managed.times.get(id);
      return t ? Math.floor(Date.parse(t) / 1000) : 0;
    };
    updaters.sort((a, b) => seconds(a) - seconds(b) || (a < b ? -1 : a > b ? 1 : 0));
    const firstByVersion = new Map<string, string>();
    let length = updaters.length;
    for (let i = 0; i < updaters.length && length > maxUpdateManagers; i++) {
      const id = updaters[i]!;
      const vs = managed.sets.get(id)!;
      const time = managed.times.get(id);
      const bucket = managerIdentifier({ manager: 'ancient-changes', operation: 'Update', apiVersion: vs.apiVersion });
      const first = firstByVersion.get(vs.apiVersion);
      if (first === undefined) {
        firstByVersion.set(vs.apiVersion, id);
        continue;
      }
      if (!managed.sets.has(bucket)) {
        managed.sets.set(bucket, managed.sets.get(first)!);
        managed.sets.delete(first);
      }
      managed.sets.set(bucket, { ...vs, set: vs.set.union(managed.sets.get(bucket)!.set) });
      managed.sets.delete(id);
      managed.times.set(bucket, time);
      length--;
    }
  }
}

/** The manager kubectl applies as, the only one the client-side apply migration concerns. */
const kubectlManager = 'kubectl';
const lastAppliedAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';

/** The annotation's value for an applied configuration: its JSON without the annotation, as Go's json.Encoder writes it. */
function lastAppliedOf(config: Record<string, unknown>): string {
  const copy = structuredClone(config) as { metadata?: { annotations?: Record<string, string> } };
  if (copy.metadata?.annotations) delete copy.metadata.annotations[lastAppliedAnnotation];
  return `${goJsonEscaped(copy)}\n`;
}

function conflictOr(e: unknown): unknown {
  return e instanceof ConflictsError ? applyConflictError(e.conflicts) : e;
}

function decodeOrEmpty(entries: unknown): Managed {
  try {
    return decodeManagedFields(entries);
  } catch {
    return emptyManaged();
  }
}

/** The same fields as a set (see stripSet): a scalar there changes no set, whatever its value. */
const strippedMetadataFields = new Set(strippedMetadataFieldNames);

/**
 * The key under which a create's field set is remembered: the object's text
 * with each value that cannot change the set written as a placeholder of its
 * JSON type. A create's set holds the fields the object has and the empty
 * (zero) object lacks (compareTyped: added) or holds with another value
 * (modified), less strip-meta's. A scalar's value therefore counts only where
 * the zero object has a value too, and not at a stripped metadata field;
 * lists go whole (their items' keys and values are path elements); maps go
 * key by key, in order. Objects with the same key have the same set.
 * Undefined when the key would pass maxCreatedKeyLength.
 */
function createdShape(obj: unknown, zero: unknown): string | undefined {
  let key = '';
  /** Adds `value`'s part of the key (`zeroValue` is the zero object's value at the same place); false once the key is too long. */
  const walk = (value: unknown, zeroValue: unknown, strip: boolean): boolean => {
    if (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') return false;
    if (value === null || typeof value !== 'object') {
      // Where the zero object has a value, this one decides whether the field changed: it counts.
      if (zeroValue !== undefined) key += value === undefined ? 'u' : JSON.stringify(value);
      else key += value === null ? 'null' : typeof value === 'string' ? '#s' : typeof value === 'number' ? '#n' : typeof value === 'boolean' ? '#b' : 'u';
    } else if (Array.isArray(value)) key += JSON.stringify(value);
    else {
      const zeroMap = zeroValue !== null && typeof zeroValue === 'object' && !Array.isArray(zeroValue) ? (zeroValue as Record<string, unknown>) : undefined;
      key += '{';
      for (const k of Object.keys(value)) {
        const v = (value as Record<string, unknown>)[k];
        const z = zeroMap?.[k];
        key += `${JSON.stringify(k)}:`;
        if (strip && strippedMetadataFields.has(k) && (v === null || typeof v !== 'object') && (z === null || typeof z !== 'object')) key += '#x';
        else if (!walk(v, z, value === obj && k === 'metadata')) return false;
        key += ',';
      }
      key += '}';
    }
    return key.length <= maxCreatedKeyLength;
  };
  return walk(obj, zero, false) ? key : undefined;
}

function withoutManagedFields(obj: KubeObject | undefined): KubeObject | undefined {
  if (!obj) return undefined;
  if (!obj.metadata || obj.metadata.managedFields === undefined) return obj;
  const { managedFields: _dropped, ...metadata } = obj.metadata;
  return { ...obj, metadata } as KubeObject;
}

function parseGvk(obj: Record<string, unknown>): { group: string; version: string; kind: string } {
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion, kind } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), kind };
}

/** printManager: `"name"`, plus `with subresource "status"`, plus `using apps/v1` for an update. */
function printManager(id: string): string {
  const info = parseManagerIdentifier(id);
  if (!info) return JSON.stringify(id);
  let s = JSON.stringify(info.manager ?? '');
  if (info.subresource) s += ` with subresource ${JSON.stringify(info.subresource)}`;
  if (info.operation === 'Update') s += ` using ${info.apiVersion ?? ''}`;
  return s;
}

/**
 * kube's 409 for apply conflicts (NewConflictError): one line for one conflict,
 * else each manager (sorted) with its fields; one cause per conflicting field.
 */
export function applyConflictError(conflicts: Conflict[]): StatusError {
  const sorted = [...conflicts].sort((a, b) => (a.manager < b.manager ? -1 : a.manager > b.manager ? 1 : 0));
  const causes: StatusCause[] = sorted.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${printManager(c.manager)}`, field: pathString(c.path) }));
  let message: string;
  if (sorted.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(sorted[0]!.manager)}: ${pathString(sorted[0]!.path)}`;
  } else {
    const lines: string[] = [];
    let current: string | undefined;
    for (const c of sorted) {
      if (c.manager !== current) {
        current = c.manager;
        lines.push(`conflicts with ${printManager(c.manager)}:`);
      }
      lines.push(`- ${pathString(c.path)}`);
    }
    message = `Apply failed with ${sorted.length} conflicts: ${lines.join('\n')}`;
  }
  const err = new StatusError(409, 'Conflict', message, { causes });
  return err;
}

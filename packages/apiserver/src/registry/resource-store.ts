/**
 * The one generic registry every resource is served by, in the shape of
 * k8s.io/apiserver's registry/generic/registry.Store: create, get, list,
 * update, patch, delete and watch over the MVCC store, with the per-kind
 * behaviour supplied by a Strategy.
 */
import { randomUUID } from 'node:crypto';
import {
  StatusError,
  alreadyExists,
  apiVersionOf,
  badRequest,
  conflict,
  deepCopy,
  invalid,
  isJsonObject,
  namespaceTerminating,
  notFound,
  objectModifiedMessage,
  successStatus,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type FieldError,
  type GroupResource,
  type GroupVersionKind,
  type KubeObject,
  type Status,
} from '@operant/apimachinery';
import { FieldManager, FieldSet, shareManagedFields, type FieldPath, type ManagedFieldsEntry, type MergeType, type PathElement } from '@operant/apimachinery/managedfields';
import type { MvccStore, StoreRange } from '../storage/mvcc-store.js';
import { StoreError, type Versioned } from '../storage/types.js';
import { listPrefix, objectKey, type StorageLocation } from './keys.js';
import { fillCreateMeta, generateName, nowTimestamp, sameIgnoringVersion, specChanged } from './object-meta.js';
import { serverUser, type DeleteOptions, type FieldValidation, type ListOptions, type WriteOptions, type WriteResult } from './options.js';
import type { AdmissionChain } from '../admission/dispatcher.js';
import type { AdmissionAttributes, OperationOptionsObject } from '../admission/types.js';
import type { ResourceQuotaAdmission } from '../admission/resource-quota.js';
import { toReviewUserInfo, type UserInfo } from '../auth/authn/index.js';
import type { ResourceInfo } from './resource-info.js';
import type { EndHold, Strategy } from './strategy.js';
import { compileListFilter, type ListFilter } from './list-filter.js';
import { decodeContinue, encodeContinue } from './continue-token.js';
import { metadataTypeError, objectMetaDecodeError, typeMetaMismatch } from './type-meta.js';
import { jsonDepthExceeds, maxBodyNestingDepth } from '../http/go-json.js';
import { applyPatchType, parseApplyPatch } from '../http/patch-body.js';
import { emptyObjectFor, mergeTypeFor } from './merge-types.js';
import { ScaleTracking, type ScaleWrite } from './scale-tracking.js';
import { strictPatchError } from './strategic-patch-result.js';
import { duplicateFieldsOf } from '../http/duplicate-fields.js';
import { cannotBeHandledMessage } from '../openapi/unknown-fields.js';

/**
 * How a write sets metadata.managedFields: `compute` records the change as an
 * update by its manager (`requested` is what the client sent there, before
 * decoding dropped an empty list); `keep` stores them as given (an apply
 * computed them already).
 */
type ManagedFieldsMode = { mode: 'compute'; requested: unknown } | { mode: 'keep' };

/**
 * Turns a request body into the object to store: checks or drops unknown fields.
 * `source` is `patch` when the object is the result of applying a patch: kube then
 * reports a strict decoding error without the "cannot be handled as" prefix.
 * `stored` is the object as stored now, when the write replaces one: a decoder
 * may pass over what the body holds exactly as stored (it was decoded when written).
 */
export type ObjectDecoder = (
  obj: KubeObject,
  validation: FieldValidation,
  source?: 'body' | 'patch',
  stored?: KubeObject,
) => { object: KubeObject; warnings: string[] };

/** Applies a patch of the given content type to the current object. */
export type PatchApplier = (current: KubeObject, patchType: string, body: Buffer) => KubeObject;

/** A conversion's answer: at once, or later (a conversion webhook). */
export type MaybePromise<T> = T | Promise<T>;

/**
 * For a resource served in one shape and stored in another: events.k8s.io/v1
 * Events are stored as core/v1 Events, and a custom resource is stored in its
 * CRD's storage version. The strategy works on the served shape; conversion
 * happens only where objects enter and leave storage, as in kube.
 */
export interface StorageConversion {
  /** The apiVersion and kind of stored objects. */
  storedAs: { apiVersion: string; kind: string };
  /** Converts served objects to the stored shape (in order). */
  toStorage(objs: KubeObject[]): MaybePromise<KubeObject[]>;
  /** Converts stored objects to the served shape (in order); must not modify them. */
  fromStorage(objs: KubeObject[]): MaybePromise<KubeObject[]>;
}

export interface ResourceStoreDeps {
  store: MvccStore;
  decoder: ObjectDecoder;
  patcher: PatchApplier;
  conversion?: StorageConversion;
  /** Admission webhooks: mutating before defaulting and validation, validating after. */
  admission?: AdmissionChain;
  /** Adds what encoding the kind's Go type writes even when unset (built-in kinds), once an object is valid. */
  encoder?: (obj: KubeObject, stored?: KubeObject) => void;
  /** ResourceQuota admission, after the validating webhooks (kube runs it last). */
  quota?: ResourceQuotaAdmission;
}

const maxGenerateNameAttempts = 8;

/** The path element of `status`, all that a status write may own. */
const statusField: PathElement = { field: 'status' };

const maxPatchConflictRetries = 5;

/** What a list answers: the kind's List (`PodList`...), with the page's ListMeta (resourceVersion, continue, remainingItemCount). */
export interface ObjectList {
  apiVersion: string;
  kind: string;
  metadata: Record<string, unknown>;
  items: KubeObject[];
  /**
   * The items as the store holds them, when they are served as stored (no conversion): a JSON answer
   * sends those read back from disk and not parsed yet from their stored bytes, and `items` parses them
   * only when read.
   */
  stored?: readonly Versioned[];
}
/** What an attempt of {@link ResourceStore.retryOnStoreConflict} returns to be run again. */
const retryNow: unique symbol = Symbol('retry now');

export class ResourceStore {
  readonly groupResource: GroupResource;
  readonly apiVersion: string;

  constructor(
    readonly info: ResourceInfo,
    readonly location: StorageLocation,
    readonly strategy: Strategy,
    private readonly deps: ResourceStoreDeps,
  ) {
    this.groupResource = { group: info.group, resource: info.resource };
    this.apiVersion = apiVersionOf(info.group, info.version);
    this.storedAs = deps.conversion?.storedAs ?? { apiVersion: this.apiVersion, kind: info.kind };
  }

  /** The apiVersion and kind objects are stored with. */
  private readonly storedAs: { apiVersion: string; kind: string };

  private mergeTypeCache?: MergeType;
  private readonly fieldManagers = new Map<string, FieldManager>();

  /** kube's FieldManager of an endpoint (the resource itself, or a subresource). */
  private fieldManager(subresource: string): FieldManager {
    let fm = this.fieldManagers.get(subresource);
    if (!fm) {
      this.mergeTypeCache ??= mergeTypeFor(this.info);
      fm = new FieldManager({
        type: this.mergeTypeCache,
        group: this.info.group,
        version: this.info.version,
        kind: this.info.kind,
        subresource,
        filter: this.resetFieldsFilter(subresource),
        emptyObject: emptyObjectFor(this.info),
      });
      this.fieldManagers.set(subresource, fm);
    }
    return fm;
  }

  /**
   * kube's reset fields: what a write through an endpoint may not own. The
   * resource of a kind with a status subresource leaves `status` alone (and
   * the strategy's resetFields); the status subresource, and those written
   * like it, own nothing but `status`.
   */
  private resetFieldsFilter(subresource: string): ((set: FieldSet) => FieldSet) | undefined {
    const sub = this.strategy.subresourceStrategies?.[subresource];
    if (subresource === 'status' || sub) {
      const reset = sub?.resetStatusFields;
      if (!reset?.length) return (set) => set.onlyUnder(statusField);
      const fields = FieldSet.of(...reset.map((field): FieldPath => [{ field: 'status' }, { field }]));
      return (set) => set.onlyUnder(statusField).recursiveDifference(fields);
    }
    if (subresource !== '') return undefined;
    const reset = [...(this.strategy.hasStatusSubresource ? ['status'] : []), ...(this.strategy.resetFields ?? [])];
    if (reset.length === 0) return undefined;
    const fields = FieldSet.of(...reset.map((field): FieldPath => [{ field }]));
    return (set) => set.recursiveDifference(fields);
  }

  /**
   * Sets (or clears) metadata.managedFields to the update's record. Like kube's
   * UpdateNoErrors, a value the merge rules cannot read (a list-map item without
   * its keys, which validation refuses next) keeps the live object's entries.
   */
  private recordUpdate(live: KubeObject | undefined, obj: KubeObject, opts: WriteOptions, subresource: string, requested: unknown): void {
    let entries: unknown;
    try {
      entries = this.fieldManager(subresource).update(live, obj, managerName(opts), requested);
    } catch {
      entries = live?.metadata.managedFields;
    }
    if (entries) obj.metadata.managedFields = entries as KubeObject['metadata']['managedFields'];
    else delete obj.metadata.managedFields;
  }

  /** True when this resource serves its objects as stored (no conversion): `toExternal` gives back the same objects. */
  get servesAsStored(): boolean {
    return !this.deps.conversion;
  }

  /** Stored objects in the shape this resource serves (the same objects when no conversion applies). */
  toExternal(objs: KubeObject[]): MaybePromise<KubeObject[]> {
    return this.deps.conversion && objs.length ? this.deps.conversion.fromStorage(objs) : objs;
  }

  private async external(obj: KubeObject): Promise<KubeObject> {
    return this.deps.conversion ? (await this.deps.conversion.fromStorage([obj]))[0] : obj;
  }

  private async internal(obj: KubeObject): Promise<KubeObject> {
    return this.deps.conversion ? (await this.deps.conversion.toStorage([obj]))[0] : obj;
  }

  private async externalResult(result: WriteResult): Promise<WriteResult> {
    return this.deps.conversion ? { ...result, object: await this.external(result.object as KubeObject) } : result;
  }

  /** The MVCC store this resource lives in. */
  get mvcc(): MvccStore {
    return this.deps.store;
  }

  private get store(): MvccStore {
    return this.deps.store;
  }

  key(namespace: string, name: string): string {
    return objectKey(this.location, this.info, namespace, name);
  }

  // ---------------------------------------------------------------- reads

  async get(namespace: string, name: string): Promise<KubeObject> {
    const v = this.store.get(this.key(namespace, name));
    if (!v) throw notFound(this.groupResource, name);
    // A write still on its way to the disk is not shown before it is there (and acknowledged).
    await this.store.durable(v.rev);
    return this.external(v.value);
  }

  /** Lists with selectors and pagination over one consistent snapshot. */
  async list(namespace: string, opts: ListOptions): Promise<ObjectList> {
    const filter = compileListFilter(this.info, opts);
    let atRevision: number | undefined;
    let after: string | undefined;
    if (opts.continue) {
      if (opts.resourceVersion) throw badRequest('specifying resource version is not allowed when using continue');
      const pos = decodeContinue(opts.continue);
      // rev -1 (the token of an expired-continue Status) continues at the latest revision.
      atRevision = pos.rev > 0 ? pos.rev : undefined;
      after = pos.after;
    } else {
      atRevision = this.listRevision(opts);
    }
    let snapshot: StoreRange;
    try {
      snapshot = this.store.range(listPrefix(this.location, this.info, namespace), atRevision, after);
    } catch (e) {
      if (e instanceof StoreError && e.code === 'Expired') {
        if (opts.continue) {
          const err = new StatusError(
            410,
            'Expired',
            'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
          );
          // As the message promises, and as kube's etcd3 store does (handleCompactedErrorForPaging):
          // the Status's ListMeta carries a token that continues after the same key at the latest revision.
          (err.status as { metadata: Record<string, unknown> }).metadata = { continue: encodeContinue({ rev: -1, after: after! }) };
          throw err;
        }
        throw new StatusError(410, 'Expired', `The resourceVersion for the provided list is too old.`);
      }
      throw e;
    }
    const { items: page, more, remaining } = paginate(snapshot, filter, opts.limit);
    await this.store.durable(snapshot.revision);
    const metadata: Record<string, unknown> = { resourceVersion: String(snapshot.revision) };
    if (more) {
      metadata.continue = encodeContinue({ rev: snapshot.revision, after: page[page.length - 1].key });
      if (remaining !== undefined) metadata.remainingItemCount = remaining;
    }
    const head = { apiVersion: this.apiVersion, kind: this.info.listKind, metadata };
    if (!this.servesAsStored) return { ...head, items: await this.toExternal(page.map((v) => v.value)) };
    let items: KubeObject[] | undefined;
    const list = {
      ...head,
      get items(): KubeObject[] {
        return (items ??= page.map((v) => v.value));
      },
    };
    // Not enumerable: a caller that sends the list with JSON.stringify (deletecollection) sends kube's fields only.
    return Object.defineProperty(list, 'stored', { value: page, enumerable: false });
  }

  /** The revision a list without `continue` reads at, per resourceVersion and resourceVersionMatch. */
  private listRevision(opts: ListOptions): number | undefined {
    const rv = opts.resourceVersion;
    const match = opts.resourceVersionMatch;
    if (match && match !== 'Exact' && match !== 'NotOlderThan') {
      throw badRequest(`resourceVersionMatch: Unsupported value: "${match}": supported values: "Exact", "NotOlderThan"`);
    }
    if (rv === undefined || rv === '') {
      if (match) throw badRequest('resourceVersionMatch is forbidden unless resourceVersion is provided');
      return undefined;
    }
    const n = parseResourceVersion(rv);
    if (n === 0) {
      if (match === 'Exact') throw badRequest('resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
      return undefined;
    }
    if (n > this.store.revision) throw tooLargeResourceVersion(n, this.store.revision);
    return match === 'Exact' ? n : undefined;
  }

  // ---------------------------------------------------------------- writes

  async create(namespace: string, body: KubeObject, opts: WriteOptions, requestName = ''): Promise<WriteResult> {
    return this.createObject(namespace, body, opts, { mode: 'compute', requested: requestedManagedFieldsOf(body, opts) }, requestName);
  }

  /**
   * Stores a bootstrap object of a new store as the full create path stored
   * it when bootstrap-objects.json was made (defaulted, prepared, with its
   * managedFields and Go's encoding): only the uid, the creation time and the
   * time of each managedFields entry are this write's. Nothing can have
   * configured admission on a new store, and the server is in system:masters,
   * so the full path would store the same (the bootstrap test compares both
   * byte for byte). `obj` is kept as it is (frozen): a fresh copy. Throws
   * StoreError KeyExists when the key is taken.
   */
  createPrecomputed(obj: KubeObject, time: string): Versioned {
    const meta = obj.metadata;
    meta.uid = randomUUID();
    meta.creationTimestamp = time;
    // metav1.Time, to the second, as FieldManager writes it: the same second as the creation.
    for (const entry of meta.managedFields ?? []) entry.time = time;
    shareManagedFields(meta.managedFields);
    return this.store.create(this.key(meta.namespace ?? '', meta.name!), obj);
  }

  /**
   * Stores a later version of a bootstrap object of a new store, as one of
   * the server's own controllers wrote it when bootstrap-objects.json was made
   * (a FlowSchema's Dangling condition): the uid and
   * creation time are the stored object's, every managedFields entry's time is
   * `time`. `obj` is kept as it is (frozen): a fresh copy. Throws StoreError
   * NotFound when the object is not stored.
   */
  updatePrecomputed(obj: KubeObject, time: string): Versioned {
    const meta = obj.metadata;
    const key = this.key(meta.namespace ?? '', meta.name!);
    const current = this.store.get(key);
    if (!current) throw new StoreError('NotFound', `key ${key} not found`);
    meta.uid = current.value.metadata.uid;
    meta.creationTimestamp = current.value.metadata.creationTimestamp;
    for (const entry of meta.managedFields ?? []) entry.time = time;
    shareManagedFields(meta.managedFields);
    return this.store.update(key, current.rev, obj);
  }

  /** `requestName` is the name in the request path: `''` for a POST, the object's for a PUT or an apply that creates. */
  private createObject(namespace: string, body: KubeObject, opts: WriteOptions, managed: ManagedFieldsMode, requestName: string): Promise<WriteResult> {
    if (!this.strategy.beginCreate) return this.createHolding(namespace, body, opts, managed, requestName, holdsNothing);
    return holdingUntilDone((hold) => this.createHolding(namespace, body, opts, managed, requestName, hold));
  }

  private async createHolding(namespace: string, body: KubeObject, opts: WriteOptions, managed: ManagedFieldsMode, requestName: string, hold: Hold): Promise<WriteResult> {
    const decoded = this.decode(body, opts.fieldValidation, 'body', undefined, opts.ownsBody && managed.mode === 'compute');
    let obj = decoded.object;
    const warnings = [...decoded.warnings];
    const preparing = this.strategy.prepareValidation?.(obj);
    if (preparing) await preparing;
    this.checkNamespaceMatches(obj, namespace);
    if (this.info.namespaced) obj.metadata.namespace = namespace;
    else delete obj.metadata.namespace;
    // kube's NamespaceLifecycle admission runs before the object is prepared and validated.
    this.checkNamespaceActive(obj);
    this.strategy.applyDefaults(obj);
    // As in kube, managedFields record the decoded and defaulted object, before the admission chain
    // (its built-in plugins, ServiceAccount, DefaultTolerationSeconds, Priority, DefaultStorageClass,
    // and then the webhooks) changes it: what admission adds belongs to no manager.
    if (managed.mode === 'compute') this.recordUpdate(undefined, obj, opts, '', managed.requested);
    this.strategy.admitCreate(obj);
    // Mutating webhooks see the object before the server fills in uid, timestamps and a generated name.
    const mutated = await this.admitMutating('CREATE', obj, undefined, '', opts);
    obj = mutated.object ?? obj;
    warnings.push(...mutated.warnings);
    this.authorizeWrite(opts, namespace, requestName, obj);
    fillCreateMeta(obj, this.strategy.tracksGeneration);
    const wantsGeneratedName = !obj.metadata.name && !!obj.metadata.generateName;
    if (wantsGeneratedName) obj.metadata.name = generateName(obj.metadata.generateName!);
    // kube's BeginCreate: held across validation and the validating webhooks.
    hold(this.strategy.beginCreate?.(obj, !!opts.dryRun));
    this.strategy.prepareForCreate(obj, opts.user ?? serverUser);
    this.throwIfInvalid(obj, [
      ...validateObjectMeta(obj.metadata, { namespaced: this.info.namespaced, nameValidator: this.nameValidator() }),
      ...(await this.strategy.validate(obj)),
    ]);
    this.deps.encoder?.(obj);
    warnings.push(...(await this.admitValidating('CREATE', obj, undefined, '', opts)));
    await this.deps.quota?.admit({ operation: 'CREATE', resource: this.groupResource, namespace, object: obj, dryRun: !!opts.dryRun });
    if (opts.dryRun) return { object: obj, warnings, created: true };
    const toStore = await this.internal(obj);
    shareManagedFields(toStore.metadata.managedFields);
    for (let attempt = 0; ; attempt++) {
      try {
        const stored = this.store.create(this.key(namespace, toStore.metadata.name!), toStore);
        await this.store.durable(stored.rev);
        return this.externalResult({ object: stored.value, warnings, created: true });
      } catch (e) {
        if (!(e instanceof StoreError && e.code === 'KeyExists')) throw e;
        if (!wantsGeneratedName || attempt >= maxGenerateNameAttempts) throw alreadyExists(this.groupResource, toStore.metadata.name!);
        toStore.metadata.name = generateName(toStore.metadata.generateName!);
      }
    }
  }

  /** PUT: replaces the object (or, for `status`, only its status). */
  async update(namespace: string, name: string, body: KubeObject, opts: WriteOptions, subresource = ''): Promise<WriteResult> {
    // Read before decoding, which may change an owned body in place; a subresource write ignores them.
    const requested = subresource === '' ? requestedManagedFieldsOf(body, opts) : undefined;
    const { object: decoded, warnings } = this.decode(body, opts.fieldValidation, 'body', this.store.get(this.key(namespace, name))?.value, opts.ownsBody);
    this.checkNamespaceMatches(decoded, namespace);
    if (decoded.metadata.name !== name) {
      throw badRequest(`the name of the object (${decoded.metadata.name ?? ''}) does not match the name on the URL (${name})`);
    }
    // kube reads resourceVersion "0" as it reads an empty one: an unconditional update (Versioner's 0).
    const given = decoded.metadata.resourceVersion;
    const rv = given === '0' ? undefined : given;
    if (rv) parseResourceVersion(String(rv), null);
    // An unconditional update (no resourceVersion) is retried when a concurrent write intervenes.
    return this.retryOnStoreConflict(name, { retry: !rv }, async (attempt) => {
      const obj = attempt === 0 ? decoded : deepCopy(decoded);
      const current = this.store.get(this.key(namespace, name));
      if (!current) {
        if (this.strategy.allowCreateOnUpdate && subresource === '') {
          if (rv) throw notFound(this.groupResource, name);
          return this.create(namespace, obj, { ...opts, fieldValidation: 'Ignore' }, name);
        }
        throw notFound(this.groupResource, name);
      }
      if (rv && rv !== String(current.rev)) throw conflict(this.groupResource, name, objectModifiedMessage);
      if (!rv && !this.strategy.allowUnconditionalUpdate) throw resourceVersionRequired(this.groupResource, name);
      const result = await this.applyUpdate(current, obj, opts, subresource, { mode: 'compute', requested });
      return { ...result, warnings: [...warnings, ...result.warnings] };
    });
  }

  /** PATCH: applies the patch to the current object, retrying when a concurrent write intervenes. */
  async patch(namespace: string, name: string, patchType: string, body: Buffer, opts: WriteOptions, subresource = ''): Promise<WriteResult> {
    if (patchType === applyPatchType) return this.apply(namespace, name, parseApplyPatch(body, opts), opts, subresource);
    return this.retryOnStoreConflict(name, {}, async () => {
      const current = this.store.get(this.key(namespace, name));
      if (!current) throw notFound(this.groupResource, name);
      const served = deepCopy(await this.external(current.value));
      const patched = applyPatchBounded(() => this.deps.patcher(served, patchType, body));
      if (!isJsonObject(patched) || !isJsonObject(patched.metadata)) throw badRequest('the patch produced an object without metadata');
      let decoded: ReturnType<ResourceStore['decode']>;
      try {
        decoded = this.decode(patched, opts.fieldValidation, 'patch', current.value);
      } catch (e) {
        throw strictPatchError(e, patchType, body, patched) ?? e;
      }
      const { object: obj, warnings } = decoded;
      if (obj.metadata.name !== name) throw badRequest(`the name of the object (${obj.metadata.name ?? ''}) does not match the name on the URL (${name})`);
      const rv = obj.metadata.resourceVersion;
      if (rv && rv !== String(current.rev)) {
        // A resourceVersion in the patch itself is a precondition.
        throw conflict(this.groupResource, name, objectModifiedMessage);
      }
      const result = await this.applyUpdate(current, obj, opts, subresource, { mode: 'compute', requested: requestedManagedFields(patched) });
      return { ...result, warnings: [...warnings, ...result.warnings] };
    });
  }

  /**
   * Server-side apply (PATCH with application/apply-patch+yaml): merges the
   * configuration into the object by the schema's merge rules, removes what the
   * manager applied before and dropped, unless another manager owns it, and
   * answers 409 for fields another manager owns unless forced. An apply to a
   * missing object creates it (not through a subresource).
   */
  private async apply(namespace: string, name: string, config: Record<string, unknown>, opts: WriteOptions, subresource: string): Promise<WriteResult> {
    const manager = opts.fieldManager!;
    return this.retryOnStoreConflict(name, {}, async (attempt) => {
      const current = this.store.get(this.key(namespace, name));
      if (!current) {
        if (subresource) throw notFound(this.groupResource, name);
        const { object } = this.fieldManager('').apply(undefined, config, manager, opts.force ?? false);
        checkAppliedName(object, name);
        try {
          return await this.createObject(namespace, object, { ...opts, fieldValidation: 'Ignore' }, { mode: 'keep' }, name);
        } catch (e) {
          // Created meanwhile: apply to what is there now.
          if (e instanceof StatusError && e.reason === 'AlreadyExists' && attempt < maxPatchConflictRetries) return retryNow;
          throw e;
        }
      }
      const served = await this.external(current.value);
      const { object: merged } = this.fieldManager(subresource).apply(served, config, manager, opts.force ?? false);
      checkAppliedName(merged, name);
      this.checkNamespaceMatches(merged, namespace);
      // The configuration was checked against the schema; what remains is decoding's type checks and pruning.
      const { object: obj, warnings } = this.decode(merged, 'Ignore', 'patch');
      const rv = obj.metadata.resourceVersion;
      if (rv && rv !== String(current.rev)) throw conflict(this.groupResource, name, objectModifiedMessage);
      const result = await this.applyUpdate(current, obj, opts, subresource, { mode: 'keep' });
      return { ...result, warnings: [...warnings, ...result.warnings] };
    });
  }

  /**
   * Runs one read-modify-write of `name` again when a concurrent write got in
   * between its read and its write (a store conflict), up to
   * maxPatchConflictRetries times (none when `retry` is false: a request that
   * named a resourceVersion); then answers kube's 409 "the object has been
   * modified". `attempt` may also ask for another try by returning `retryNow`
   * (apply, when the object it was creating appeared meanwhile).
   */
  private async retryOnStoreConflict<R>(name: string, { retry = true }: { retry?: boolean }, attempt: (n: number) => Promise<R | typeof retryNow>): Promise<R> {
    for (let n = 0; ; n++) {
      let result: R | typeof retryNow;
      try {
        result = await attempt(n);
      } catch (e) {
        if (isStoreConflict(e) && retry && n < maxPatchConflictRetries) continue;
        if (isStoreConflict(e)) throw conflict(this.groupResource, name, objectModifiedMessage);
        throw e;
      }
      if (result !== retryNow) return result;
    }
  }

  /**
   * The shared tail of update and patch: keeps what the endpoint may not change,
   * defaults, validates, bumps generation, skips no-op writes, and completes a
   * deletion once the last finalizer is gone.
   */
  private applyUpdate(current: Versioned, incoming: KubeObject, opts: WriteOptions, subresource: string, managed: ManagedFieldsMode): Promise<WriteResult> {
    if (!this.strategy.beginUpdate || subresource !== '') return this.updateHolding(current, incoming, opts, subresource, managed, holdsNothing);
    return holdingUntilDone((hold) => this.updateHolding(current, incoming, opts, subresource, managed, hold));
  }

  private async updateHolding(current: Versioned, incoming: KubeObject, opts: WriteOptions, subresource: string, managed: ManagedFieldsMode, hold: Hold): Promise<WriteResult> {
    const dryRun = opts.dryRun;
    const preparing = this.strategy.prepareValidation?.(incoming);
    if (preparing) await preparing;
    // The strategy sees both objects in the served shape.
    const old = await this.external(current.value);
    const warnings: string[] = [];
    if (subresource === '') {
      incoming.apiVersion = this.apiVersion;
      incoming.kind = this.info.kind;
      if (this.strategy.hasStatusSubresource) {
        if (old.status === undefined) delete incoming.status;
        else incoming.status = deepCopy(old.status);
      }
      this.strategy.applyDefaults(incoming);
    } else if (subresource === 'status') {
      // kube defaults every decoded body; a status write is where a node's allocatable is defaulted.
      this.strategy.applyDefaults(incoming);
    }
    // managedFields record the change this endpoint makes, before webhooks change it (as in kube).
    let managedFields = incoming.metadata.managedFields;
    if (managed.mode === 'compute') {
      const tracked = subresource === '' ? incoming : trackedThroughSubresource(old, incoming, subresource);
      this.recordUpdate(old, tracked, opts, subresource, subresource === '' ? managed.requested : undefined);
      managedFields = tracked.metadata.managedFields;
      if (subresource === '') incoming.metadata.managedFields = managedFields;
    }
    if (subresource !== 'finalize') {
      const mutated = await this.admitMutating('UPDATE', incoming, old, subresource, opts);
      if (mutated.object) incoming = mutated.object;
      warnings.push(...mutated.warnings);
    }
    if (subresource === '') this.authorizeWrite(opts, old.metadata.namespace ?? '', old.metadata.name ?? '', incoming, old);
    let obj: KubeObject;
    if (subresource === '') {
      obj = incoming;
      // kube's BeginUpdate: held across validation and the validating webhooks.
      hold(this.strategy.beginUpdate?.(obj, old, !!dryRun));
      this.strategy.prepareForUpdate(obj, old);
    } else {
      obj = this.strategy.subresourceStrategies?.[subresource]?.prepareForUpdate(incoming, old) ?? narrowToSubresource(old, incoming, subresource);
    }
    if (subresource !== '') {
      if (managedFields === undefined) delete obj.metadata.managedFields;
      else obj.metadata.managedFields = managedFields;
    }
    const m = obj.metadata;
    const om = old.metadata;
    m.uid = om.uid;
    m.creationTimestamp = om.creationTimestamp;
    if (this.info.namespaced) m.namespace = om.namespace;
    else delete m.namespace;
    m.deletionTimestamp = om.deletionTimestamp;
    m.deletionGracePeriodSeconds = om.deletionGracePeriodSeconds;
    if (!om.deletionTimestamp) delete m.deletionTimestamp;
    if (om.deletionGracePeriodSeconds === undefined) delete m.deletionGracePeriodSeconds;
    // Before comparing with the stored object, which has them: decoding dropped the nulls among them.
    // What the write keeps of the stored object itself (a status write: all but status) was encoded then.
    this.deps.encoder?.(obj, this.servesAsStored ? old : undefined);
    if (this.strategy.tracksGeneration) {
      m.generation = (om.generation ?? 1) + (specChanged(obj, old) ? 1 : 0);
    } else delete m.generation;
    m.resourceVersion = String(current.rev);
    const errs = [...validateObjectMetaUpdate(m, om), ...(await this.validateUpdate(obj, old, subresource))];
    if (om.deletionTimestamp) {
      const added = (m.finalizers ?? []).filter((f) => !(om.finalizers ?? []).includes(f));
      if (added.length) errs.push({ type: 'FieldValueForbidden', field: 'metadata.finalizers', hasValue: false, detail: `no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}` });
    }
    this.throwIfInvalid(obj, errs);
    // Validating webhooks run on no-op updates too, as in kube.
    if (subresource !== 'finalize') warnings.push(...(await this.admitValidating('UPDATE', obj, old, subresource, opts)));
    if (sameIgnoringVersion(obj, old)) return { object: old, warnings, created: false };
    if (subresource === '') {
      await this.deps.quota?.admit({ operation: 'UPDATE', resource: this.groupResource, namespace: om.namespace ?? '', object: obj, old, dryRun: !!dryRun });
    }
    if (m.deletionTimestamp && this.finalizersOf(obj).length === 0) {
      if (dryRun) return { object: obj, warnings, created: false };
      const gone = this.store.delete(current.key, current.rev);
      await this.store.durable(gone.rev);
      return this.externalResult({ object: gone.value, warnings, created: false });
    }
    if (dryRun) return { object: obj, warnings, created: false };
    const toStore = await this.internal(obj);
    shareManagedFields(toStore.metadata.managedFields);
    const stored = this.store.update(current.key, current.rev, toStore);
    await this.store.durable(stored.rev);
    return this.externalResult({ object: stored.value, warnings, created: false });
  }

  /**
   * DELETE: removes the object, or marks it for deletion while finalizers remain
   * (adding foregroundDeletion or orphan for those propagation policies).
   */
  async delete(namespace: string, name: string, opts: DeleteOptions): Promise<DeleteResult> {
    return this.retryOnStoreConflict(name, {}, () => this.deleteOnce(namespace, name, opts));
  }

  private async deleteOnce(namespace: string, name: string, opts: DeleteOptions): Promise<DeleteResult> {
    this.strategy.beforeDelete?.(name);
    const current = this.store.get(this.key(namespace, name));
    if (!current) throw notFound(this.groupResource, name);
    const meta = current.value.metadata;
    const pre = opts.preconditions;
    if (pre?.uid !== undefined && pre.uid !== meta.uid) {
      throw conflict(this.groupResource, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid}`);
    }
    if (pre?.resourceVersion !== undefined && pre.resourceVersion !== meta.resourceVersion) {
      throw conflict(
        this.groupResource,
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion}`,
      );
    }
    const policy = opts.propagationPolicy ?? (opts.orphanDependents === true ? 'Orphan' : opts.orphanDependents === false ? 'Background' : 'Background');
    const finalizers = [...(meta.finalizers ?? [])];
    const addFinalizer = policy === 'Foreground' ? 'foregroundDeletion' : policy === 'Orphan' ? 'orphan' : undefined;
    if (addFinalizer && !finalizers.includes(addFinalizer)) {
      // Switching policy replaces the other GC finalizer, as kube does.
      const other = addFinalizer === 'orphan' ? 'foregroundDeletion' : 'orphan';
      const i = finalizers.indexOf(other);
      if (i >= 0) finalizers.splice(i, 1);
      finalizers.push(addFinalizer);
    }
    const pending = [...finalizers, ...this.specFinalizers(current.value)];
    if (pending.length > 0 && meta.deletionTimestamp && finalizers.length === (meta.finalizers ?? []).length) {
      return { object: await this.external(current.value), deleted: false, warnings: [] };
    }
    const graceful = this.gracefulDeletion(current.value, opts.gracePeriodSeconds);
    // A graceful deletion under way is left as it is (finalizers cannot change then either).
    if (graceful === 'pending') return { object: await this.external(current.value), deleted: false, warnings: [] };
    const oldObject = await this.external(current.value);
    const deleteOpts = {
      kind: 'DeleteOptions' as const,
      dryRun: opts.dryRun ? ['All'] : undefined,
      propagationPolicy: opts.propagationPolicy,
      gracePeriodSeconds: opts.gracePeriodSeconds,
      preconditions: opts.preconditions,
      orphanDependents: opts.orphanDependents,
    };
    const warnings = [
      ...(await this.admitMutating('DELETE', undefined, oldObject, '', opts, deleteOpts)).warnings,
      ...(await this.admitValidating('DELETE', undefined, oldObject, '', opts, deleteOpts)),
    ];
    if (pending.length > 0 || graceful !== 'now') {
      const marked = deepCopy(current.value);
      if (finalizers.length > 0 || marked.metadata.finalizers) marked.metadata.finalizers = finalizers;
      if (graceful !== 'now') {
        marked.metadata.deletionTimestamp = graceful.deletionTimestamp;
        marked.metadata.deletionGracePeriodSeconds = graceful.seconds;
      }
      marked.metadata.deletionTimestamp ??= nowTimestamp();
      marked.metadata.deletionGracePeriodSeconds ??= 0;
      this.strategy.prepareForDeletion?.(marked);
      if (opts.dryRun) return { object: await this.external(marked), deleted: false, warnings };
      const stored = this.store.update(current.key, current.rev, marked);
      await this.store.durable(stored.rev);
      return { object: await this.external(stored.value), deleted: false, warnings };
    }
    if (opts.dryRun) return { object: await this.deletedAnswer(current.value), deleted: true, warnings };
    const gone = this.store.delete(current.key, current.rev);
    await this.store.durable(gone.rev);
    return { object: await this.deletedAnswer(gone.value), deleted: true, warnings };
  }

  /**
   * kube's rest.BeforeDelete for kinds with a grace period (pods): `now` deletes
   * at once (or waits for finalizers only); `pending` leaves a graceful deletion
   * under way as it is (a request may only shorten its grace period); otherwise
   * the deletion's deadline and grace period to store.
   */
  private gracefulDeletion(obj: KubeObject, requested: number | undefined): 'now' | 'pending' | { deletionTimestamp: string; seconds: number } {
    if (!this.strategy.gracePeriod) return 'now';
    const asked = requested !== undefined && requested < 0 ? 1 : requested;
    const meta = obj.metadata;
    if (meta.deletionTimestamp) {
      const current = meta.deletionGracePeriodSeconds;
      if (current === undefined || current <= 0) return 'now';
      if (asked === undefined || asked >= current) return 'pending';
      if (asked === 0) return 'now';
      const deadline = Date.parse(meta.deletionTimestamp) + (asked - current) * 1000;
      return { deletionTimestamp: nowTimestamp(new Date(deadline)), seconds: asked };
    }
    const seconds = this.strategy.gracePeriod(obj, asked);
    return seconds > 0 ? { deletionTimestamp: nowTimestamp(new Date(Date.now() + seconds * 1000)), seconds } : 'now';
  }

  /** DELETE on the collection: deletes every object the selectors match. */
  /**
   * Deletes what a list with `listOpts` finds and answers that list, as kube's
   * generic store does: the items as they were listed (before their deletion),
   * at the list's resourceVersion, with its continue token when a limit was set.
   */
  async deleteCollection(namespace: string, listOpts: ListOptions, opts: DeleteOptions): Promise<ObjectList> {
    const list = await this.list(namespace, listOpts);
    for (const item of list.items) {
      try {
        await this.delete(item.metadata.namespace ?? '', item.metadata.name!, opts);
      } catch (e) {
        if (!(e instanceof StatusError && e.code === 404)) throw e;
      }
    }
    return list;
  }

  private async deletedAnswer(obj: KubeObject): Promise<KubeObject | Status> {
    return this.strategy.returnsDeletedObject ? this.external(obj) : successStatus(this.groupResource, obj.metadata.name ?? '', obj.metadata.uid);
  }

  /** Finalizers that block deletion: metadata.finalizers, and spec.finalizers for namespaces. */
  finalizersOf(obj: KubeObject): string[] {
    return [...(obj.metadata.finalizers ?? []), ...this.specFinalizers(obj)];
  }

  private specFinalizers(obj: KubeObject): string[] {
    return this.strategy.specFinalizers?.(obj) ?? [];
  }

  // ---------------------------------------------------------------- admission

  private admissionAttributes(
    operation: 'CREATE' | 'UPDATE' | 'DELETE',
    object: KubeObject | undefined,
    oldObject: KubeObject | undefined,
    subresource: string,
    opts: { dryRun: boolean; user?: UserInfo; fieldManager?: string; fieldValidation?: string },
    options?: OperationOptionsObject,
  ): AdmissionAttributes {
    const subject = object ?? oldObject!;
    const meta = subject.metadata;
    return {
      kind: { group: this.info.group, version: this.info.version, kind: this.info.kind },
      resource: { group: this.info.group, version: this.info.version, resource: this.info.resource },
      subResource: subresource,
      // Under generateName the name is still empty when webhooks see a create, as in kube.
      name: meta.name ?? '',
      namespace: this.info.namespaced ? (meta.namespace ?? '') : '',
      operation,
      userInfo: { ...toReviewUserInfo(opts.user ?? serverUser), username: (opts.user ?? serverUser).username },
      object,
      oldObject,
      dryRun: opts.dryRun,
      options: options ?? {
        kind: operation === 'CREATE' ? 'CreateOptions' : 'UpdateOptions',
        dryRun: opts.dryRun ? ['All'] : undefined,
        fieldManager: opts.fieldManager,
        fieldValidation: opts.fieldValidation,
      },
    };
  }

  /** The strategy's authorizeWrite, for the request's user (the server's own writes are in system:masters). */
  private authorizeWrite(opts: WriteOptions, namespace: string, requestName: string, object: KubeObject, old?: KubeObject): void {
    const err = this.strategy.authorizeWrite?.({ user: opts.user ?? serverUser, namespace: this.info.namespaced ? namespace : '', requestName, object, old });
    if (err) throw err;
  }

  /** Mutating webhooks; a mutated custom resource is pruned again, as kube does. */
  private async admitMutating(
    operation: 'CREATE' | 'UPDATE' | 'DELETE',
    object: KubeObject | undefined,
    oldObject: KubeObject | undefined,
    subresource: string,
    opts: WriteOptions | DeleteOptions,
    options?: OperationOptionsObject,
  ): Promise<{ object?: KubeObject; warnings: string[] }> {
    const chain = this.deps.admission;
    if (!chain || ('skipAdmission' in opts && opts.skipAdmission) || chain.mutatingIdle()) return { warnings: [] };
    const result = await chain.admit(this.admissionAttributes(operation, object, oldObject, subresource, opts, options), {
      applyDefaults: (o) => this.strategy.applyDefaults(o),
    });
    if (!result.patched || !result.object) return { warnings: result.warnings };
    return { object: this.deps.decoder(result.object, 'Ignore').object, warnings: result.warnings };
  }

  private async admitValidating(
    operation: 'CREATE' | 'UPDATE' | 'DELETE',
    object: KubeObject | undefined,
    oldObject: KubeObject | undefined,
    subresource: string,
    opts: WriteOptions | DeleteOptions,
    options?: OperationOptionsObject,
  ): Promise<string[]> {
    const chain = this.deps.admission;
    if (!chain || ('skipAdmission' in opts && opts.skipAdmission) || chain.validatingIdle()) return [];
    return (await chain.validate(this.admissionAttributes(operation, object, oldObject, subresource, opts, options))).warnings;
  }

  private scaleTracking?: ScaleTracking;

  /**
   * A write through the scale subresource (PUT, patch or apply of its
   * autoscaling/v1 Scale), as kube's scale storage makes it: tracked on the
   * Scale, admitted as the Scale on `<resource>/scale`, then stored as the
   * object with the new replicas and its managedFields mapped back. Made again
   * when a concurrent write intervenes, unless the Scale named a resourceVersion.
   */
  async writeScale(namespace: string, name: string, write: ScaleWrite, opts: WriteOptions): Promise<{ scale: KubeObject; warnings: string[] }> {
    const tracking = (this.scaleTracking ??= new ScaleTracking(this.info, this.apiVersion));
    return this.retryOnStoreConflict(name, {}, async () => {
      const current = this.store.get(this.key(namespace, name));
      if (!current) throw notFound(this.groupResource, name);
      const warnings: string[] = [];
      const admit = async (oldScale: KubeObject, newScale: KubeObject): Promise<KubeObject> => {
        const admitted = await this.admitScale(oldScale, newScale, opts);
        warnings.push(...admitted.warnings);
        return admitted.scale;
      };
      const who = { manager: 'apply' in write ? opts.fieldManager! : managerName(opts), force: opts.force ?? false };
      const { object, requested } = await tracking.write(await this.external(current.value), write, who, admit);
      if ('apply' in write) checkAppliedName(requested, name);
      const rv = object.metadata.resourceVersion;
      if (rv && rv !== String(current.rev)) throw conflict(this.groupResource, name, objectModifiedMessage);
      const result = await this.applyUpdate(current, object, { ...opts, skipAdmission: true }, '', { mode: 'keep' });
      return { scale: tracking.scaleOf(result.object as KubeObject), warnings: [...warnings, ...result.warnings] };
    });
  }

  /**
   * Admission for the scale subresource: webhooks see autoscaling/v1 Scale objects
   * on `<resource>/scale`, as kube sends them; returns the Scale they admitted.
   */
  async admitScale(oldScale: KubeObject, newScale: KubeObject, opts: WriteOptions): Promise<{ scale: KubeObject; warnings: string[] }> {
    const chain = this.deps.admission;
    if (!chain) return { scale: newScale, warnings: [] };
    const attrs = (object: KubeObject): AdmissionAttributes => ({
      ...this.admissionAttributes('UPDATE', object, oldScale, 'scale', opts),
      kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
    });
    const mutated = await chain.admit(attrs(newScale));
    const scale = mutated.object ?? newScale;
    const validated = await chain.validate(attrs(scale));
    return { scale, warnings: [...mutated.warnings, ...validated.warnings] };
  }

  /**
   * Admission for a create on a subresource that takes another kind (the
   * policy/v1 Eviction of `pods/eviction`): webhooks see `object` as `kind` on
   * `<resource>/<subresource>`, named after the object the subresource
   * belongs to. `mutate` runs the mutating webhooks and returns what they
   * made; `validate`, the validating ones. `warnings` gathers what both
   * answered, for the response whether the request succeeds or not.
   */
  subresourceCreateAdmission(namespace: string, name: string, subresource: string, kind: GroupVersionKind, opts: Pick<WriteOptions, 'dryRun' | 'user'>) {
    const chain = this.deps.admission;
    const attrs = (object: KubeObject, dryRun: boolean): AdmissionAttributes => ({
      ...this.admissionAttributes('CREATE', object, undefined, subresource, { ...opts, dryRun }),
      kind,
      name,
      namespace: this.info.namespaced ? namespace : '',
    });
    const warnings: string[] = [];
    return {
      warnings,
      mutate: async (object: KubeObject): Promise<KubeObject> => {
        if (!chain) return object;
        const result = await chain.admit(attrs(object, opts.dryRun));
        warnings.push(...result.warnings);
        return result.object ?? object;
      },
      validate: async (object: KubeObject, dryRun = opts.dryRun): Promise<void> => {
        if (chain) warnings.push(...(await chain.validate(attrs(object, dryRun))).warnings);
      },
    };
  }

  // ---------------------------------------------------------------- helpers

  /** `owned`: the body is the request's own parse (WriteOptions.ownsBody), decoded in place instead of copied. */
  private decode(body: KubeObject, validation: FieldValidation, source: 'body' | 'patch' = 'body', stored?: KubeObject, owned = false): { object: KubeObject; warnings: string[] } {
    if (!isJsonObject(body)) throw badRequest('Object \'Kind\' is missing in \'null\'');
    const expected = this.apiVersion;
    const mismatch = typeMetaMismatch(this.info, body) ?? metadataTypeError(this.info, body.metadata);
    if (mismatch) throw badRequest(mismatch);
    const copy = owned ? body : deepCopy(body);
    copy.apiVersion = expected;
    copy.kind = this.info.kind;
    copy.metadata ??= {};
    const metaError = objectMetaDecodeError(this.info, copy, source);
    if (metaError) throw badRequest(metaError);
    dropEmptyMetadata(copy.metadata);
    const duplicates = validation === 'Ignore' ? undefined : duplicateFieldsOf(body);
    if (duplicates && validation === 'Strict') {
      throw badRequest(cannotBeHandledMessage(this.info.kind, this.info.version, `strict decoding error: ${duplicates.errors.join(', ')}`));
    }
    const decoded = this.deps.decoder(copy, validation, source, this.servesAsStored ? stored : undefined);
    return duplicates ? { ...decoded, warnings: [...duplicates.warnings, ...decoded.warnings] } : decoded;
  }

  private checkNamespaceMatches(obj: KubeObject, namespace: string): void {
    const ns = obj.metadata.namespace;
    if (this.info.namespaced && ns && ns !== namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
  }

  /** Creating in a missing namespace is NotFound; in a terminating one, Forbidden. */
  private checkNamespaceActive(obj: KubeObject): void {
    // Admission names the object by its name, else its generateName, else "Unknown" (admission.NewForbidden).
    if (this.info.namespaced) this.admitCreateIn(obj.metadata.namespace!, obj.metadata.name || obj.metadata.generateName || 'Unknown');
  }

  /**
   * kube's NamespaceLifecycle admission of a create of `name` in `namespace`:
   * 404 for a missing namespace, 403 NamespaceTerminating for one being deleted.
   */
  admitCreateIn(namespace: string, name: string): void {
    const nsObj = this.store.get(`/core/namespaces/${namespace}`);
    if (!nsObj) throw notFound({ group: '', resource: 'namespaces' }, namespace);
    if (nsObj.value.metadata.deletionTimestamp || (nsObj.value.status as { phase?: string } | undefined)?.phase === 'Terminating') {
      throw namespaceTerminating(this.groupResource, name, namespace);
    }
  }

  /** kube's name rule for the kind, from its strategy. */
  private nameValidator(): 'subdomain' | 'label' | 'path-segment' {
    return this.strategy.nameValidator ?? 'subdomain';
  }


  /** The kind's validation of an update through the resource or one of its subresources. */
  private async validateUpdate(obj: KubeObject, old: KubeObject, subresource: string): Promise<FieldError[]> {
    if (subresource === '') return this.strategy.validateUpdate(obj, old);
    return (await this.strategy.subresourceStrategies?.[subresource]?.validateUpdate(obj, old)) ?? [];
  }

  private throwIfInvalid(obj: KubeObject, errs: FieldError[]): void {
    if (errs.length) throw invalid(this.info.group, this.info.kind, obj.metadata.name ?? '', errs);
  }
}

/** Records what a strategy's beginCreate or beginUpdate holds for the write in progress. */
type Hold = (end: EndHold | undefined) => void;

/** The Hold of a kind whose strategy holds nothing: such writes skip holdingUntilDone's extra step (the write path is hot). */
const holdsNothing: Hold = () => undefined;

/**
 * Runs one write attempt and ends what it held once the attempt is over, stored
 * or failed: kube's FinishFunc, deferred in the generic store's Create and Update.
 */
async function holdingUntilDone(write: (hold: Hold) => Promise<WriteResult>): Promise<WriteResult> {
  const ends: EndHold[] = [];
  try {
    return await write((end) => {
      if (end) ends.push(end);
    });
  } finally {
    for (const end of ends) end();
  }
}

/**
 * What a write through a subresource may change: the old object with the new
 * status (`status`), or with the new spec.finalizers (`finalize`). The old
 * object is copied but for the status it loses.
 */
function narrowToSubresource(old: KubeObject, incoming: KubeObject, subresource: string): KubeObject {
  if (subresource === 'finalize') {
    return { ...deepCopy(old), spec: { ...(old.spec as object), finalizers: (incoming.spec as { finalizers?: unknown })?.finalizers } } as KubeObject;
  }
  // The stored object's values are kept as they are, shared with it (stored objects never change in
  // place, and what follows sets only metadata, a copy of its own); status keeps its place among the
  // keys. The new status is copied: the decoder's objects had their nulls deleted, and a stored copy
  // built afresh stays compact.
  return { ...old, metadata: { ...old.metadata }, status: incoming.status === undefined ? undefined : deepCopy(incoming.status) } as KubeObject;
}

/**
 * What managedFields record of a write through a subresource: the object as
 * narrowToSubresource makes it, for reading only. It shares the old object's
 * values instead of copying them (its metadata is its own: the field manager
 * sets managedFields on it), so the comparison with the old object passes over
 * what the subresource leaves as it was without walking it.
 */
function trackedThroughSubresource(old: KubeObject, incoming: KubeObject, subresource: string): KubeObject {
  const tracked = { ...old, metadata: { ...old.metadata } } as KubeObject;
  if (subresource === 'finalize') tracked.spec = { ...(old.spec as object), finalizers: (incoming.spec as { finalizers?: unknown })?.finalizers };
  else tracked.status = incoming.status;
  return tracked;
}

/** metadata.managedFields as the client sent them (before decoding drops an empty list, which asks for a reset). */
function requestedManagedFields(body: unknown): unknown {
  return isJsonObject(body) && isJsonObject(body.metadata) ? body.metadata.managedFields : undefined;
}

/** The managedFields the client sent, as sent: a copy when the body is owned, since decoding it in place may prune them. */
function requestedManagedFieldsOf(body: unknown, opts: WriteOptions): unknown {
  const requested = requestedManagedFields(body);
  return opts.ownsBody && requested !== null && typeof requested === 'object' ? deepCopy(requested) : requested;
}

/**
 * kube's managerOrUserAgent: the fieldManager parameter, else the User-Agent up to
 * its first `/`, printable characters only. The server's own writes (no request
 * behind them) are kube-apiserver's, as its loopback client's are in kube.
 */
function managerName(opts: WriteOptions): string {
  if (opts.fieldManager) return opts.fieldManager;
  if (opts.userAgent === undefined && opts.user === undefined) return 'kube-apiserver';
  const agent = opts.userAgent ?? '';
  let name = managerNames.get(agent);
  if (name === undefined) {
    name = managerOfUserAgent(agent);
    // A client sends the same User-Agent with every write: each is read once (a bounded few, short ones).
    if (agent.length > 512) return name;
    if (managerNames.size >= maxManagerNames) managerNames.delete(managerNames.keys().next().value as string);
    managerNames.set(agent, name);
  }
  return name;
}

const maxManagerNames = 256;
const managerNames = new Map<string, string>();

/** The manager a User-Agent names: up to its first `/`, printable characters only, at most 128 bytes. */
function managerOfUserAgent(agent: string): string {
  let out = '';
  for (const ch of agent.split('/')[0]!) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) continue;
    if (Buffer.byteLength(out + ch) > 128) break;
    out += ch;
  }
  return out;
}


/** kube's checkName after an apply: the merged object must carry the URL's name. */
function checkAppliedName(obj: KubeObject, name: string): void {
  const got = obj.metadata?.name ?? '';
  if (got !== name) throw badRequest(`the name of the object (${got}) does not match the name on the URL (${name})`);
}

/**
 * ObjectMeta's maps and lists are `omitempty` in kube's Go types: an empty one
 * (say, labels after the last label was removed) is not kept or returned.
 */
function dropEmptyMetadata(m: KubeObject['metadata']): void {
  const meta = m as Record<string, unknown>;
  for (const key of ['labels', 'annotations', 'finalizers', 'ownerReferences', 'managedFields']) {
    const v = meta[key];
    if (v === null || (Array.isArray(v) && v.length === 0) || (isJsonObject(v) && Object.keys(v).length === 0)) delete meta[key];
  }
}

/** A delete's answer: the object (still there with finalizers, or gone) or a Status, and webhook warnings. */
export interface DeleteResult {
  object: KubeObject | Status;
  deleted: boolean;
  warnings: string[];
}

function isStoreConflict(e: unknown): boolean {
  return e instanceof StoreError && e.code === 'Conflict';
}

function isStatus(o: unknown): o is Status {
  return isJsonObject(o) && o.kind === 'Status';
}

/**
 * Applies a patch, refusing a result nested deeper than request bodies may be
 * (JSON patch copies can deepen an object without bound): such a result would
 * overflow the stack of whatever handles it next. kube refuses it when decoding
 * the patched object, with a 422.
 */
function applyPatchBounded(apply: () => KubeObject): KubeObject {
  let patched: KubeObject;
  try {
    patched = apply();
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    patched = undefined as unknown as KubeObject;
  }
  if (patched === undefined || jsonDepthExceeds(patched, maxBodyNestingDepth)) {
    throw new StatusError(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
  }
  return patched;
}

/**
 * Parses a resourceVersion as kube's storage does (strconv.ParseUint), with its
 * error text: `resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`
 * for a query parameter (`field`), the bare strconv error for an object's
 * metadata.resourceVersion (`field` null). kube answers these with a 500
 * (kubernetes/kubernetes#101350); they are client mistakes, so we answer 400.
 */
export function parseResourceVersion(rv: string, field: string | null = 'resourceVersion'): number {
  let why: string | undefined;
  if (!/^\d+$/.test(rv)) why = 'invalid syntax';
  else if (BigInt(rv) > 18446744073709551615n) why = 'value out of range';
  if (why === undefined) return Number(rv);
  const strconv = `strconv.ParseUint: parsing ${JSON.stringify(rv)}: ${why}`;
  throw badRequest(field === null ? strconv : `${field}: Invalid value: ${JSON.stringify(rv)}: ${strconv}`);
}

/** A read at a resourceVersion the server has not reached (kube's storage.NewTooLargeResourceVersionError, retry after 1 s). */
export function tooLargeResourceVersion(requested: number, current: number): StatusError {
  return new StatusError(504, 'Timeout', `Timeout: Too large resource version: ${requested}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    retryAfterSeconds: 1,
  });
}

/** One page of the range's matching items, and whether more match beyond it: read up to the first match after the page. */
function paginate(range: StoreRange, filter: ListFilter, limit: number | undefined): { items: Versioned[]; more: boolean; remaining?: number } {
  const page: Versioned[] = [];
  const max = limit && limit > 0 ? limit : Infinity;
  // An item read back from disk stays unparsed (matchesStored scans what a selector reads).
  const matches = (v: Versioned): boolean => filter.matchesStored(v);
  const items = range.items();
  let r = items.next();
  for (; !r.done && page.length < max; r = items.next()) if (matches(r.value)) page.push(r.value);
  if (page.length < max) return { items: page, more: false };
  let more = false;
  for (; !r.done; r = items.next()) {
    if (matches(r.value)) {
      more = true;
      break;
    }
  }
  // kube reports remainingItemCount only when no selector could hide items.
  return { items: page, more, remaining: filter.empty && more ? range.countAfter(page[page.length - 1].key) : undefined };
}

/**
 * kube's Store.Update for a kind that allows no unconditional update: the
 * error names the resource where the kind would go, and the missing version as
 * Go prints a uint64 zero (%#v).
 */
function resourceVersionRequired(resource: { group: string; resource: string }, name: string): StatusError {
  // The value is part of the detail: formatFieldValue would print 0, Go prints 0x0.
  const error: FieldError = { type: 'FieldValueInvalid', field: 'metadata.resourceVersion', hasValue: false, detail: '0x0: must be specified for an update' };
  return invalid(resource.group, resource.resource, name, [error]);
}

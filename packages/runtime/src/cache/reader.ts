/**
 * Reads answered from the shared informer cache (controller-runtime's
 * informer cache and CacheReader): `get` and `list` by kind, with label
 * selectors evaluated on the cached objects and field selectors answered from
 * field indexes. The first read of a kind creates its informer in the shared
 * factory (so controllers and readers share one list and watch per kind) and
 * waits for it to sync.
 *
 * Results are deep copies: a caller may change one and update it without
 * changing what every other reader sees. `unsafeDisableDeepCopy` returns the
 * cached objects themselves, for hot read-only paths; those must never be changed.
 */
import { deepCopy, notFound, parseFieldSelector, parseLabelSelector, SelectorError, type KubeObject, type Status } from '@operant/apimachinery';
import { ApiError } from '../client/api-error.js';
import type { KubeList, LabelSelector, PartialObjectMetadata } from '../client/options.js';
import { labelSelectorString } from '../client/query.js';
import { apiVersionOfKind, collectionPath, objectPath, type Kind } from '../kind.js';
import { fieldIndexFunc, fieldIndexName, namespacedIndexValue, type FieldExtractor } from './field-index.js';
import { namespaceIndex, namespaceIndexFunc } from './indexes.js';
import type { Informer } from './informer.js';
import { keyFor } from './keys.js';
import type { SharedInformerFactory } from './shared-informers.js';

/**
 * Options of {@link CacheReader}.
 *
 * @example
 * ```ts
 * import { CacheReader } from '@operant/runtime/cache';
 *
 * const reader = new CacheReader(informers, { syncTimeoutMs: 30_000 });
 * ```
 */
export interface CacheReaderOptions {
  /** How long a read waits for a new informer's first sync before it fails with a Timeout ApiError; default 2 minutes. */
  syncTimeoutMs?: number;
  /** Return cached objects themselves instead of copies, for every read (see {@link CacheGetOptions.unsafeDisableDeepCopy}); default false. */
  unsafeDisableDeepCopy?: boolean;
}

/**
 * Options of {@link CacheReader.get}.
 *
 * @example
 * ```ts
 * import { Pod } from '@operant/runtime';
 *
 * await mgr.cache.get(Pod, 'web', { namespace: 'default', signal });
 * ```
 */
export interface CacheGetOptions {
  /** Required for namespaced kinds. */
  namespace?: string;
  /** Aborts the wait for the informer's sync. */
  signal?: AbortSignal;
  /** Read from the kind's metadata-only informer: a PartialObjectMetadata. */
  metadataOnly?: boolean;
  /**
   * Return the cached object itself, not a copy: faster, but the object is
   * shared with every reader and handler and must not be changed.
   */
  unsafeDisableDeepCopy?: boolean;
}

/**
 * Options of {@link CacheReader.list}.
 *
 * @example
 * ```ts
 * import { Pod } from '@operant/runtime';
 *
 * await mgr.cache.list(Pod, { namespace: 'default', labelSelector: { app: 'web' }, matchingFields: { 'spec.nodeName': 'node-1' } });
 * ```
 */
export interface CacheListOptions extends Omit<CacheGetOptions, 'namespace'> {
  /** Only this namespace; omitted lists every cached namespace. */
  namespace?: string;
  labelSelector?: LabelSelector;
  /** Exact matches only (`a=b`, several joined by commas), each on a field with an index ({@link CacheReader.indexField}). */
  fieldSelector?: string;
  /** Field values to match exactly, as controller-runtime's `MatchingFields`; combined with `fieldSelector`. */
  matchingFields?: Readonly<Record<string, string>>;
  /** At most this many items (no continue token: the cache has no pages). */
  limit?: number;
  /**
   * Items in no particular order (as controller-runtime's cache lists them),
   * skipping the sort by namespace and name, which costs more than the rest
   * of a large list; with `limit`, which items is then unspecified too.
   */
  unordered?: boolean;
}

/**
 * A read before the cache was started (controller-runtime's ErrCacheNotStarted):
 * start the manager, or the factory with `startAll`, first.
 *
 * @example
 * ```ts
 * import { Pod } from '@operant/runtime';
 * import { CacheNotStartedError } from '@operant/runtime/cache';
 *
 * await mgr.cache.get(Pod, 'web', { namespace: 'default' }).catch((e: unknown) => {
 *   if (e instanceof CacheNotStartedError) console.error(e.message);
 * });
 * ```
 */
export class CacheNotStartedError extends Error {
  constructor() {
    super('the cache is not started, can not read objects');
    this.name = 'CacheNotStartedError';
  }
}

/**
 * A read outside what the cache holds: a namespace other than the one the
 * kind's cache is restricted to (controller-runtime's wording).
 *
 * @example
 * ```ts
 * import { Secret } from '@operant/runtime';
 *
 * // with byKind: [{ kind: Secret, namespace: 'operator-system' }]
 * await mgr.cache.get(Secret, 'x', { namespace: 'default' }); // CacheScopeError: unable to get: default/x because of unknown namespace for the cache
 * ```
 */
export class CacheScopeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CacheScopeError';
  }
}

/**
 * Reads kinds from a {@link SharedInformerFactory}.
 *
 * @example
 * ```ts
 * import { Pod } from '@operant/runtime';
 * import { CacheReader, SharedInformerFactory } from '@operant/runtime/cache';
 *
 * const factory = new SharedInformerFactory(client);
 * const reader = new CacheReader(factory);
 * reader.indexField(Pod, 'spec.nodeName', (pod) => (pod.spec?.nodeName ? [pod.spec.nodeName] : []));
 * factory.startAll(signal);
 * const web = await reader.get(Pod, 'web', { namespace: 'default' });
 * const onNode = await reader.list(Pod, { matchingFields: { 'spec.nodeName': 'node-1' } });
 * ```
 */
export class CacheReader {
  private readonly syncTimeoutMs: number;
  private readonly unsafeDisableDeepCopy: boolean;

  constructor(
    readonly informers: SharedInformerFactory,
    options: CacheReaderOptions = {},
  ) {
    this.syncTimeoutMs = options.syncTimeoutMs ?? 120_000;
    this.unsafeDisableDeepCopy = options.unsafeDisableDeepCopy ?? false;
  }

  /** Reads one object from the cache; a missing one rejects with the NotFound ApiError the server would send. */
  async get<T extends KubeObject>(kind: Kind<T>, name: string, opts?: CacheGetOptions & { metadataOnly?: false }): Promise<T>;
  /** Reads one object's metadata from the kind's metadata-only informer. */
  async get(kind: Kind, name: string, opts: CacheGetOptions & { metadataOnly: true }): Promise<PartialObjectMetadata>;
  async get(kind: Kind, name: string, opts: CacheGetOptions = {}): Promise<KubeObject> {
    if (!name) throw new TypeError('an object name is required (metadata.name)');
    const namespace = kind.namespaced ? opts.namespace : undefined;
    if (kind.namespaced && !namespace) throw new TypeError(`a namespace is required to get ${resourceName(kind)} ${JSON.stringify(name)}`);
    const scoped = this.informers.scopeOf(kind).namespace;
    if (namespace && scoped && namespace !== scoped) {
      throw new CacheScopeError(`unable to get: ${namespace}/${name} because of unknown namespace for the cache`);
    }
    const informer = await this.syncedInformer(kind, opts.metadataOnly ?? false, opts.signal);
    const cached = informer.store.get(keyFor(namespace, name));
    if (!cached) throw notFoundError(kind, namespace, name);
    return this.output(kind, cached, opts);
  }

  /**
   * Lists cached objects, sorted by namespace and name like the server's
   * lists. `metadata.resourceVersion` is the revision the cache is current as of.
   */
  async list<T extends KubeObject>(kind: Kind<T>, opts?: CacheListOptions & { metadataOnly?: false }): Promise<KubeList<T>>;
  /** Lists metadata from the kind's metadata-only informer. */
  async list(kind: Kind, opts: CacheListOptions & { metadataOnly: true }): Promise<KubeList<PartialObjectMetadata>>;
  async list(kind: Kind, opts: CacheListOptions = {}): Promise<KubeList<KubeObject>> {
    const namespace = kind.namespaced ? opts.namespace || undefined : undefined;
    const scoped = this.informers.scopeOf(kind).namespace;
    if (namespace && scoped && namespace !== scoped) {
      throw new CacheScopeError(`unable to list: ${namespace} because of unknown namespace for the cache`);
    }
    const labels = parseLabels(kind, opts.labelSelector);
    const fields = exactFieldMatches(kind, opts.fieldSelector, opts.matchingFields);
    const metadataOnly = opts.metadataOnly ?? false;
    const informer = await this.syncedInformer(kind, metadataOnly, opts.signal);
    const store = informer.store;
    // Keys first (`namespace/name`, what the sort orders by), objects once chosen.
    let keys: string[];
    if (fields.length > 0) {
      keys = keysByFieldIndexes(informer, fields, namespace);
    } else if (namespace) {
      if (!store.hasIndex(namespaceIndex)) store.addIndexer(namespaceIndex, namespaceIndexFunc);
      keys = store.indexKeys(namespaceIndex, namespace);
    } else {
      keys = store.keys();
    }
    if (labels) keys = keys.filter((k) => labels.matches(store.get(k)?.metadata.labels));
    // Store keys are objectKey()s; the default sort compares them by UTF-16 code units, as `<` does.
    if (!opts.unordered) keys.sort();
    if (opts.limit !== undefined && opts.limit > 0 && keys.length > opts.limit) keys.length = opts.limit;
    const items: KubeObject[] = [];
    for (const key of keys) {
      const cached = store.get(key);
      if (cached) items.push(this.output(kind, cached, opts));
    }
    const resourceVersion = informer.stats().resourceVersion;
    return {
      apiVersion: metadataOnly ? 'meta.k8s.io/v1' : apiVersionOfKind(kind),
      kind: metadataOnly ? 'PartialObjectMetadataList' : `${kind.kind}List`,
      metadata: resourceVersion ? { resourceVersion } : {},
      items,
    };
  }

  /**
   * Indexes a kind by a field, for `list` with `matchingFields` or an exact
   * `fieldSelector` on it (controller-runtime's `FieldIndexer.IndexField`).
   * Allowed before and after the informer starts (the cache is re-indexed);
   * a field can be indexed once per kind.
   *
   * @example
   * ```ts
   * import { Job, Pod } from '@operant/runtime';
   *
   * mgr.cache.indexField(Pod, 'spec.nodeName', (pod) => (pod.spec?.nodeName ? [pod.spec.nodeName] : []));
   * mgr.cache.indexField(Job, '.metadata.controller', (job) => job.metadata.ownerReferences?.filter((r) => r.controller).map((r) => r.name) ?? []);
   * ```
   */
  indexField<T extends KubeObject>(kind: Kind<T>, field: string, extract: FieldExtractor<T>): void;
  /** Indexes the kind's metadata-only informer. */
  indexField(kind: Kind, field: string, extract: FieldExtractor<PartialObjectMetadata>, options: { metadataOnly: true }): void;
  indexField(kind: Kind, field: string, extract: FieldExtractor<never>, options: { metadataOnly?: boolean } = {}): void {
    if (!field) throw new TypeError('a field name is required');
    const informer = this.informerOf(kind, options.metadataOnly ?? false);
    const name = fieldIndexName(field);
    if (informer.store.hasIndex(name)) throw new Error(`indexer conflict: ${name}`);
    informer.store.addIndexer(name, fieldIndexFunc(extract as FieldExtractor<KubeObject>));
  }

  /** The shared informer reads of `kind` use (created, and started if the factory runs, on first use). */
  informerOf(kind: Kind, metadataOnly: boolean): Informer<KubeObject> {
    return metadataOnly ? (this.informers.metadataInformerFor(kind) as unknown as Informer<KubeObject>) : this.informers.informerFor(kind);
  }

  /**
   * The informer reads of `kind` use, once it has synced. Rejects with
   * {@link CacheNotStartedError} before the factory starts, with the signal's
   * reason when it aborts, with a Timeout ApiError after `syncTimeoutMs`, and
   * with {@link NoKindMatchError} at once when the server does not serve the
   * kind (the informer then stays stopped: a CRD installed later is read after a restart).
   */
  async syncedInformer(kind: Kind, metadataOnly: boolean, signal?: AbortSignal): Promise<Informer<KubeObject>> {
    const informer = this.informerOf(kind, metadataOnly);
    if (informer.hasSynced()) return informer;
    if (informer.state === 'new') throw new CacheNotStartedError();
    signal?.throwIfAborted();
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), this.syncTimeoutMs);
    try {
      const synced = await informer.waitForCacheSync(signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal);
      if (synced) return informer;
    } finally {
      clearTimeout(timer);
    }
    signal?.throwIfAborted();
    if (informer.state === 'stopped') throw new Error(`the informer ${informer.name} stopped before it synced`);
    throw syncTimeoutError(kind, informer.name);
  }

  private output(kind: Kind, cached: KubeObject, opts: { metadataOnly?: boolean; unsafeDisableDeepCopy?: boolean }): KubeObject {
    if (opts.unsafeDisableDeepCopy ?? this.unsafeDisableDeepCopy) return cached;
    const copy = deepCopy(cached);
    if (!opts.metadataOnly) {
      copy.apiVersion ??= apiVersionOfKind(kind);
      copy.kind ??= kind.kind;
    }
    return copy;
  }
}

/** `pods`, `deployments.apps`. */
function resourceName(kind: Kind): string {
  return kind.group ? `${kind.plural}.${kind.group}` : kind.plural;
}

/** The ApiError a live get of a missing object rejects with: `pods "web" not found`. */
export function notFoundError(kind: Kind, namespace: string | undefined, name: string): ApiError {
  const status: Status = notFound({ group: kind.group, resource: kind.plural }, name).status;
  return new ApiError(status, `GET (cache) ${objectPath(kind, namespace, name)}`);
}

function syncTimeoutError(kind: Kind, informerName: string): ApiError {
  const status: Status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    code: 504,
    reason: 'Timeout',
    message: `failed waiting for ${informerName} informer to sync`,
    details: { kind: kind.plural, ...(kind.group ? { group: kind.group } : {}) },
  };
  return new ApiError(status, `GET (cache) ${collectionPath(kind)}`);
}

/** A 400 BadRequest, as the server answers a selector it cannot parse, so cached and live reads fail alike. */
function badSelector(kind: Kind, err: SelectorError): ApiError {
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 400, reason: 'BadRequest', message: err.message };
  return new ApiError(status, `GET (cache) ${collectionPath(kind)}`);
}

function parseLabels(kind: Kind, selector: LabelSelector | undefined): ReturnType<typeof parseLabelSelector> | undefined {
  const text = labelSelectorString(selector);
  if (!text) return undefined;
  try {
    return parseLabelSelector(text);
  } catch (err) {
    if (err instanceof SelectorError) throw badSelector(kind, err);
    throw err;
  }
}

interface FieldMatch {
  field: string;
  value: string;
}

/** The field selector's requirements plus `matchingFields`, all exact; anything else is refused as controller-runtime refuses it. */
function exactFieldMatches(kind: Kind, fieldSelector: string | undefined, matchingFields: Readonly<Record<string, string>> | undefined): FieldMatch[] {
  const out: FieldMatch[] = [];
  if (fieldSelector) {
    let requirements: ReturnType<typeof parseFieldSelector>['requirements'];
    try {
      requirements = parseFieldSelector(fieldSelector).requirements;
    } catch (err) {
      if (err instanceof SelectorError) throw badSelector(kind, err);
      throw err;
    }
    for (const r of requirements) {
      if (r.operator !== '=') throw new Error('non-exact field matches are not supported by the cache');
      out.push({ field: r.field, value: r.value });
    }
  }
  for (const [field, value] of Object.entries(matchingFields ?? {})) out.push({ field, value });
  return out;
}

/** The keys of the objects whose field indexes hold every match (scoped to `namespace` when given). */
function keysByFieldIndexes(informer: Informer<KubeObject>, matches: FieldMatch[], namespace: string | undefined): string[] {
  const store = informer.store;
  // Every index is checked first, so a missing one fails whatever the data (client-go's wording).
  for (const { field } of matches) {
    const index = fieldIndexName(field);
    if (!store.hasIndex(index)) throw new Error(`Index with name ${index} does not exist`);
  }
  let keys: string[] | undefined;
  for (const { field, value } of matches) {
    const found = store.indexKeys(fieldIndexName(field), namespacedIndexValue(namespace, value));
    if (keys === undefined) keys = found;
    else {
      const these = new Set(found);
      keys = keys.filter((k) => these.has(k));
    }
    if (keys.length === 0) return [];
  }
  return keys ?? [];
}

/**
 * The API client: typed and unstructured CRUD over {@link Kind} values, status
 * and scale subresources, every patch type including server-side apply,
 * delete-collection and watch, on top of one throttled, authenticated transport.
 */
import type { IncomingMessage } from 'node:http';
import { escapeFieldSelectorValue, type KubeObject, type Status } from '@operant/apimachinery';
import type { ListerWatcher, WatchEvent } from '../cache/list-watch.js';
import type { CacheReader } from '../cache/reader.js';
import type { ClientConfig } from '../config/index.js';
import { apiVersionOfKind, collectionPath, objectPath, type Kind } from '../kind.js';
import type { ObjectClient } from './interfaces.js';
import type { ApplyConfiguration } from './apply-configuration.js';
import { ClientCache, type CachedClientOptions, type TrackedWrite } from './cached-client.js';
import { servesResource } from './discovery.js';
import { KindListerWatcher, type ListerWatcherOptions } from './lister-watcher.js';
import { noopRequestMetrics, type RequestMetrics } from './metrics.js';
import type {
  ApplyOptions,
  DeleteAllOfOptions,
  DeleteOptions,
  GetOptions,
  KubeList,
  ListOptions,
  PartialObjectMetadata,
  PatchOptions,
  PatchType,
  Scale,
  WatchOptions,
  WriteOptions,
} from './options.js';
import { dryRunValue, labelSelectorString, queryString } from './query.js';
import { RequestRateLimiter } from './rate-limiter.js';
import { Transport, type HttpRequest } from './transport.js';
import { readWatchEvents, watchEvents } from './watch-stream.js';

/**
 * Options of {@link Client.fromConfig}.
 *
 * @example
 * ```ts
 * import type { ClientOptions } from '@operant/runtime';
 *
 * const options: ClientOptions = { qps: 50, burst: 100, userAgent: 'sidecarset-operator/1.0', onWarning: (w) => log.warn({ warning: w }, 'server warning') };
 * ```
 */
export interface ClientOptions {
  /** Sustained requests per second (client-side throttling); default 20. `Infinity` turns throttling off. */
  qps?: number;
  /** Requests allowed at once before throttling starts; default 30. */
  burst?: number;
  /** The User-Agent header; default `operant-runtime/<version> (<platform>/<arch>) node/<version>`. */
  userAgent?: string;
  /** Per-request metrics; default none. */
  metrics?: RequestMetrics;
  /** Receives each warning the server sends (`Warning` headers, e.g. unknown fields); default ignores them. */
  onWarning?: (message: string) => void;
  /**
   * How many times a request is sent again when the server answers 429 or 5xx
   * with a `Retry-After` of whole seconds, after that delay (client-go's
   * behaviour, for every verb: the server did not act on the request); default 10,
   * 0 never. The last answer is the error when they run out.
   */
  maxRetries?: number;
}

/**
 * One RFC 6902 operation.
 *
 * @example
 * ```ts
 * import type { JsonPatchOp } from '@operant/runtime';
 *
 * const op: JsonPatchOp = { op: 'replace', path: '/spec/replicas', value: 3 };
 * ```
 */
export interface JsonPatchOp {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  from?: string;
  value?: unknown;
}

/**
 * A patch body: a list of operations for `json`, an object (partial or full) for the others.
 *
 * @example
 * ```ts
 * import type { PatchBody } from '@operant/runtime';
 *
 * const merge: PatchBody = { metadata: { labels: { tier: null } } }; // null deletes in a merge patch
 * ```
 */
export type PatchBody = readonly JsonPatchOp[] | Readonly<Record<string, unknown>>;

const patchContentTypes: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

/** `patchType`, or the deprecated `type` it replaced; both, when they differ, is a mistake worth a throw. */
function patchTypeOf(opts: PatchOptions): PatchType {
  const { patchType, type } = opts;
  if (patchType !== undefined && type !== undefined && patchType !== type) {
    throw new TypeError(`conflicting patch types: patchType ${JSON.stringify(patchType)} and the deprecated type ${JSON.stringify(type)}`);
  }
  const chosen = patchType ?? type ?? 'merge';
  if (!Object.hasOwn(patchContentTypes, chosen)) throw new TypeError(`unknown patch type ${JSON.stringify(chosen)}: expected merge, json, strategic or apply`);
  return chosen;
}

const defaultUserAgent = `operant-runtime/0.1.0 (${process.platform}/${process.arch}) node/${process.version}`;

const metadataGetAccept = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';
const metadataListAccept = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
const metadataWatchAccept = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

/**
 * A client for one API server.
 *
 * @example
 * ```ts
 * import { Client, defineKind, loadKubeConfig, type Typed } from '@operant/runtime';
 *
 * const ConfigMap = defineKind<Typed<{ data?: Record<string, string> }>>({ group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true });
 * const client = Client.fromConfig(await loadKubeConfig(), { qps: 50, burst: 100 });
 * const cm = await client.create(ConfigMap, { metadata: { name: 'settings', namespace: 'default' }, data: { a: '1' } });
 * await client.patch(ConfigMap, 'settings', { data: { b: '2' } }, { namespace: 'default', patchType: 'merge' });
 * for await (const event of client.watch(ConfigMap, { namespace: 'default', timeoutSeconds: 60 })) console.log(event.type);
 * client.close();
 * ```
 */
export class Client implements ObjectClient {
  /** The namespace used when a namespaced call names none: the context's (or the pod's) namespace. */
  readonly namespace: string;
  readonly config: ClientConfig;
  private readonly transport: Transport;
  private readonly cached: ClientCache | undefined;

  private constructor(config: ClientConfig, transport: Transport, cache?: ClientCache) {
    this.config = config;
    this.namespace = config.namespace;
    this.transport = transport;
    this.cached = cache;
  }

  /**
   * Creates a client from a loaded configuration.
   *
   * @example
   * ```ts
   * import { Client, loadKubeConfig } from '@operant/runtime';
   *
   * const client = Client.fromConfig(await loadKubeConfig(), { qps: 20, burst: 30, userAgent: 'my-operator/1.0' });
   * ```
   */
  static fromConfig(config: ClientConfig, options: ClientOptions = {}): Client {
    const transport = new Transport(config, {
      limiter: new RequestRateLimiter(options.qps ?? 20, options.burst ?? 30),
      metrics: options.metrics ?? noopRequestMetrics,
      userAgent: options.userAgent ?? defaultUserAgent,
      onWarning: options.onWarning ?? (() => undefined),
      maxRetries: options.maxRetries,
    });
    return new Client(config, transport);
  }

  /**
   * A client whose `get` and `list` read from `reader`'s informer cache
   * (controller-runtime's manager client), unless called with `live: true`;
   * every other call goes to the server. It shares this client's connections,
   * throttling and metrics.
   *
   * @example
   * ```ts
   * import { ConfigMap } from '@operant/runtime';
   * import { CacheReader, SharedInformerFactory } from '@operant/runtime/cache';
   *
   * const reader = new CacheReader(new SharedInformerFactory(client));
   * const cached = client.withCache(reader, { readYourWrites: true });
   * reader.informers.startAll(signal);
   * const cm = await cached.get(ConfigMap, 'settings', { namespace: 'default' }); // from the cache
   * const fresh = await cached.get(ConfigMap, 'settings', { namespace: 'default', live: true }); // from the server
   * ```
   */
  withCache(reader: CacheReader, options: CachedClientOptions = {}): Client {
    return new Client(this.config, this.transport, new ClientCache(reader, options));
  }

  /**
   * A client on the same connections that reads only from the server
   * (controller-runtime's `mgr.GetAPIReader()`); itself when it has no cache.
   *
   * @example
   * ```ts
   * const live = mgr.client.withoutCache();
   * ```
   */
  withoutCache(): Client {
    return this.cached ? new Client(this.config, this.transport) : this;
  }

  /** The cache reads come from, when this client has one ({@link withCache}). */
  get cache(): CacheReader | undefined {
    return this.cached?.reader;
  }

  /**
   * Reads one object; a missing one rejects with a NotFound ApiError (see
   * {@link isNotFound}). A client with a cache reads it from the cache unless `live` is set.
   */
  async get<T extends KubeObject>(kind: Kind<T>, name: string, opts?: GetOptions & { metadataOnly?: false }): Promise<T>;
  /** Reads one object's metadata only (a PartialObjectMetadata; from the kind's metadata-only informer when cached). */
  async get(kind: Kind, name: string, opts: GetOptions & { metadataOnly: true }): Promise<PartialObjectMetadata>;
  async get(kind: Kind, name: string, opts: GetOptions & { metadataOnly?: boolean } = {}): Promise<KubeObject> {
    checkName(name);
    const namespace = this.ns(kind, opts.namespace);
    const metadataOnly = opts.metadataOnly ?? false;
    const cache = this.cached;
    if (cache && !opts.live) {
      const visible = await cache.settle(kind, metadataOnly, { namespace, name }, opts.signal);
      if (visible) return metadataOnly ? cache.reader.get(kind, name, { ...opts, namespace, metadataOnly: true }) : cache.reader.get(kind, name, { ...opts, namespace, metadataOnly: false });
    }
    const path = objectPath(kind, namespace, name) + queryString({ resourceVersion: opts.resourceVersion });
    return this.json<KubeObject>({ method: 'GET', path, accept: metadataOnly ? metadataGetAccept : undefined, signal: opts.signal });
  }

  /**
   * Lists objects (one page when `limit` is set; `metadata.continue` then names
   * the next). Items get `apiVersion` and `kind` filled in when the server left them out.
   * A client with a cache lists from the cache unless `live` is set.
   */
  async list<T extends KubeObject>(kind: Kind<T>, opts?: ListOptions & { metadataOnly?: false }): Promise<KubeList<T>>;
  /** Lists metadata only (PartialObjectMetadata items; from the kind's metadata-only informer when cached). */
  async list(kind: Kind, opts: ListOptions & { metadataOnly: true }): Promise<KubeList<PartialObjectMetadata>>;
  async list(kind: Kind, opts: ListOptions & { metadataOnly?: boolean } = {}): Promise<KubeList<KubeObject>> {
    const metadataOnly = opts.metadataOnly ?? false;
    const cache = this.cached;
    if (cache && !opts.live) {
      if (opts.continue) throw new TypeError('a cached list has no pages: continue tokens need a live list ({ live: true })');
      const namespace = kind.namespaced ? opts.namespace || undefined : undefined;
      const visible = await cache.settle(kind, metadataOnly, { namespace }, opts.signal);
      if (visible) return metadataOnly ? cache.reader.list(kind, { ...opts, metadataOnly: true }) : cache.reader.list(kind, { ...opts, metadataOnly: false });
    }
    return metadataOnly ? this.listWith(kind, opts, metadataListAccept) : this.liveList(kind, opts);
  }

  /** Creates an object (in its own namespace, else `opts.namespace`, else the client's). */
  async create<T extends KubeObject>(kind: Kind<T>, obj: T, opts: WriteOptions = {}): Promise<T> {
    const namespace = this.ns(kind, opts.namespace, obj);
    const path = collectionPath(kind, namespace) + writeQuery(opts);
    return this.tracked({ kind, namespace, name: obj.metadata?.name, dryRun: opts.dryRun, created: true }, () =>
      this.json<T>({ method: 'POST', path, body: JSON.stringify(withTypeMeta(kind, obj)), signal: opts.signal }),
    );
  }

  /** Replaces an object; its `metadata.resourceVersion` guards against lost updates (409 when stale, see {@link isConflict}). */
  async update<T extends KubeObject>(kind: Kind<T>, obj: T, opts: WriteOptions = {}): Promise<T> {
    return this.put(kind, obj, undefined, opts);
  }

  /** Replaces an object's status (the `status` subresource); other changes are ignored by the server. */
  async updateStatus<T extends KubeObject>(kind: Kind<T>, obj: T, opts: WriteOptions = {}): Promise<T> {
    return this.put(kind, obj, 'status', opts);
  }

  /**
   * Patches an object (or a subresource) with a merge patch (default), a JSON
   * patch, a strategic merge patch (built-in kinds) or an apply patch.
   *
   * @example
   * ```ts
   * import { Deployment, Pod } from '@operant/runtime';
   *
   * await client.patch(Pod, 'web', [{ op: 'replace', path: '/metadata/labels/tier', value: 'gold' }], { patchType: 'json' });
   * await client.patch(Deployment, 'web', { spec: { template: { spec: { containers: [{ name: 'app', image: 'app:2' }] } } } }, { patchType: 'strategic' });
   * ```
   */
  async patch<T extends KubeObject>(kind: Kind<T>, name: string, patch: PatchBody, opts: PatchOptions = {}): Promise<T> {
    const type = patchTypeOf(opts);
    if ((type === 'json') !== Array.isArray(patch)) {
      throw new TypeError(type === 'json' ? 'a json patch is a list of operations' : `a ${type} patch is an object, not a list`);
    }
    const namespace = this.ns(kind, opts.namespace);
    const path =
      objectPath(kind, namespace, checkName(name), opts.subresource) +
      queryString({
        dryRun: dryRunValue(opts.dryRun),
        fieldManager: opts.fieldManager,
        fieldValidation: opts.fieldValidation,
        force: type === 'apply' && opts.force !== undefined ? opts.force : undefined,
      });
    return this.tracked({ kind, namespace, name, dryRun: opts.dryRun }, () =>
      this.json<T>({ method: 'PATCH', path, body: JSON.stringify(patch), contentType: patchContentTypes[type], signal: opts.signal }),
    );
  }

  /**
   * Server-side apply: sends `obj` (the fields this manager owns) as an apply
   * patch, creating the object if it does not exist. The server makes
   * `fieldManager` the owner of every field sent, removes the fields it applied
   * before and no longer sends (unless another manager owns them too), and
   * answers 409 for fields another manager owns with other values, unless
   * `force`. Build `obj` with {@link applyConfiguration} to send only the fields
   * you mean to own; `subresource: 'status'` (or {@link applyStatus}) applies
   * status fields.
   *
   * @example
   * ```ts
   * import { ConfigMap, Deployment, applyConfiguration } from '@operant/runtime';
   *
   * await client.apply(ConfigMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'default' }, data: { a: '1' } }, { fieldManager: 'my-operator', force: true });
   * await client.apply(Deployment, applyConfiguration(Deployment, 'web', 'default', { metadata: { labels: { tier: 'gold' } } }), { fieldManager: 'labeller' });
   * ```
   */
  async apply<T extends KubeObject>(kind: Kind<T>, obj: T | ApplyConfiguration<T>, opts: ApplyOptions): Promise<T> {
    const name = obj.metadata?.name;
    if (!name) throw new TypeError('apply needs metadata.name');
    return this.patch(kind, name, withTypeMeta(kind, obj as T), { ...opts, namespace: this.ns(kind, opts.namespace, obj as T), patchType: 'apply' });
  }

  /**
   * Server-side apply of status fields (the `status` subresource): the manager
   * owns the status fields sent; everything else in `obj` is ignored.
   *
   * @example
   * ```ts
   * import { Deployment, applyConfiguration } from '@operant/runtime';
   *
   * await client.applyStatus(Deployment, applyConfiguration(Deployment, 'web', 'default', { status: { observedGeneration: 2 } }), { fieldManager: 'web-controller', force: true });
   * ```
   */
  async applyStatus<T extends KubeObject>(kind: Kind<T>, obj: T | ApplyConfiguration<T>, opts: Omit<ApplyOptions, 'subresource'>): Promise<T> {
    return this.apply(kind, obj, { ...opts, subresource: 'status' });
  }

  /**
   * Server-side apply of an object's replicas through its scale subresource:
   * the manager owns them (recorded on the object with `subresource: scale`),
   * and an apply that owns them through the object itself conflicts unless forced.
   *
   * @example
   * ```ts
   * import { Deployment } from '@operant/runtime';
   *
   * const scale = await client.applyScale(Deployment, 'web', 5, { namespace: 'default', fieldManager: 'my-autoscaler' });
   * scale.status?.replicas; // the replicas running now
   * ```
   */
  async applyScale(kind: Kind, name: string, replicas: number, opts: Omit<ApplyOptions, 'subresource'>): Promise<Scale> {
    const namespace = this.ns(kind, opts.namespace);
    const metadata: { name: string; namespace?: string } = { name: checkName(name) };
    if (kind.namespaced) metadata.namespace = namespace;
    const config = { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata, spec: { replicas } };
    return this.patch(kind, name, config, { ...opts, namespace, subresource: 'scale', patchType: 'apply' }) as Promise<Scale>;
  }

  /**
   * Deletes an object. Resolves with the object when it remains for a while
   * (finalizers, foreground deletion) or as the server returns it, or with a
   * success Status when it is gone at once.
   */
  async delete<T extends KubeObject>(kind: Kind<T>, name: string, opts: DeleteOptions = {}): Promise<T | Status> {
    const namespace = this.ns(kind, opts.namespace);
    const path = objectPath(kind, namespace, checkName(name)) + queryString({ dryRun: dryRunValue(opts.dryRun) });
    const body = deleteOptionsBody(opts);
    return this.tracked({ kind, namespace, name, dryRun: opts.dryRun, deleted: true }, () => this.json<T | Status>({ method: 'DELETE', path, body, signal: opts.signal }));
  }

  /** Deletes every object of a kind in a namespace that matches the selectors (`deletecollection`). */
  async deleteAllOf<T extends KubeObject>(kind: Kind<T>, opts: DeleteAllOfOptions = {}): Promise<KubeList<T> | Status> {
    const path =
      collectionPath(kind, this.ns(kind, opts.namespace)) +
      queryString({ labelSelector: labelSelectorString(opts.labelSelector), fieldSelector: opts.fieldSelector, dryRun: dryRunValue(opts.dryRun) });
    return this.json<KubeList<T> | Status>({ method: 'DELETE', path, body: deleteOptionsBody(opts), signal: opts.signal });
  }

  /** Reads the autoscaling/v1 Scale of an object whose kind has a scale subresource. */
  async getScale(kind: Kind, name: string, opts: GetOptions = {}): Promise<Scale> {
    return this.json<Scale>({ method: 'GET', path: objectPath(kind, this.ns(kind, opts.namespace), checkName(name), 'scale'), signal: opts.signal });
  }

  /**
   * Writes a Scale (usually one read with {@link getScale}, replicas changed).
   *
   * @example
   * ```ts
   * import { Deployment } from '@operant/runtime';
   *
   * const scale = await client.getScale(Deployment, 'web');
   * await client.updateScale(Deployment, { ...scale, spec: { replicas: 5 } });
   * ```
   */
  async updateScale(kind: Kind, scale: Scale, opts: WriteOptions = {}): Promise<Scale> {
    const name = checkName(scale.metadata?.name ?? '');
    const namespace = this.ns(kind, opts.namespace, scale);
    const path = objectPath(kind, namespace, name, 'scale') + writeQuery(opts);
    const body = { apiVersion: 'autoscaling/v1', kind: 'Scale', ...scale };
    // A Scale carries its object's resourceVersion.
    return this.tracked({ kind, namespace, name, dryRun: opts.dryRun }, () => this.json<Scale>({ method: 'PUT', path, body: JSON.stringify(body), signal: opts.signal }));
  }

  /**
   * Watches a kind. Connects when iteration starts; yields ADDED, MODIFIED,
   * DELETED, BOOKMARK and ERROR events (an ERROR's object is a Status, e.g. 410
   * when `resourceVersion` is too old); ends when the server ends the watch
   * (`timeoutSeconds`) or the signal aborts; throws an ApiError when the server
   * refuses the watch and an Error when the connection breaks.
   *
   * @example
   * ```ts
   * import { Pod } from '@operant/runtime';
   *
   * const list = await client.list(Pod, { namespace: 'default', live: true });
   * const ac = new AbortController();
   * for await (const { type, object } of client.watch(Pod, { namespace: 'default', resourceVersion: list.metadata.resourceVersion, signal: ac.signal })) {
   *   console.log(type, object.metadata.name);
   * }
   * ```
   */
  watch<T extends KubeObject>(kind: Kind<T>, opts: WatchOptions = {}): AsyncIterable<WatchEvent<T>> {
    return this.watchWith<T>(kind, opts, 'application/json');
  }

  /**
   * A {@link ListerWatcher} for informers: lists in pages of 500 (following
   * continue tokens, relisting in full if a token expires) and watches with
   * bookmarks. A list of a kind the server does not serve (a 404 that discovery
   * confirms) rejects with {@link NoKindMatchError}.
   *
   * @example
   * ```ts
   * import { Pod } from '@operant/runtime';
   *
   * const lw = client.listerWatcher(Pod);
   * const { items, resourceVersion } = await lw.list({ namespace: 'default' });
   * for await (const event of lw.watch({ namespace: 'default', resourceVersion })) console.log(event.type);
   * ```
   */
  listerWatcher<T extends KubeObject>(kind: Kind<T>, options?: ListerWatcherOptions & { metadataOnly?: false }): ListerWatcher<T>;
  /** A metadata-only ListerWatcher: lists and watches PartialObjectMetadata, for informers that need only metadata. */
  listerWatcher(kind: Kind, options: ListerWatcherOptions & { metadataOnly: true }): ListerWatcher<PartialObjectMetadata>;
  listerWatcher(kind: Kind, options: ListerWatcherOptions & { metadataOnly?: boolean } = {}): ListerWatcher<KubeObject> {
    const accept = options.metadataOnly ? { list: metadataListAccept, watch: metadataWatchAccept } : { list: 'application/json', watch: 'application/json' };
    return new KindListerWatcher(kind, options, {
      list: (opts) => (options.metadataOnly ? this.listWith(kind, opts, accept.list) : this.liveList(kind, opts)),
      watch: (opts) => this.watchWith(kind, opts, accept.watch),
      watchBatches: (opts, onEvents) => this.watchBatchesWith(kind, opts, accept.watch, onEvents),
      served: (signal) => servesResource(kind, (path) => this.json<unknown>({ method: 'GET', path, signal })),
    });
  }

  /**
   * GETs a path of the server that belongs to no kind (`/version`, `/healthz`,
   * `/openapi/v3`) with this client's credentials, throttling, retries and
   * metrics, as client-go's `RESTClient().Get().AbsPath(path).DoRaw()` does;
   * resolves with the answer's text. `path` starts with `/`, is relative to
   * the configured server URL and may carry a query. A non-2xx answer rejects
   * with an ApiError.
   *
   * @example
   * ```ts
   * // client-go's Discovery().ServerVersion()
   * const { gitVersion } = JSON.parse(await client.getRaw('/version')) as { gitVersion: string };
   * ```
   */
  async getRaw(path: string, opts: { signal?: AbortSignal } = {}): Promise<string> {
    if (!path.startsWith('/')) throw new TypeError(`a server path starts with "/": ${JSON.stringify(path)}`);
    return (await this.transport.send({ method: 'GET', path, signal: opts.signal })).body;
  }

  /** Closes the client's connections; open watches end. */
  close(): void {
    this.transport.close();
  }

  private async liveList<T extends KubeObject>(kind: Kind, opts: ListOptions): Promise<KubeList<T>> {
    const list = await this.listWith<T>(kind, opts, 'application/json');
    const apiVersion = apiVersionOfKind(kind);
    for (const item of list.items) {
      item.apiVersion ??= apiVersion;
      item.kind ??= kind.kind;
    }
    return list;
  }

  private async listWith<T extends KubeObject>(kind: Kind, opts: ListOptions, accept: string): Promise<KubeList<T>> {
    const path =
      collectionPath(kind, kind.namespaced ? opts.namespace : undefined) +
      queryString({
        labelSelector: labelSelectorString(opts.labelSelector),
        fieldSelector: withMatchingFields(opts.fieldSelector, opts.matchingFields),
        limit: opts.limit,
        continue: opts.continue,
        resourceVersion: opts.resourceVersion,
        resourceVersionMatch: opts.resourceVersionMatch,
      });
    const list = await this.json<KubeList<T>>({ method: 'GET', path, accept, signal: opts.signal });
    list.items ??= [];
    list.metadata ??= {};
    return list;
  }

  private async *watchWith<T extends KubeObject>(kind: Kind, opts: WatchOptions, accept: string): AsyncGenerator<WatchEvent<T>> {
    const opened = await this.openWatch(kind, opts, accept);
    if (opened) yield* watchEvents<T>(opened.res, opened.description, opts.signal);
  }

  /** A watch delivered chunk by chunk to `onEvents` (see {@link readWatchEvents}): no async step per event. */
  private async watchBatchesWith<T extends KubeObject>(
    kind: Kind,
    opts: WatchOptions,
    accept: string,
    onEvents: (events: WatchEvent<T>[]) => void,
  ): Promise<void> {
    const opened = await this.openWatch(kind, opts, accept);
    if (opened) await readWatchEvents<T>(opened.res, opened.description, opts.signal, onEvents);
  }

  /** Starts a watch request; undefined when the caller aborted before the response came. */
  private async openWatch(kind: Kind, opts: WatchOptions, accept: string): Promise<{ res: IncomingMessage; description: string } | undefined> {
    const path = watchPath(kind, opts);
    try {
      const res = await this.transport.stream({ method: 'GET', path, accept, signal: opts.signal });
      return { res, description: `${kind.plural} ${path}` };
    } catch (e) {
      if (opts.signal?.aborted) return undefined;
      throw e;
    }
  }

  private put<T extends KubeObject>(kind: Kind<T>, obj: T, subresource: string | undefined, opts: WriteOptions): Promise<T> {
    const name = checkName(obj.metadata?.name ?? '');
    const namespace = this.ns(kind, opts.namespace, obj);
    const path = objectPath(kind, namespace, name, subresource) + writeQuery(opts);
    return this.tracked({ kind, namespace, name, dryRun: opts.dryRun }, () =>
      this.json<T>({ method: 'PUT', path, body: JSON.stringify(withTypeMeta(kind, obj)), signal: opts.signal }),
    );
  }

  /** Runs a write through the cache's read-your-writes tracking, when this client has a cache. */
  private tracked<R extends KubeObject | Status>(write: TrackedWrite, send: () => Promise<R>): Promise<R> {
    return this.cached ? this.cached.track(write, send) : send();
  }

  private ns(kind: Kind, explicit: string | undefined, obj?: KubeObject): string | undefined {
    if (!kind.namespaced) return undefined;
    return explicit || obj?.metadata?.namespace || this.namespace;
  }

  private async json<R>(req: HttpRequest): Promise<R> {
    const res = await this.transport.send(req);
    return JSON.parse(res.body) as R;
  }
}

/** A field selector with `matchingFields` appended as exact requirements (values escaped). */
function withMatchingFields(fieldSelector: string | undefined, matchingFields: Readonly<Record<string, string>> | undefined): string | undefined {
  const extra = Object.entries(matchingFields ?? {}).map(([field, value]) => `${field}=${escapeFieldSelectorValue(value)}`);
  if (extra.length === 0) return fieldSelector;
  return [fieldSelector, ...extra].filter(Boolean).join(',');
}

function checkName(name: string): string {
  if (!name) throw new TypeError('an object name is required (metadata.name)');
  return name;
}

function writeQuery(opts: WriteOptions): string {
  return queryString({ dryRun: dryRunValue(opts.dryRun), fieldManager: opts.fieldManager, fieldValidation: opts.fieldValidation });
}

/** The object with apiVersion and kind set from the Kind when missing (the server requires them on writes). */
function withTypeMeta<T extends KubeObject>(kind: Kind, obj: T): T {
  if (obj.apiVersion && obj.kind) return obj;
  return { ...obj, apiVersion: obj.apiVersion || apiVersionOfKind(kind), kind: obj.kind || kind.kind };
}

function deleteOptionsBody(opts: DeleteOptions | DeleteAllOfOptions): string {
  const body: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1' };
  if (opts.propagationPolicy) body.propagationPolicy = opts.propagationPolicy;
  if (opts.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = opts.gracePeriodSeconds;
  if ('preconditions' in opts && opts.preconditions) body.preconditions = opts.preconditions;
  if (opts.dryRun) body.dryRun = ['All'];
  return JSON.stringify(body);
}

/** The path and query of a watch request. */
function watchPath(kind: Kind, opts: WatchOptions): string {
  return (
    collectionPath(kind, kind.namespaced ? opts.namespace : undefined) +
    queryString({
      watch: 1,
      labelSelector: labelSelectorString(opts.labelSelector),
      fieldSelector: opts.fieldSelector,
      resourceVersion: opts.resourceVersion,
      resourceVersionMatch: opts.resourceVersionMatch,
      allowWatchBookmarks: opts.allowWatchBookmarks,
      sendInitialEvents: opts.sendInitialEvents,
      timeoutSeconds: opts.timeoutSeconds,
    })
  );
}

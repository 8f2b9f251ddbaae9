/**
 * The API client: typed and unstructured CRUD over {@link Kind} values, status
 * and scale subresources, every patch type including server-side apply,
 * delete-collection and watch, on top of one throttled, authenticated transport.
 */
import type { IncomingMessage } from 'node:http';
import type { KubeObject, Status } from '@operant/apimachinery';
import type { ListerWatcher, WatchEvent } from '../cache/list-watch.js';
import type { ClientConfig } from '../config/index.js';
import { apiVersionOfKind, collectionPath, objectPath, type Kind } from '../kind.js';
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
import { watchEvents } from './watch-stream.js';

/**
 * Options of {@link Client.fromConfig}.
 *
 * @example
 * ```ts
 * const options: ClientOptions = { qps: 50, burst: 100, userAgent: 'sidecarset-operator/1.0', onWarning: (w) => log.warn(w) };
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
}

/**
 * One RFC 6902 operation.
 *
 * @example
 * ```ts
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

const defaultUserAgent = `operant-runtime/0.1.0 (${process.platform}/${process.arch}) node/${process.version}`;

const metadataListAccept = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
const metadataWatchAccept = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

/**
 * A client for one API server.
 *
 * @example
 * ```ts
 * const ConfigMap = defineKind<ConfigMapObject>({ group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true });
 * const client = Client.fromConfig(await loadKubeConfig(), { qps: 50, burst: 100 });
 * const cm = await client.create(ConfigMap, { metadata: { name: 'settings', namespace: 'default' }, data: { a: '1' } });
 * await client.patch(ConfigMap, 'settings', { data: { b: '2' } }, { namespace: 'default', type: 'merge' });
 * for await (const event of client.watch(ConfigMap, { namespace: 'default', timeoutSeconds: 60 })) console.log(event.type);
 * client.close();
 * ```
 */
export class Client {
  /** The namespace used when a namespaced call names none: the context's (or the pod's) namespace. */
  readonly namespace: string;
  readonly config: ClientConfig;
  private readonly transport: Transport;

  private constructor(config: ClientConfig, options: ClientOptions) {
    this.config = config;
    this.namespace = config.namespace;
    this.transport = new Transport(config, {
      limiter: new RequestRateLimiter(options.qps ?? 20, options.burst ?? 30),
      metrics: options.metrics ?? noopRequestMetrics,
      userAgent: options.userAgent ?? defaultUserAgent,
      onWarning: options.onWarning ?? (() => undefined),
    });
  }

  /**
   * Creates a client from a loaded configuration.
   *
   * @example
   * ```ts
   * const client = Client.fromConfig(await loadKubeConfig(), { qps: 20, burst: 30, userAgent: 'my-operator/1.0' });
   * ```
   */
  static fromConfig(config: ClientConfig, options: ClientOptions = {}): Client {
    return new Client(config, options);
  }

  /** Reads one object; 404 rejects with an ApiError (see {@link isNotFound}). */
  async get<T extends KubeObject>(kind: Kind<T>, name: string, opts: GetOptions = {}): Promise<T> {
    const path = objectPath(kind, this.ns(kind, opts.namespace), checkName(name)) + queryString({ resourceVersion: opts.resourceVersion });
    return this.json<T>({ method: 'GET', path, signal: opts.signal });
  }

  /**
   * Lists objects (one page when `limit` is set; `metadata.continue` then names
   * the next). Items get `apiVersion` and `kind` filled in when the server left them out.
   */
  async list<T extends KubeObject>(kind: Kind<T>, opts: ListOptions = {}): Promise<KubeList<T>> {
    const list = await this.listWith<T>(kind, opts, 'application/json');
    const apiVersion = apiVersionOfKind(kind);
    for (const item of list.items) {
      item.apiVersion ??= apiVersion;
      item.kind ??= kind.kind;
    }
    return list;
  }

  /** Creates an object (in its own namespace, else `opts.namespace`, else the client's). */
  async create<T extends KubeObject>(kind: Kind<T>, obj: T, opts: WriteOptions = {}): Promise<T> {
    const path = collectionPath(kind, this.ns(kind, opts.namespace, obj)) + writeQuery(opts);
    return this.json<T>({ method: 'POST', path, body: JSON.stringify(withTypeMeta(kind, obj)), signal: opts.signal });
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
   * await client.patch(Pod, 'web', [{ op: 'replace', path: '/metadata/labels/tier', value: 'gold' }], { type: 'json' });
   * await client.patch(Deployment, 'web', { spec: { template: { spec: { containers: [{ name: 'app', image: 'app:2' }] } } } }, { type: 'strategic' });
   * ```
   */
  async patch<T extends KubeObject>(kind: Kind<T>, name: string, patch: PatchBody, opts: PatchOptions = {}): Promise<T> {
    const type = opts.type ?? 'merge';
    if ((type === 'json') !== Array.isArray(patch)) {
      throw new TypeError(type === 'json' ? 'a json patch is a list of operations' : `a ${type} patch is an object, not a list`);
    }
    const path =
      objectPath(kind, this.ns(kind, opts.namespace), checkName(name), opts.subresource) +
      queryString({
        dryRun: dryRunValue(opts.dryRun),
        fieldManager: opts.fieldManager,
        fieldValidation: opts.fieldValidation,
        force: type === 'apply' && opts.force !== undefined ? opts.force : undefined,
      });
    return this.json<T>({ method: 'PATCH', path, body: JSON.stringify(patch), contentType: patchContentTypes[type], signal: opts.signal });
  }

  /**
   * Server-side apply: sends `obj` (the fields this manager owns) as an apply
   * patch, creating the object if it does not exist.
   *
   * @example
   * ```ts
   * await client.apply(ConfigMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'default' }, data: { a: '1' } }, { fieldManager: 'my-operator', force: true });
   * ```
   */
  async apply<T extends KubeObject>(kind: Kind<T>, obj: T, opts: ApplyOptions): Promise<T> {
    const name = obj.metadata?.name;
    if (!name) throw new TypeError('apply needs metadata.name');
    return this.patch(kind, name, withTypeMeta(kind, obj), { ...opts, namespace: this.ns(kind, opts.namespace, obj), type: 'apply' });
  }

  /**
   * Deletes an object. Resolves with the object when it remains for a while
   * (finalizers, foreground deletion) or as the server returns it, or with a
   * success Status when it is gone at once.
   */
  async delete<T extends KubeObject>(kind: Kind<T>, name: string, opts: DeleteOptions = {}): Promise<T | Status> {
    const path = objectPath(kind, this.ns(kind, opts.namespace), checkName(name)) + queryString({ dryRun: dryRunValue(opts.dryRun) });
    const body = deleteOptionsBody(opts);
    return this.json<T | Status>({ method: 'DELETE', path, body, signal: opts.signal });
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
   * const scale = await client.getScale(Deployment, 'web');
   * await client.updateScale(Deployment, { ...scale, spec: { replicas: 5 } });
   * ```
   */
  async updateScale(kind: Kind, scale: Scale, opts: WriteOptions = {}): Promise<Scale> {
    const name = checkName(scale.metadata?.name ?? '');
    const path = objectPath(kind, this.ns(kind, opts.namespace, scale), name, 'scale') + writeQuery(opts);
    const body = { apiVersion: 'autoscaling/v1', kind: 'Scale', ...scale };
    return this.json<Scale>({ method: 'PUT', path, body: JSON.stringify(body), signal: opts.signal });
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
   * continue tokens, relisting in full if a token expires) and watches with bookmarks.
   *
   * @example
   * ```ts
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
      list: (opts) => (options.metadataOnly ? this.listWith(kind, opts, accept.list) : this.list(kind, opts)),
      watch: (opts) => this.watchWith(kind, opts, accept.watch),
    });
  }

  /** Closes the client's connections; open watches end. */
  close(): void {
    this.transport.close();
  }

  private async listWith<T extends KubeObject>(kind: Kind, opts: ListOptions, accept: string): Promise<KubeList<T>> {
    const path =
      collectionPath(kind, kind.namespaced ? opts.namespace : undefined) +
      queryString({
        labelSelector: labelSelectorString(opts.labelSelector),
        fieldSelector: opts.fieldSelector,
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
    const path =
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
      });
    let res: IncomingMessage;
    try {
      res = await this.transport.stream({ method: 'GET', path, accept, signal: opts.signal });
    } catch (e) {
      if (opts.signal?.aborted) return;
      throw e;
    }
    yield* watchEvents<T>(res, `${kind.plural} ${path}`, opts.signal);
  }

  private put<T extends KubeObject>(kind: Kind<T>, obj: T, subresource: string | undefined, opts: WriteOptions): Promise<T> {
    const name = checkName(obj.metadata?.name ?? '');
    const path = objectPath(kind, this.ns(kind, opts.namespace, obj), name, subresource) + writeQuery(opts);
    return this.json<T>({ method: 'PUT', path, body: JSON.stringify(withTypeMeta(kind, obj)), signal: opts.signal });
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


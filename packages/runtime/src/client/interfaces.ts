/**
 * What a client can do, as interfaces (controller-runtime's
 * `client.Reader`, `client.Writer` and `client.Client`): code that takes a
 * client, a reconcile or an admission handler, can be given anything that
 * reads and writes objects (the {@link Client}, with or without a
 * cache, or a wrapper or fake of it).
 */
import type { KubeObject, Status } from '@operant/apimachinery';
import type { WatchEvent } from '../cache/list-watch.js';
import type { Kind } from '../kind.js';
import type { PatchBody } from './client.js';
import type { ApplyConfiguration } from './apply-configuration.js';
import type {
  ApplyOptions,
  DeleteAllOfOptions,
  DeleteOptions,
  GetOptions,
  KubeList,
  ListOptions,
  PartialObjectMetadata,
  PatchOptions,
  Scale,
  WatchOptions,
  WriteOptions,
} from './options.js';

/**
 * Reads objects (controller-runtime's `client.Reader`): from the server, or
 * from an informer cache, depending on the implementation.
 *
 * @example
 * ```ts
 * import { ConfigMap, type Reader } from '@operant/runtime';
 *
 * async function settings(reader: Reader, namespace: string): Promise<Record<string, string>> {
 *   return (await reader.get(ConfigMap, 'settings', { namespace })).data ?? {};
 * }
 * ```
 */
export interface Reader {
  /** Reads one object; a missing one rejects with a NotFound ApiError. */
  get<T extends KubeObject>(kind: Kind<T>, name: string, opts?: GetOptions & { metadataOnly?: false }): Promise<T>;
  /** Reads one object's metadata only. */
  get(kind: Kind, name: string, opts: GetOptions & { metadataOnly: true }): Promise<PartialObjectMetadata>;
  /** Lists objects. */
  list<T extends KubeObject>(kind: Kind<T>, opts?: ListOptions & { metadataOnly?: false }): Promise<KubeList<T>>;
  /** Lists metadata only. */
  list(kind: Kind, opts: ListOptions & { metadataOnly: true }): Promise<KubeList<PartialObjectMetadata>>;
}

/**
 * Writes objects (controller-runtime's `client.Writer` and `StatusWriter`).
 *
 * @example
 * ```ts
 * import { ConfigMap, type Writer } from '@operant/runtime';
 *
 * async function publish(writer: Writer, namespace: string, data: Record<string, string>): Promise<void> {
 *   await writer.apply(ConfigMap, { metadata: { name: 'published', namespace }, data }, { fieldManager: 'publisher', force: true });
 * }
 * ```
 */
export interface Writer {
  create<T extends KubeObject>(kind: Kind<T>, obj: T, opts?: WriteOptions): Promise<T>;
  update<T extends KubeObject>(kind: Kind<T>, obj: T, opts?: WriteOptions): Promise<T>;
  updateStatus<T extends KubeObject>(kind: Kind<T>, obj: T, opts?: WriteOptions): Promise<T>;
  patch<T extends KubeObject>(kind: Kind<T>, name: string, patch: PatchBody, opts?: PatchOptions): Promise<T>;
  apply<T extends KubeObject>(kind: Kind<T>, obj: T | ApplyConfiguration<T>, opts: ApplyOptions): Promise<T>;
  applyStatus<T extends KubeObject>(kind: Kind<T>, obj: T | ApplyConfiguration<T>, opts: Omit<ApplyOptions, 'subresource'>): Promise<T>;
  delete<T extends KubeObject>(kind: Kind<T>, name: string, opts?: DeleteOptions): Promise<T | Status>;
  deleteAllOf<T extends KubeObject>(kind: Kind<T>, opts?: DeleteAllOfOptions): Promise<KubeList<T> | Status>;
}

/**
 * Reads, writes, scales and watches objects: what a reconcile's and an
 * admission handler's `ctx.client` is (controller-runtime's `client.Client`).
 * The concrete client is {@link Client}: over HTTP, and reading from the
 * informer cache when made with `withCache` (`mgr.client`).
 *
 * @example
 * ```ts
 * import { ConfigMap, type ObjectClient } from '@operant/runtime';
 *
 * // Works with mgr.client, a live Client, or a fake made for a unit test.
 * async function ensureSettings(client: ObjectClient, namespace: string): Promise<void> {
 *   await client.create(ConfigMap, { metadata: { name: 'settings', namespace }, data: {} });
 * }
 * ```
 */
export interface ObjectClient extends Reader, Writer {
  /** The namespace used when a namespaced call names none. */
  readonly namespace: string;
  getScale(kind: Kind, name: string, opts?: GetOptions): Promise<Scale>;
  updateScale(kind: Kind, scale: Scale, opts?: WriteOptions): Promise<Scale>;
  applyScale(kind: Kind, name: string, replicas: number, opts: Omit<ApplyOptions, 'subresource'>): Promise<Scale>;
  watch<T extends KubeObject>(kind: Kind<T>, opts?: WatchOptions): AsyncIterable<WatchEvent<T>>;
}

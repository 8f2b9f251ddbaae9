/**
 * The informer's cache: objects by `namespace/name` key, secondary indexes, and
 * a transform applied to every object before it is kept. Readers get the
 * {@link StoreReader} view; only the reflector writes.
 *
 * Cached objects are shared with every reader and event handler: treat them as
 * read-only (copy before changing one, e.g. with `structuredClone`).
 */
import type { KubeObject } from '@operant/apimachinery';
import { objectKey } from './keys.js';
import { Indexes, type IndexFunc } from './indexes.js';
import type { Tombstone } from './tombstone.js';
import type { Transform } from './transform.js';

/**
 * The read side of a cache, plus registering indexes.
 *
 * @example
 * ```ts
 * informer.store.addIndexer('byNode', (pod) => (pod.spec?.nodeName ? [pod.spec.nodeName] : []));
 * await informer.waitForCacheSync(signal);
 * const onNode1 = informer.store.byIndex('byNode', 'node-1');
 * const web = informer.store.get('default/web');
 * ```
 */
export interface StoreReader<T extends KubeObject> {
  /** The object under `key` (`namespace/name`, or `name` for cluster-scoped objects). */
  get(key: string): T | undefined;
  has(key: string): boolean;
  /** Every cached object, in no particular order. */
  list(): T[];
  /** Every key. */
  keys(): string[];
  /** How many objects are cached. */
  readonly size: number;
  /**
   * Adds a secondary index. Allowed at any time: existing objects are indexed
   * at once. The function must be pure (same object, same values).
   */
  addIndexer(name: string, fn: IndexFunc<T>): void;
  /** Whether an index named `name` exists. */
  hasIndex(name: string): boolean;
  /** The objects indexed under `value` in index `name`; throws for an unknown index. */
  byIndex(name: string, value: string): T[];
  /** The keys indexed under `value` in index `name`. */
  indexKeys(name: string, value: string): string[];
  /** The values present in index `name`. */
  indexValues(name: string): string[];
}

/**
 * What went wrong inside the store: a transform or an index function threw.
 *
 * @example
 * ```ts
 * import { Store } from '@operant/runtime/cache';
 *
 * new Store({ onError: (err, ctx) => log.error({ err, ...ctx }, `${ctx.during} failed for ${ctx.key}`) });
 * ```
 */
export interface StoreErrorContext {
  key: string;
  during: 'transform' | 'index';
  indexName?: string;
}

/**
 * Configuration of a {@link Store}.
 *
 * @example
 * ```ts
 * import type * as corev1 from 'kubernetes-types/core/v1.js';
 * import { type StoreOptions, type Typed } from '@operant/runtime';
 * import { dropManagedFields, namespaceIndex, namespaceIndexFunc } from '@operant/runtime/cache';
 *
 * const options: StoreOptions<Typed<corev1.Pod>> = { transform: dropManagedFields, indexers: { [namespaceIndex]: namespaceIndexFunc } };
 * ```
 */
export interface StoreOptions<T extends KubeObject> {
  /** Applied to every object before it is cached. */
  transform?: Transform<T>;
  /** Indexes to start with, by name. */
  indexers?: Record<string, IndexFunc<T>>;
  /**
   * Told about a transform or index function that threw. The object is then
   * cached untransformed, or left out of that index; the cache keeps working.
   */
  onError?: (err: unknown, context: StoreErrorContext) => void;
}

/**
 * The result of {@link Store.upsert}.
 *
 * @example
 * ```ts
 * import type * as corev1 from 'kubernetes-types/core/v1.js';
 * import { type Typed } from '@operant/runtime';
 * import { Store } from '@operant/runtime/cache';
 *
 * const store = new Store<Typed<corev1.Pod>>();
 * const { old, current } = store.upsert(pod);
 * if (old) console.log(`${old.metadata.resourceVersion} -> ${current.metadata.resourceVersion}`);
 * ```
 */
export interface Upserted<T extends KubeObject> {
  key: string;
  /** The previous object under the key, if any. */
  old?: T;
  /** The object as cached (transformed). */
  current: T;
}

/**
 * How a {@link Store.replace} changed the cache. Objects with an unchanged resourceVersion appear nowhere.
 *
 * @example
 * ```ts
 * import type * as corev1 from 'kubernetes-types/core/v1.js';
 * import { Pod, type Typed } from '@operant/runtime';
 * import { Store } from '@operant/runtime/cache';
 *
 * const store = new Store<Typed<corev1.Pod>>();
 * const list = await client.list(Pod, { live: true });
 * const { added, updated, deleted } = store.replace(list.items);
 * for (const tombstone of deleted) console.log('gone while we were away:', tombstone.key);
 * ```
 */
export interface StoreDiff<T extends KubeObject> {
  added: T[];
  updated: Array<{ old: T; current: T }>;
  /** Keys that were cached and are absent from the new contents. */
  deleted: Tombstone<T>[];
}

/**
 * A keyed, indexed object cache.
 *
 * @example
 * ```ts
 * import type * as corev1 from 'kubernetes-types/core/v1.js';
 * import { type Typed } from '@operant/runtime';
 * import { dropManagedFields, Store } from '@operant/runtime/cache';
 *
 * const store = new Store<Typed<corev1.Pod>>({ transform: dropManagedFields });
 * store.addIndexer('byNode', (pod) => (pod.spec?.nodeName ? [pod.spec.nodeName] : []));
 * store.upsert(pod);
 * store.byIndex('byNode', 'node-1'); // [pod]
 * ```
 */
export class Store<T extends KubeObject> implements StoreReader<T> {
  private readonly items = new Map<string, T>();
  private readonly indexes: Indexes<T>;
  private readonly transformFn?: Transform<T>;
  private readonly onError: (err: unknown, context: StoreErrorContext) => void;

  constructor(options: StoreOptions<T> = {}) {
    this.transformFn = options.transform;
    this.onError = options.onError ?? (() => {});
    this.indexes = new Indexes<T>((indexName, key, err) => this.onError(err, { key, during: 'index', indexName }));
    for (const [name, fn] of Object.entries(options.indexers ?? {})) this.addIndexer(name, fn);
  }

  get size(): number {
    return this.items.size;
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  has(key: string): boolean {
    return this.items.has(key);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  keys(): string[] {
    return [...this.items.keys()];
  }

  addIndexer(name: string, fn: IndexFunc<T>): void {
    this.indexes.add(name, fn, this.items.entries());
  }

  hasIndex(name: string): boolean {
    return this.indexes.has(name);
  }

  byIndex(name: string, value: string): T[] {
    const out: T[] = [];
    for (const key of this.indexes.keys(name, value)) out.push(this.items.get(key)!);
    return out;
  }

  indexKeys(name: string, value: string): string[] {
    return [...this.indexes.keys(name, value)];
  }

  indexValues(name: string): string[] {
    return this.indexes.values(name);
  }

  /**
   * Transforms `obj` and caches it under its key. A caller that has computed
   * the key already (`objectKey(obj)`) may pass it to save computing it again.
   */
  upsert(obj: T, key: string = objectKey(obj)): Upserted<T> {
    const current = this.applyTransform(key, obj);
    const old = this.items.get(key);
    this.items.set(key, current);
    this.indexes.update(key, old, current);
    return old ? { key, old, current } : { key, current };
  }

  /** Removes the object under `key`, returning it. */
  delete(key: string): T | undefined {
    const old = this.items.get(key);
    if (!old) return undefined;
    this.items.delete(key);
    this.indexes.update(key, old, undefined);
    return old;
  }

  /**
   * Makes `objects` the whole contents (after a list) and returns the difference:
   * new keys, changed resourceVersions, and vanished keys as tombstones.
   * An object whose resourceVersion is unchanged keeps its cached instance.
   */
  replace(objects: T[]): StoreDiff<T> {
    const diff: StoreDiff<T> = { added: [], updated: [], deleted: [] };
    const seen = new Set<string>();
    for (const obj of objects) {
      const key = objectKey(obj);
      seen.add(key);
      const old = this.items.get(key);
      const rv = obj.metadata.resourceVersion;
      if (old && rv !== undefined && old.metadata.resourceVersion === rv) continue;
      const { current } = this.upsert(obj, key);
      if (old) diff.updated.push({ old, current });
      else diff.added.push(current);
    }
    for (const [key, lastKnown] of this.items) {
      if (seen.has(key)) continue;
      this.delete(key);
      diff.deleted.push({ key, lastKnown });
    }
    return diff;
  }

  /** Applies the store's transform, as caching would (for objects delivered without being cached, e.g. a deletion's final state). */
  prepare(obj: T): T {
    return this.applyTransform(objectKey(obj), obj);
  }

  private applyTransform(key: string, obj: T): T {
    if (!this.transformFn) return obj;
    try {
      return this.transformFn(obj);
    } catch (err) {
      this.onError(err, { key, during: 'transform' });
      return obj;
    }
  }
}

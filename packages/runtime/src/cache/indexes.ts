/**
 * Secondary indexes over a keyed store: each named index maps a value (a node
 * name, an owner's uid, a namespace) to the keys of the objects whose index
 * function returned it. Index functions must be pure: the old entries of an
 * object are found again by calling the function on its previous state
 * (client-go's threadSafeMap does the same, keeping no reverse map).
 */
import type { KubeObject } from '@operant/apimachinery';

/**
 * Returns the values under which an object is indexed (none, one or several).
 *
 * @example
 * ```ts
 * import type * as corev1 from 'kubernetes-types/core/v1.js';
 * import type { IndexFunc, Typed } from '@operant/runtime';
 *
 * const byNode: IndexFunc<Typed<corev1.Pod>> = (pod) => (pod.spec?.nodeName ? [pod.spec.nodeName] : []);
 * ```
 */
export type IndexFunc<T extends KubeObject> = (obj: T) => string[];

/**
 * The name of the index {@link namespaceIndexFunc} is usually registered under.
 *
 * @example
 * ```ts
 * import { namespaceIndex } from '@operant/runtime/cache';
 *
 * informer.store.byIndex(namespaceIndex, 'default');
 * ```
 */
export const namespaceIndex = 'namespace';

/**
 * Indexes objects by namespace (cluster-scoped objects are not indexed).
 *
 * @example
 * ```ts
 * import { namespaceIndex, namespaceIndexFunc, Store } from '@operant/runtime/cache';
 *
 * const store = new Store();
 * store.addIndexer(namespaceIndex, namespaceIndexFunc);
 * store.byIndex(namespaceIndex, 'default');
 * ```
 */
export function namespaceIndexFunc(obj: KubeObject): string[] {
  return obj.metadata.namespace ? [obj.metadata.namespace] : [];
}

/**
 * Reports an index function that threw; the object is then left out of that index.
 *
 * @example
 * ```ts
 * import type { IndexErrorHandler } from '@operant/runtime';
 *
 * const report: IndexErrorHandler = (index, key, err) => console.error(`index ${index} failed for ${key}`, err);
 * ```
 */
export type IndexErrorHandler = (indexName: string, key: string, err: unknown) => void;

interface Index<T extends KubeObject> {
  fn: IndexFunc<T>;
  /** value -> keys */
  entries: Map<string, Set<string>>;
}

/**
 * The index bookkeeping of a store. Not exported from the package: {@link Store} owns one.
 */
export class Indexes<T extends KubeObject> {
  private readonly indexes = new Map<string, Index<T>>();

  constructor(private readonly onError: IndexErrorHandler) {}

  has(name: string): boolean {
    return this.indexes.has(name);
  }

  names(): string[] {
    return [...this.indexes.keys()];
  }

  /** Registers an index and fills it from `existing` (the store's current contents). */
  add(name: string, fn: IndexFunc<T>, existing: Iterable<[string, T]>): void {
    if (this.indexes.has(name)) throw new Error(`index ${JSON.stringify(name)} already exists`);
    const index: Index<T> = { fn, entries: new Map() };
    this.indexes.set(name, index);
    for (const [key, obj] of existing) this.insert(name, index, key, obj);
  }

  /** Moves `key` from the values of `old` to those of `current` in every index. */
  update(key: string, old: T | undefined, current: T | undefined): void {
    if (this.indexes.size === 0) return; // the common case: spare the iterator per event
    for (const [name, index] of this.indexes) {
      if (old) this.remove(name, index, key, old);
      if (current) this.insert(name, index, key, current);
    }
  }

  /** Drops every entry (the store was cleared). */
  clear(): void {
    for (const index of this.indexes.values()) index.entries.clear();
  }

  /** The keys indexed under `value`; throws for an unknown index. */
  keys(name: string, value: string): ReadonlySet<string> {
    return this.get(name).entries.get(value) ?? emptySet;
  }

  /** Every value with at least one key in the index. */
  values(name: string): string[] {
    return [...this.get(name).entries.keys()];
  }

  private get(name: string): Index<T> {
    const index = this.indexes.get(name);
    if (!index) throw new Error(`index ${JSON.stringify(name)} does not exist`);
    return index;
  }

  private valuesOf(name: string, index: Index<T>, key: string, obj: T): string[] {
    try {
      return index.fn(obj);
    } catch (err) {
      this.onError(name, key, err);
      return [];
    }
  }

  private insert(name: string, index: Index<T>, key: string, obj: T): void {
    for (const value of this.valuesOf(name, index, key, obj)) {
      let keys = index.entries.get(value);
      if (!keys) index.entries.set(value, (keys = new Set()));
      keys.add(key);
    }
  }

  private remove(name: string, index: Index<T>, key: string, obj: T): void {
    for (const value of this.valuesOf(name, index, key, obj)) {
      const keys = index.entries.get(value);
      if (!keys) continue;
      keys.delete(key);
      if (keys.size === 0) index.entries.delete(value);
    }
  }
}

const emptySet: ReadonlySet<string> = new Set();

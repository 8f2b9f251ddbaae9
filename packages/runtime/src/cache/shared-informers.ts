/**
 * One informer per (kind, namespace, selectors, metadata-only), shared by every
 * controller that asks for it, so a kind is listed and watched once per process
 * however many controllers read it (client-go's SharedInformerFactory).
 */
import { parseFieldSelector, parseLabelSelector, type KubeObject } from '@operant/apimachinery';
import type { Kind } from '../kind.js';
import type { ListerWatcher } from './list-watch.js';
import type { PartialObjectMetadata } from '../client/index.js';
import type { Transform } from './transform.js';
import type { IndexFunc } from './indexes.js';
import { Informer, type InformerOptions } from './informer.js';

/**
 * Makes ListerWatchers for kinds. The runtime's `Client` is one, so a factory
 * is usually made with `new SharedInformerFactory(client)`.
 *
 * @example
 * ```ts
 * import { type Kind, type KubeObject, type ListerWatcher, type ListerWatcherSource, type PartialObjectMetadata } from '@operant/runtime';
 * import { FakeListerWatcher } from '@operant/runtime/testing';
 *
 * class FakeSource implements ListerWatcherSource {
 *   constructor(private readonly fakes: Map<string, FakeListerWatcher<KubeObject>>) {}
 *   listerWatcher<T extends KubeObject>(kind: Kind<T>): ListerWatcher<T>;
 *   listerWatcher(kind: Kind, options: { metadataOnly: true }): ListerWatcher<PartialObjectMetadata>;
 *   listerWatcher(kind: Kind): ListerWatcher<KubeObject> {
 *     return this.fakes.get(kind.plural)!;
 *   }
 * }
 * ```
 */
export interface ListerWatcherSource {
  /** Lists and watches whole objects. */
  listerWatcher<T extends KubeObject>(kind: Kind<T>): ListerWatcher<T>;
  /**
   * Lists and watches `PartialObjectMetadata` (the server's metadata-only
   * responses): a metadata-only informer is an ordinary informer over such a ListerWatcher.
   */
  listerWatcher(kind: Kind, options: { metadataOnly: true }): ListerWatcher<PartialObjectMetadata>;
}

/**
 * Options shared by every informer of a factory.
 *
 * @example
 * ```ts
 * import { createLogger } from '@operant/runtime';
 * import { dropManagedFields, SharedInformerFactory } from '@operant/runtime/cache';
 *
 * new SharedInformerFactory(client, { namespace: 'team-a', transform: dropManagedFields, logger: createLogger() });
 * ```
 */
export type SharedInformerFactoryOptions = Omit<InformerOptions<KubeObject>, 'name' | 'kind' | 'indexers' | 'labelSelector' | 'fieldSelector'> & {
  /**
   * Per-kind scopes (controller-runtime's `cache.Options.ByObject`): the
   * namespace and selectors every informer of that kind gets unless a request
   * names its own, so controllers and the cache reader share one scoped informer.
   */
  byKind?: readonly KindCacheScope[];
};

/**
 * Restricts what the cache holds of one kind: a namespace and/or server-side
 * label and field selectors. Objects outside the scope are not cached.
 *
 * @example
 * ```ts
 * import { type KindCacheScope, Secret } from '@operant/runtime';
 * import { SharedInformerFactory } from '@operant/runtime/cache';
 *
 * const scope: KindCacheScope = { kind: Secret, namespace: 'operator-system', labelSelector: 'app.kubernetes.io/managed-by=my-operator' };
 * new SharedInformerFactory(client, { byKind: [scope] });
 * ```
 */
export interface KindCacheScope {
  kind: Kind;
  /** Cache only this namespace (namespaced kinds); overrides the factory's namespace. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

/**
 * The scope an informer of a kind lists and watches, as the factory resolves it.
 *
 * @example
 * ```ts
 * import { Secret } from '@operant/runtime';
 *
 * const { namespace } = informers.scopeOf(Secret); // '' means all namespaces
 * ```
 */
export interface ResolvedScope {
  /** `''` for all namespaces (always `''` for cluster-scoped kinds). */
  namespace: string;
  /** Canonical text; `''` when none. */
  labelSelector: string;
  /** Canonical text; `''` when none. */
  fieldSelector: string;
}

/**
 * What selects one shared informer.
 *
 * @example
 * ```ts
 * import { Pod } from '@operant/runtime';
 *
 * informers.informerFor(Pod, { fieldSelector: 'spec.nodeName=node-1' });
 * ```
 */
export interface InformerRequest<T extends KubeObject> {
  /** Overrides the factory's namespace (`''` for all namespaces). */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /**
   * A transform for this informer, replacing the factory's. Every request for
   * the same informer must pass the same function (or none).
   */
  transform?: Transform<T>;
  /** Indexes to add (an index already present under the same name is kept). */
  indexers?: Record<string, IndexFunc<T>>;
}

/**
 * The part of an {@link InformerRequest} that selects an informer's scope.
 *
 * @example
 * ```ts
 * import type { InformerScopeRequest } from '@operant/runtime';
 *
 * const request: InformerScopeRequest = { namespace: 'default', labelSelector: 'app=web' };
 * ```
 */
export type InformerScopeRequest = Pick<InformerRequest<KubeObject>, 'namespace' | 'labelSelector' | 'fieldSelector'>;

interface Entry {
  informer: Informer<KubeObject>;
  transform: Transform<KubeObject> | undefined;
}

/**
 * Hands out shared informers and starts them together.
 *
 * @example
 * ```ts
 * import { defineKind, Pod } from '@operant/runtime';
 * import { dropManagedFields, SharedInformerFactory } from '@operant/runtime/cache';
 *
 * const Foo = defineKind({ group: 'samplecontroller.k8s.io', version: 'v1alpha1', kind: 'Foo', plural: 'foos', namespaced: true });
 * const factory = new SharedInformerFactory(client, { transform: dropManagedFields });
 * const pods = factory.informerFor(Pod);          // the same instance for every caller
 * const foos = factory.informerFor(Foo, { namespace: 'default' });
 * const ac = new AbortController();
 * factory.startAll(ac.signal);
 * await factory.waitForCacheSync(ac.signal);
 * ```
 */
export class SharedInformerFactory {
  private readonly entries = new Map<string, Entry>();
  /**
   * The entries asked for with no request of their own, by kind object: every
   * cached read and every tracked write asks for these, and the answer never
   * changes once made (the scopes are fixed, entries are never removed).
   */
  private readonly plainEntries = new WeakMap<Kind, { full?: Entry; metadata?: Entry }>();
  /**
   * Plain lookups that found nothing, by kind, with the number of entries
   * there were then (entries are never removed): any new entry may answer them.
   */
  private readonly plainMisses = new WeakMap<Kind, { full?: number; metadata?: number }>();
  private readonly scopes = new Map<string, KindCacheScope>();
  private readonly options: Omit<SharedInformerFactoryOptions, 'byKind'>;
  private startSignal: AbortSignal | undefined;

  constructor(
    private readonly source: ListerWatcherSource,
    options: SharedInformerFactoryOptions = {},
  ) {
    const { byKind, ...informerOptions } = options;
    this.options = informerOptions;
    for (const scope of byKind ?? []) this.scopes.set(resourceId(scope.kind), scope);
  }

  /** The shared informer for `kind` within the requested scope, created on first request. */
  informerFor<T extends KubeObject>(kind: Kind<T>, request: InformerRequest<T> = {}): Informer<T> {
    return this.obtain(kind, request, false, () => this.source.listerWatcher(kind));
  }

  /** The shared metadata-only informer for `kind`: names, labels, annotations, owners and versions, at a fraction of the memory. */
  metadataInformerFor(kind: Kind, request: InformerRequest<PartialObjectMetadata> = {}): Informer<PartialObjectMetadata> {
    return this.obtain(kind, request, true, () => this.source.listerWatcher(kind, { metadataOnly: true }));
  }

  /**
   * The informer that {@link informerFor} (or {@link metadataInformerFor}) would
   * return for `request`, if it exists already; never creates one.
   *
   * @example
   * ```ts
   * import { Pod } from '@operant/runtime';
   *
   * const pods = informers.lookup(Pod); // undefined until someone asked for the Pod informer
   * const podMeta = informers.lookup(Pod, {}, true);
   * ```
   */
  lookup(kind: Kind, request: InformerScopeRequest = {}, metadataOnly = false): Informer<KubeObject> | undefined {
    const plain = isPlain(request) ? this.plainEntries.get(kind) : undefined;
    const known = metadataOnly ? plain?.metadata : plain?.full;
    if (known) return known.informer;
    if (!isPlain(request)) return this.entries.get(this.entryKey(kind, this.scopeOf(kind, request), metadataOnly))?.informer;
    const missed = this.plainMisses.get(kind);
    if ((metadataOnly ? missed?.metadata : missed?.full) === this.entries.size) return undefined;
    const informer = this.entries.get(this.entryKey(kind, this.scopeOf(kind, request), metadataOnly))?.informer;
    if (!informer) {
      const misses = missed ?? {};
      if (metadataOnly) misses.metadata = this.entries.size;
      else misses.full = this.entries.size;
      if (!missed) this.plainMisses.set(kind, misses);
    }
    return informer;
  }

  /**
   * The namespace and selectors an informer of `kind` gets for `request`: the
   * request's, else the kind's scope (`byKind`), else the factory's namespace.
   *
   * @example
   * ```ts
   * import { Secret } from '@operant/runtime';
   *
   * informers.scopeOf(Secret); // { namespace: 'operator-system', labelSelector: 'app=x', fieldSelector: '' }
   * ```
   */
  scopeOf(kind: Kind, request: InformerScopeRequest = {}): ResolvedScope {
    const scope = this.scopes.get(resourceId(kind));
    return {
      namespace: kind.namespaced ? (request.namespace ?? scope?.namespace ?? this.options.namespace ?? '') : '',
      labelSelector: canonical(request.labelSelector ?? scope?.labelSelector, parseLabelSelector),
      fieldSelector: canonical(request.fieldSelector ?? scope?.fieldSelector, parseFieldSelector),
    };
  }

  /**
   * Starts every informer not yet started; informers requested later start at
   * once. All stop when `signal` aborts.
   */
  startAll(signal: AbortSignal): void {
    this.startSignal = signal;
    for (const { informer } of this.entries.values()) if (informer.state === 'new') informer.start(signal);
  }

  /**
   * Resolves true once every started informer has synced, false if `signal`
   * aborts or one is stopped first. Rejects as soon as one stops by itself
   * (its kind is not served: {@link NoKindMatchError}), with that error.
   */
  async waitForCacheSync(signal?: AbortSignal): Promise<boolean> {
    const started = [...this.entries.values()].filter((e) => e.informer.state !== 'new');
    const results = await Promise.all(started.map((e) => e.informer.waitForCacheSync(signal)));
    return results.every(Boolean);
  }

  /** Stops every informer; resolves once all have ended. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.entries.values()].map((e) => e.informer.stop()));
  }

  /** The informers created so far. */
  informers(): Informer<KubeObject>[] {
    return [...this.entries.values()].map((e) => e.informer);
  }

  private obtain<T extends KubeObject>(kind: Kind, request: InformerRequest<T>, metadataOnly: boolean, makeLw: () => ListerWatcher<T>): Informer<T> {
    const plain = isPlain(request);
    if (plain) {
      const known = this.plainEntries.get(kind);
      const entry = metadataOnly ? known?.metadata : known?.full;
      if (entry) return entry.informer as unknown as Informer<T>;
    }
    const scope = this.scopeOf(kind, request);
    const { namespace, labelSelector, fieldSelector } = scope;
    const key = this.entryKey(kind, scope, metadataOnly);
    const transform = (request.transform ?? this.options.transform) as Transform<KubeObject> | undefined;
    let entry = this.entries.get(key);
    if (entry) {
      if (request.transform && entry.transform !== transform) {
        throw new Error(`the shared informer ${entry.informer.name} already exists with a different transform`);
      }
    } else {
      const informer = new Informer<T>(makeLw(), {
        ...this.options,
        name: informerName(kind, namespace, metadataOnly, labelSelector, fieldSelector),
        kind,
        namespace: namespace || undefined,
        labelSelector: labelSelector || undefined,
        fieldSelector: fieldSelector || undefined,
        transform: transform as Transform<T> | undefined,
      });
      entry = { informer: informer as unknown as Informer<KubeObject>, transform };
      this.entries.set(key, entry);
      if (this.startSignal) entry.informer.start(this.startSignal);
    }
    if (plain) {
      let known = this.plainEntries.get(kind);
      if (!known) this.plainEntries.set(kind, (known = {}));
      if (metadataOnly) known.metadata = entry;
      else known.full = entry;
    }
    const informer = entry.informer as unknown as Informer<T>;
    for (const [name, fn] of Object.entries(request.indexers ?? {})) {
      try {
        informer.store.addIndexer(name, fn);
      } catch {
        // Another controller registered this index first; index names are shared.
      }
    }
    return informer;
  }

  private entryKey(kind: Kind, scope: ResolvedScope, metadataOnly: boolean): string {
    return JSON.stringify([kind.group, kind.version, kind.plural, scope.namespace, scope.labelSelector, scope.fieldSelector, metadataOnly]);
  }
}

/** A request that names nothing: the kind's default scope, the factory's transform, no indexers. */
function isPlain(request: InformerRequest<never> | InformerScopeRequest): boolean {
  for (const key in request) if ((request as Record<string, unknown>)[key] !== undefined) return false;
  return true;
}

/** A kind's resource, version aside: `pods`, `deployments.apps`. */
function resourceId(kind: Kind): string {
  return kind.group ? `${kind.plural}.${kind.group}` : kind.plural;
}

/** `pods`, `deployments.apps`, `pods@default`, `secrets(metadata)`, `pods?labelSelector=app=web`. */
function informerName(kind: Kind, namespace: string, metadataOnly: boolean, labelSelector: string, fieldSelector: string): string {
  const resource = kind.group ? `${kind.plural}.${kind.group}` : kind.plural;
  const query = [labelSelector && `labelSelector=${labelSelector}`, fieldSelector && `fieldSelector=${fieldSelector}`].filter(Boolean).join('&');
  return `${resource}${metadataOnly ? '(metadata)' : ''}${namespace ? `@${namespace}` : ''}${query ? `?${query}` : ''}`;
}

/** A selector's canonical text (so `b=2,a=1` and `a=1,b=2` share an informer); unparsable text is kept as is for the server to reject. */
function canonical(selector: string | undefined, parse: (text: string) => { toString(): string }): string {
  if (!selector) return '';
  try {
    return parse(selector).toString();
  } catch {
    return selector;
  }
}

/**
 * The client side of the informer contract ({@link ListerWatcher}): a list
 * that pages through the whole collection (limit + continue, as client-go's
 * pager), falling back to one unpaged list when a continue token expires, and
 * a watch that asks for bookmarks. A list answered 404 asks discovery whether
 * the kind is served at all, and rejects with {@link NoKindMatchError} when it
 * is not: the one list failure that retrying cannot fix.
 */
import type { KubeObject } from '@operant/apimachinery';
import type { ListResult, ListWatchOptions, ListerWatcher, WatchEvent, WatchRequestOptions } from '../cache/list-watch.js';
import type { Kind } from '../kind.js';
import { NoKindMatchError } from '../no-kind-match.js';
import { isGone, isNotFound, isResourceExpired } from './api-error.js';
import type { KubeList, ListOptions, WatchOptions } from './options.js';

/**
 * Options of {@link Client.listerWatcher}.
 *
 * @example
 * ```ts
 * import { Pod } from '@operant/runtime';
 *
 * const lw = client.listerWatcher(Pod, { pageSize: 100 }); // smaller pages for very large collections
 * ```
 */
export interface ListerWatcherOptions {
  /** Items per list page; default 500 (client-go's pager default). */
  pageSize?: number;
}

/**
 * The client calls a {@link KindListerWatcher} is built on; {@link Client.listerWatcher}
 * supplies them, so the paging and relisting logic stays apart from HTTP.
 *
 * @example
 * ```ts
 * import type * as corev1 from 'kubernetes-types/core/v1.js';
 * import { ConfigMap, type ListWatchCalls, type Typed } from '@operant/runtime';
 * import { KindListerWatcher } from '@operant/runtime/cache';
 *
 * const calls: ListWatchCalls<Typed<corev1.ConfigMap>> = {
 *   list: (opts) => client.list(ConfigMap, { ...opts, live: true }),
 *   watch: (opts) => client.watch(ConfigMap, opts),
 * };
 * const lw = new KindListerWatcher(ConfigMap, { pageSize: 100 }, calls);
 * ```
 */
export interface ListWatchCalls<T extends KubeObject> {
  list(opts: ListOptions): Promise<KubeList<T>>;
  watch(opts: WatchOptions): AsyncIterable<WatchEvent<T>>;
  /** The chunk-at-a-time watch behind {@link ListerWatcher.watchBatches}; without it the ListerWatcher offers only `watch`. */
  watchBatches?(opts: WatchOptions, onEvents: (events: WatchEvent<T>[]) => void): Promise<void>;
  /**
   * Whether the server serves the kind (its discovery document lists the
   * resource); asked when a list answers 404. Without it a 404 is rethrown as is.
   */
  served?(signal?: AbortSignal): Promise<boolean>;
}

/**
 * Lists and watches one kind through a client.
 *
 * @example
 * ```ts
 * import type * as corev1 from 'kubernetes-types/core/v1.js';
 * import { Pod, type ListerWatcher, type Typed } from '@operant/runtime';
 *
 * const lw: ListerWatcher<Typed<corev1.Pod>> = client.listerWatcher(Pod, { pageSize: 500 });
 * ```
 */
export class KindListerWatcher<T extends KubeObject> implements ListerWatcher<T> {
  private readonly pageSize: number;
  /** Present when the calls can deliver a watch chunk by chunk (see {@link ListerWatcher.watchBatches}). */
  readonly watchBatches?: (opts: WatchRequest, onEvents: (events: WatchEvent<T>[]) => void) => Promise<void>;

  constructor(
    readonly kind: Kind,
    options: ListerWatcherOptions,
    private readonly calls: ListWatchCalls<T>,
  ) {
    this.pageSize = options.pageSize ?? 500;
    const watchBatches = calls.watchBatches?.bind(calls);
    if (watchBatches) this.watchBatches = (opts, onEvents) => watchBatches(watchOptions(opts), onEvents);
  }

  async list(opts: ListWatchOptions & { signal?: AbortSignal }): Promise<ListResult<T>> {
    const base: ListOptions = { namespace: opts.namespace, labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector, signal: opts.signal };
    const items: T[] = [];
    let token: string | undefined;
    for (;;) {
      let page: KubeList<T>;
      try {
        page = await this.calls.list({ ...base, limit: this.pageSize, continue: token });
      } catch (e) {
        // The snapshot behind the continue token is gone: list everything at once instead.
        if (token !== undefined && (isResourceExpired(e) || isGone(e))) {
          const full = await this.calls.list(base);
          return { items: full.items, resourceVersion: full.metadata.resourceVersion ?? '' };
        }
        if (isNotFound(e) && this.calls.served && !(await this.calls.served(opts.signal))) throw new NoKindMatchError(this.kind);
        throw e;
      }
      for (const item of page.items) items.push(item);
      token = page.metadata.continue || undefined;
      if (token === undefined) return { items, resourceVersion: page.metadata.resourceVersion ?? '' };
    }
  }

  watch(opts: WatchRequest): AsyncIterable<WatchEvent<T>> {
    return this.calls.watch(watchOptions(opts));
  }
}

/** What the informer asks a watch for. */
type WatchRequest = WatchRequestOptions;

function watchOptions(opts: WatchRequest): WatchOptions {
  return {
    namespace: opts.namespace,
    labelSelector: opts.labelSelector,
    fieldSelector: opts.fieldSelector,
    resourceVersion: opts.resourceVersion,
    allowWatchBookmarks: opts.allowWatchBookmarks ?? true,
    sendInitialEvents: opts.sendInitialEvents,
    resourceVersionMatch: opts.resourceVersionMatch,
    timeoutSeconds: opts.timeoutSeconds,
    signal: opts.signal,
  };
}

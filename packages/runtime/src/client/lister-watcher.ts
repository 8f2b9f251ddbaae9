/**
 * The client side of the informer contract ({@link ListerWatcher}): a list
 * that pages through the whole collection (limit + continue, as client-go's
 * pager), falling back to one unpaged list when a continue token expires, and
 * a watch that asks for bookmarks.
 */
import type { KubeObject } from '@operant/apimachinery';
import type { ListResult, ListWatchOptions, ListerWatcher, WatchEvent } from '../cache/list-watch.js';
import type { Kind } from '../kind.js';
import { isResourceExpired, isGone } from './api-error.js';
import type { KubeList, ListOptions, WatchOptions } from './options.js';

/** Options of {@link Client.listerWatcher}. */
export interface ListerWatcherOptions {
  /** Items per list page; default 500 (client-go's pager default). */
  pageSize?: number;
}

/** The client calls a ListerWatcher is built on. */
export interface ListWatchCalls<T extends KubeObject> {
  list(opts: ListOptions): Promise<KubeList<T>>;
  watch(opts: WatchOptions): AsyncIterable<WatchEvent<T>>;
}

/**
 * Lists and watches one kind through a client.
 *
 * @example
 * ```ts
 * const lw: ListerWatcher<Pod> = client.listerWatcher(Pod, { pageSize: 500 });
 * ```
 */
export class KindListerWatcher<T extends KubeObject> implements ListerWatcher<T> {
  private readonly pageSize: number;

  constructor(
    readonly kind: Kind,
    options: ListerWatcherOptions,
    private readonly calls: ListWatchCalls<T>,
  ) {
    this.pageSize = options.pageSize ?? 500;
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
        throw e;
      }
      for (const item of page.items) items.push(item);
      token = page.metadata.continue || undefined;
      if (token === undefined) return { items, resourceVersion: page.metadata.resourceVersion ?? '' };
    }
  }

  watch(
    opts: ListWatchOptions & { resourceVersion: string; allowWatchBookmarks?: boolean; timeoutSeconds?: number; signal?: AbortSignal },
  ): AsyncIterable<WatchEvent<T>> {
    return this.calls.watch({
      namespace: opts.namespace,
      labelSelector: opts.labelSelector,
      fieldSelector: opts.fieldSelector,
      resourceVersion: opts.resourceVersion,
      allowWatchBookmarks: opts.allowWatchBookmarks ?? true,
      timeoutSeconds: opts.timeoutSeconds,
      signal: opts.signal,
    });
  }
}

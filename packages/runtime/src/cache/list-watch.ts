/**
 * What an informer needs from a client: a paginated list and a watch that
 * yields events until the server ends it. The runtime's client implements it;
 * tests may implement it too.
 */
import type { KubeObject } from '@operant/apimachinery';

/**
 * What {@link ListerWatcher.list} returns: every object, and the collection's
 * resourceVersion, from which the watch continues.
 *
 * @example
 * ```ts
 * import type * as corev1 from 'kubernetes-types/core/v1.js';
 * import { type ListResult, Pod, type Typed } from '@operant/runtime';
 *
 * const { items, resourceVersion }: ListResult<Typed<corev1.Pod>> = await client.listerWatcher(Pod).list({ namespace: 'default' });
 * ```
 */
export interface ListResult<T extends KubeObject> {
  items: T[];
  resourceVersion: string;
}

/**
 * The type of a watch event, as the server sends it.
 *
 * @example
 * ```ts
 * import type { WatchEventType } from '@operant/runtime';
 *
 * const changed = (type: WatchEventType): boolean => type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED';
 * ```
 */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/**
 * One event of a watch: what happened, and to which object.
 *
 * @example
 * ```ts
 * import { Pod } from '@operant/runtime';
 *
 * for await (const event of client.watch(Pod, { namespace: 'default' })) {
 *   if (event.type === 'DELETED') console.log('gone:', event.object.metadata.name);
 * }
 * ```
 */
export interface WatchEvent<T extends KubeObject> {
  type: WatchEventType;
  /** The object; for ERROR, a metav1.Status; for BOOKMARK, only metadata.resourceVersion (and annotations). */
  object: T;
}

/**
 * Which objects a ListerWatcher lists and watches; selectors in kube's string syntax.
 *
 * @example
 * ```ts
 * import { type ListWatchOptions, Pod } from '@operant/runtime';
 *
 * const scope: ListWatchOptions = { namespace: 'default', labelSelector: 'app=web', fieldSelector: 'spec.nodeName=node-1' };
 * const { items } = await client.listerWatcher(Pod).list(scope);
 * ```
 */
export interface ListWatchOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

/**
 * What a {@link ListerWatcher}'s watch is asked for.
 *
 * @example
 * ```ts
 * import type { WatchRequestOptions } from '@operant/runtime';
 *
 * // A watch-list (kube's WatchList): the current objects as ADDED events, then a BOOKMARK annotated k8s.io/initial-events-end.
 * const opts: WatchRequestOptions = { resourceVersion: '', allowWatchBookmarks: true, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' };
 * ```
 */
export interface WatchRequestOptions extends ListWatchOptions {
  resourceVersion: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
  /** Start with the objects of the collection as ADDED events, then a bookmark that ends them (with `resourceVersionMatch: 'NotOlderThan'`). */
  sendInitialEvents?: boolean;
  resourceVersionMatch?: 'NotOlderThan';
  signal?: AbortSignal;
}

/**
 * A source of list and watch for one kind: what an {@link Informer} runs on.
 *
 * @example
 * ```ts
 * import type * as corev1 from 'kubernetes-types/core/v1.js';
 * import { type ListerWatcher, Pod, type Typed } from '@operant/runtime';
 * import { Informer } from '@operant/runtime/cache';
 *
 * const lw: ListerWatcher<Typed<corev1.Pod>> = client.listerWatcher(Pod);
 * const informer = new Informer(lw, { namespace: 'default' });
 * ```
 */
export interface ListerWatcher<T extends KubeObject> {
  /** Lists everything (following continue tokens), returning the list's resourceVersion. */
  list(opts: ListWatchOptions & { signal?: AbortSignal }): Promise<ListResult<T>>;
  /**
   * Watches from `resourceVersion`; the iterator ends when the server ends the
   * watch (timeout) and throws on transport errors. A 410 arrives as an ERROR event.
   */
  watch(opts: WatchRequestOptions): AsyncIterable<WatchEvent<T>>;
  /**
   * Optional, cheaper form of {@link watch} that informers use when present:
   * the events that arrive together (one network chunk) are handed to
   * `onEvents` in one synchronous call, in order, instead of one async step each.
   * Resolves when the server ends the watch, or as soon as `signal` aborts;
   * rejects on transport errors, and with what `onEvents` threw if it throws
   * (then closing the watch and calling it no more). A 410 arrives as an ERROR event.
   */
  watchBatches?(opts: WatchRequestOptions, onEvents: (events: WatchEvent<T>[]) => void): Promise<void>;
}

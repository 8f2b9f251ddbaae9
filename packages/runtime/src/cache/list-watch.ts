/**
 * What an informer needs from a client: a paginated list and a watch that
 * yields events until the server ends it. The runtime's client implements it;
 * tests may implement it too.
 */
import type { KubeObject } from '@operant/apimachinery';

export interface ListResult<T extends KubeObject> {
  items: T[];
  resourceVersion: string;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent<T extends KubeObject> {
  type: WatchEventType;
  /** The object; for ERROR, a metav1.Status; for BOOKMARK, only metadata.resourceVersion (and annotations). */
  object: T;
}

export interface ListWatchOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

/** A source of list and watch for one kind. */
export interface ListerWatcher<T extends KubeObject> {
  /** Lists everything (following continue tokens), returning the list's resourceVersion. */
  list(opts: ListWatchOptions & { signal?: AbortSignal }): Promise<ListResult<T>>;
  /**
   * Watches from `resourceVersion`; the iterator ends when the server ends the
   * watch (timeout) and throws on transport errors. A 410 arrives as an ERROR event.
   */
  watch(opts: ListWatchOptions & { resourceVersion: string; allowWatchBookmarks?: boolean; timeoutSeconds?: number; signal?: AbortSignal }): AsyncIterable<WatchEvent<T>>;
  /**
   * Optional, cheaper form of {@link watch} that informers use when present:
   * the events that arrive together (one network chunk) are handed to
   * `onEvents` in one synchronous call, in order, instead of one async step each.
   * Resolves when the server ends the watch, or as soon as `signal` aborts;
   * rejects on transport errors, and with what `onEvents` threw if it throws
   * (then closing the watch and calling it no more). A 410 arrives as an ERROR event.
   */
  watchBatches?(
    opts: ListWatchOptions & { resourceVersion: string; allowWatchBookmarks?: boolean; timeoutSeconds?: number; signal?: AbortSignal },
    onEvents: (events: WatchEvent<T>[]) => void,
  ): Promise<void>;
}

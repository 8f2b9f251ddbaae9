/**
 * Sources feed a controller's queue (controller-runtime's `pkg/source`): an
 * informer's events, filtered by predicates and mapped to requests by a
 * handler, or any async iterable of objects delivered as generic events.
 */
import type { KubeObject } from '@operant/apimachinery';
import { deletedObject, isTombstone, type Tombstone } from '../cache/tombstone.js';
import type { Informer } from '../cache/informer.js';
import type { Kind } from '../kind.js';
import { Priority } from '../workqueue/queue.js';

import { passesCreate, passesDelete, passesGeneric, passesUpdate, type Predicate } from './predicates.js';
import { requestsForUpdate, type RequestMapper } from './handlers.js';
import type { Request } from './request.js';
import type { LogMethods } from '../logging/log.js';

/**
 * Where a source puts requests: the controller's queue. `priority` follows
 * the work queue's {@link Priority}: `low` for the initial list and resyncs.
 *
 * @example
 * ```ts
 * import { type RequestQueue } from '@operant/runtime';
 * import { Priority } from '@operant/runtime/workqueue';
 *
 * declare const queue: RequestQueue; // what a source is given
 * queue.add({ namespace: 'default', name: 'web' }, Priority.low);
 * ```
 */
export interface RequestQueue {
  add(req: Request, priority?: number): void;
}

/**
 * What a source is given when its controller starts.
 *
 * @example
 * ```ts
 * import { ConfigMap, enqueueObject, kindSource, requestKey } from '@operant/runtime';
 * import { WorkQueue } from '@operant/runtime/workqueue';
 *
 * const work = new WorkQueue<string>();
 * const source = kindSource(informers.informerFor(ConfigMap), enqueueObject());
 * source.start({ queue: { add: (req) => work.add(requestKey(req)) }, signal, logger: log });
 * ```
 */
export interface SourceContext {
  readonly queue: RequestQueue;
  /** Aborts when the controller stops; the source must then stop delivering. */
  readonly signal: AbortSignal;
  readonly logger: LogMethods;
}

/**
 * A stream of requests for a controller.
 *
 * @example
 * ```ts
 * import type { Source } from '@operant/runtime';
 *
 * const everyMinute: Source = {
 *   description: 'ticker',
 *   start({ queue, signal }) {
 *     const t = setInterval(() => queue.add({ namespace: '', name: 'cluster-report' }), 60_000);
 *     signal.addEventListener('abort', () => clearInterval(t), { once: true });
 *   },
 *   waitForSync: async () => true,
 *   hasSynced: () => true,
 * };
 * ```
 */
export interface Source {
  /** Names the source in logs and errors, e.g. `configmaps`. */
  readonly description: string;
  /** The kind whose cache the source waits for, if any: names it in a sync timeout's error. */
  readonly kind?: Kind;
  /** Starts delivering requests to `context.queue`, until `context.signal` aborts. Returns at once. */
  start(context: SourceContext): void;
  /**
   * Resolves true once the source has delivered what existed when it started;
   * false if `signal` aborts or the source ends first. Rejects when the source
   * cannot ever sync (its kind is not served: {@link NoKindMatchError}).
   */
  waitForSync(signal: AbortSignal): Promise<boolean>;
  /** Whether {@link waitForSync} would resolve true now. */
  hasSynced(): boolean;
}

/**
 * The source for one informer: its adds, updates and deletes, filtered by
 * `predicates` (all must pass), mapped to requests by `mapper`. Initial-list
 * adds and resyncs are enqueued at low priority, so live changes overtake
 * the startup backlog. The informer is shared and is not started here: start
 * its {@link SharedInformerFactory} (the manager does).
 *
 * @example
 * ```ts
 * import { ConfigMap, enqueueOwner, kindSource, resourceVersionChanged, Secret } from '@operant/runtime';
 *
 * const source = kindSource(informers.informerFor(Secret), enqueueOwner(ConfigMap), [resourceVersionChanged()]);
 * ```
 */
export function kindSource<T extends KubeObject>(informer: Informer<T>, mapper: RequestMapper<T>, predicates: readonly Predicate<T>[] = []): Source {
  return {
    description: informer.name,
    kind: informer.kind,
    start({ queue, signal, logger }) {
      if (signal.aborted) return;
      if (informer.state === 'new') logger.info({ source: informer.name }, 'informer not started yet; waiting for it (start the SharedInformerFactory)');
      const enqueue = enqueuer(queue, logger, informer.name);
      const registration = informer.addEventHandler({
        add(object, isInInitialList) {
          if (!predicates.every((p) => passesCreate(p, { object, isInInitialList }))) return;
          enqueue(mapper(object), isInInitialList ? Priority.low : undefined);
        },
        update(oldObject, object) {
          if (!predicates.every((p) => passesUpdate(p, { oldObject, object }))) return;
          const unchanged = oldObject === object || oldObject.metadata.resourceVersion === object.metadata.resourceVersion;
          enqueue(requestsForUpdate(mapper, oldObject, object), unchanged ? Priority.low : undefined);
        },
        delete(deleted: T | Tombstone<T>) {
          const object = deletedObject(deleted);
          if (!predicates.every((p) => passesDelete(p, { object, deleteStateUnknown: isTombstone(deleted) }))) return;
          enqueue(mapper(object), undefined);
        },
      });
      signal.addEventListener('abort', () => registration.remove(), { once: true });
    },
    waitForSync: (signal) => informer.waitForCacheSync(signal),
    hasSynced: () => informer.hasSynced(),
  };
}

/**
 * A source of generic events: every object `objects` yields, filtered by the
 * predicates' `generic` functions and mapped to requests (controller-runtime's
 * `source.Channel`). Pass a function to receive the controller's stop signal,
 * so the iterable can end itself. A source that throws is logged and ends.
 *
 * @example
 * ```ts
 * import { channelSource, ConfigMap, requestFor, type KubeObject } from '@operant/runtime';
 *
 * declare function externalChanges(signal: AbortSignal): AsyncIterable<KubeObject>; // e.g. a cloud provider's event feed
 * const source = channelSource((signal) => externalChanges(signal), (obj: KubeObject) => [requestFor(obj)]);
 * mgr.controller('sync').for(ConfigMap).watchesRawSource(source).reconcile((req) => log.info({ req }, 'external change'));
 * ```
 */
export function channelSource<T extends KubeObject>(
  objects: AsyncIterable<T> | ((signal: AbortSignal) => AsyncIterable<T>),
  mapper: RequestMapper<T>,
  predicates: readonly Predicate<T>[] = [],
  description = 'channel',
): Source {
  return {
    description,
    start({ queue, signal, logger }) {
      if (signal.aborted) return;
      const iterable = typeof objects === 'function' ? objects(signal) : objects;
      const enqueue = enqueuer(queue, logger, description);
      void pump(iterable, signal, (object) => {
        if (predicates.every((p) => passesGeneric(p, { object }))) enqueue(mapper(object), undefined);
      }).catch((err: unknown) => logger.error({ source: description, err }, 'source failed; it delivers no more events'));
    },
    waitForSync: async () => true,
    hasSynced: () => true,
  };
}

/** Feeds `deliver` until the iterable ends or `signal` aborts; on abort asks the iterator to finish. */
async function pump<T>(iterable: AsyncIterable<T>, signal: AbortSignal, deliver: (item: T) => void): Promise<void> {
  const iterator = iterable[Symbol.asyncIterator]();
  let onAbort: () => void = () => {};
  const aborted = new Promise<IteratorResult<T>>((resolve) => {
    onAbort = () => resolve({ done: true, value: undefined });
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), aborted]);
      if (next.done || signal.aborted) break;
      deliver(next.value);
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    if (signal.aborted) void Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
}

/** Adds requests to the queue, skipping (with a warning) requests without a name. */
function enqueuer(queue: RequestQueue, logger: LogMethods, source: string): (requests: Iterable<Request>, priority: number | undefined) => void {
  return (requests, priority) => {
    for (const req of requests) {
      if (!req || !req.name) {
        logger.warn({ source, request: req }, 'ignoring a request without a name from a handler or mapping function');
        continue;
      }
      queue.add(req, priority);
    }
  };
}

/**
 * An informer: a reflector keeping a store in sync, plus the ways to hear about
 * changes: event handlers (the sample-controller style) and async iteration.
 *
 * Metadata-only informers need nothing special here: give the informer a
 * ListerWatcher that lists and watches `PartialObjectMetadata` (the server's
 * `as=PartialObjectMetadata` responses, e.g. `client.listerWatcher(kind, { metadataOnly: true })`);
 * it is then an `Informer<PartialObjectMetadata>`.
 *
 * An informer whose first list finds its kind not served stops by itself, and
 * its sync waiters reject with that {@link NoKindMatchError}: nobody waits forever
 * for a CRD that is not installed.
 */
import type { KubeObject } from '@operant/apimachinery';
import type { Kind } from '../kind.js';
import type { Clock } from '../workqueue/clock.js';
import type { ListerWatcher, ListWatchOptions } from './list-watch.js';
import type { EventHandler, HandlerRegistration, InformerEvent } from './events.js';
import type { IndexFunc } from './indexes.js';
import type { Transform } from './transform.js';
import type { BackoffOptions } from './backoff.js';
import type { ReflectorMetricsProvider } from './metrics.js';
import { Store, type StoreReader } from './store.js';
import { Reflector, type ReflectorStats } from './reflector.js';
import { HandlerSet } from './handler-set.js';
import { EventStream } from './event-stream.js';
import { stderrLogger } from './logger.js';
import type { LogMethods } from '../logging/log.js';

/**
 * Configuration of an {@link Informer}.
 *
 * @example
 * ```ts
 * import type * as corev1 from 'kubernetes-types/core/v1.js';
 * import { type InformerOptions, type Typed } from '@operant/runtime';
 * import { dropManagedFields } from '@operant/runtime/cache';
 *
 * const options: InformerOptions<Typed<corev1.Pod>> = {
 *   namespace: 'default',
 *   labelSelector: 'app=web',
 *   transform: dropManagedFields,
 *   indexers: { byNode: (pod) => (pod.spec?.nodeName ? [pod.spec.nodeName] : []) },
 * };
 * ```
 */
export interface InformerOptions<T extends KubeObject> extends ListWatchOptions {
  /** Names the informer in logs and metrics (default `informer`). */
  name?: string;
  /** The kind it caches, when known (a {@link SharedInformerFactory} tells it): names it in errors. */
  kind?: Kind;
  /** Applied to every object before it is cached and delivered (e.g. {@link dropManagedFields}). */
  transform?: Transform<T>;
  /** Indexes to create before the first list. */
  indexers?: Record<string, IndexFunc<T>>;
  /** Re-deliver every cached object as an update this often (default: never). */
  resyncPeriodMs?: number;
  /** Where failures and notable events are logged (default: warnings and errors to stderr). */
  logger?: LogMethods;
  metrics?: ReflectorMetricsProvider;
  /** Reconnect delays (default 800 ms doubling to 30 s, with jitter, reset after 2 quiet minutes). */
  backoff?: BackoffOptions;
  /** See {@link ReflectorOptions.watchTimeoutSeconds} (default 300; 0 leaves it to the server). */
  watchTimeoutSeconds?: number;
  clock?: Clock;
  /** Random source for jitter. */
  random?: () => number;
  /** See {@link ReflectorOptions.watchList}: sync with one watch-list request (kube 1.27+'s WatchList) instead of a list and a watch. */
  watchList?: boolean;
}

/**
 * Options of {@link Informer.events}.
 *
 * @example
 * ```ts
 * informer.events({ signal, replay: false });
 * ```
 */
export interface EventsOptions {
  /** Ends the iteration when aborted. */
  signal?: AbortSignal;
  /** Start with the current contents as adds (default true), as a late handler gets. */
  replay?: boolean;
}

/**
 * Where an informer is in its life: created, running (started, not yet stopped), or stopped for good.
 *
 * @example
 * ```ts
 * if (informer.state === 'new') informer.start(signal);
 * ```
 */
export type InformerState = 'new' | 'running' | 'stopped';

/**
 * A cache of one collection kept in sync with the server, with change notifications.
 *
 * @example
 * ```ts
 * import { Pod } from '@operant/runtime';
 * import { deletedObject, dropManagedFields, Informer, objectKey } from '@operant/runtime/cache';
 * import { WorkQueue } from '@operant/runtime/workqueue';
 *
 * const queue = new WorkQueue<string>();
 * const informer = new Informer(client.listerWatcher(Pod), { namespace: 'default', transform: dropManagedFields });
 * informer.store.addIndexer('byNode', (pod) => (pod.spec?.nodeName ? [pod.spec.nodeName] : []));
 * informer.addEventHandler({
 *   add: (pod) => queue.add(objectKey(pod)),
 *   update: (_old, pod) => queue.add(objectKey(pod)),
 *   delete: (pod) => queue.add(objectKey(deletedObject(pod))),
 * });
 * const ac = new AbortController();
 * informer.start(ac.signal);
 * if (!(await informer.waitForCacheSync(ac.signal))) throw new Error('never synced');
 * informer.store.byIndex('byNode', 'node-1');
 * ac.abort(); // or: await informer.stop();
 * ```
 */
export class Informer<T extends KubeObject> {
  readonly name: string;
  /** The kind it caches, when it was given one. */
  readonly kind: Kind | undefined;
  /** The cache: read it, add indexes to it; only the informer writes it. */
  readonly store: StoreReader<T>;
  private readonly writableStore: Store<T>;
  private readonly reflector: Reflector<T>;
  private readonly handlers: HandlerSet<T>;
  private readonly streams = new Set<EventStream<InformerEvent<T>>>();
  private readonly syncWaiters = new Set<(synced: boolean) => void>();
  private readonly logger: LogMethods;
  private lifecycle: InformerState = 'new';
  /** Why the informer stopped by itself (its kind is not served), if it did. */
  private failure: { error: unknown } | undefined;
  private readonly abort = new AbortController();
  private done: Promise<void> = Promise.resolve();
  private detachSignal: () => void = () => {};

  constructor(listerWatcher: ListerWatcher<T>, options: InformerOptions<T> = {}) {
    this.name = options.name ?? 'informer';
    this.kind = options.kind;
    this.logger = options.logger ?? stderrLogger;
    const store = new Store<T>({
      transform: options.transform,
      indexers: options.indexers,
      onError: (err, ctx) => this.logger.error({ informer: this.name, err, ...ctx }, `${ctx.during} function threw`),
    });
    this.writableStore = store;
    this.store = store;
    this.handlers = new HandlerSet<T>((err, event) => this.logger.error({ informer: this.name, err, event }, 'event handler threw'));
    this.reflector = new Reflector<T>({
      name: this.name,
      listerWatcher,
      store,
      scope: { namespace: options.namespace, labelSelector: options.labelSelector, fieldSelector: options.fieldSelector },
      onEvent: (event) => this.dispatch(event),
      onSynced: () => this.settleSyncWaiters(true),
      resyncPeriodMs: options.resyncPeriodMs,
      backoff: options.backoff,
      watchTimeoutSeconds: options.watchTimeoutSeconds,
      logger: this.logger,
      metrics: options.metrics,
      clock: options.clock,
      random: options.random,
      watchList: options.watchList,
    });
  }

  /**
   * Starts listing and watching; returns at once. The informer runs until
   * `signal` aborts or {@link stop} is called. An informer starts only once.
   */
  start(signal?: AbortSignal): void {
    if (this.lifecycle !== 'new') throw new Error(`informer ${this.name} was already started`);
    if (signal?.aborted) {
      this.finish();
      return;
    }
    this.lifecycle = 'running';
    if (signal) {
      const onAbort = (): void => void this.stop();
      signal.addEventListener('abort', onAbort, { once: true });
      this.detachSignal = () => signal.removeEventListener('abort', onAbort);
    }
    this.done = this.reflector.run(this.abort.signal).then(
      () => this.finish(),
      (err: unknown) => {
        this.failure = { error: err };
        this.logger.error({ informer: this.name, err }, 'informer stopped by an error; it delivers no more events');
        this.finish();
      },
    );
  }

  /** Stops the informer; resolves once every request, timer and iteration has ended. */
  stop(): Promise<void> {
    if (this.lifecycle === 'new') {
      this.lifecycle = 'stopped';
      this.finish();
      return Promise.resolve();
    }
    this.abort.abort();
    return this.done;
  }

  /** Created, running, or stopped. */
  get state(): InformerState {
    return this.lifecycle;
  }

  /** True once started and not yet stopped. */
  get running(): boolean {
    return this.lifecycle === 'running';
  }

  /** True once the first list has been applied to the store and delivered to the handlers. */
  hasSynced(): boolean {
    return this.reflector.hasSynced();
  }

  /**
   * Resolves true once the cache has synced, or false if `signal` aborts or the
   * informer is stopped first. Rejects with the error that stopped the
   * informer by itself: {@link NoKindMatchError}, its kind is not served.
   */
  waitForCacheSync(signal?: AbortSignal): Promise<boolean> {
    if (this.hasSynced()) return Promise.resolve(true);
    if (this.failure) return Promise.reject(this.failure.error);
    if (this.lifecycle === 'stopped' || signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve, reject) => {
      const settle = (synced: boolean): void => {
        this.syncWaiters.delete(settle);
        signal?.removeEventListener('abort', onAbort);
        if (!synced && this.failure) reject(this.failure.error);
        else resolve(synced);
      };
      const onAbort = (): void => settle(false);
      this.syncWaiters.add(settle);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * Registers handlers. The current contents are delivered first as adds (with
   * `isInInitialList` true), then every later change, with nothing missed or repeated.
   */
  addEventHandler(handler: EventHandler<T>): HandlerRegistration {
    return this.handlers.add(handler, this.writableStore.list(), () => this.hasSynced());
  }

  /**
   * The changes as an async iterator: by default the current contents as adds,
   * then every change until the informer stops, `signal` aborts, or the loop breaks.
   * Events are buffered without bound while the consumer is busy.
   *
   * @example
   * ```ts
   * import { objectKey } from '@operant/runtime/cache';
   *
   * for await (const ev of informer.events({ signal })) {
   *   if (ev.type !== 'delete') console.log(ev.type, objectKey(ev.object));
   * }
   * ```
   */
  events(options: EventsOptions = {}): AsyncIterableIterator<InformerEvent<T>> {
    const { signal, replay = true } = options;
    let registration: HandlerRegistration | undefined;
    const onAbort = (): void => stream.end();
    const stream: EventStream<InformerEvent<T>> = new EventStream(() => {
      registration?.remove();
      this.streams.delete(stream);
      signal?.removeEventListener('abort', onAbort);
    });
    if (this.lifecycle === 'stopped' || signal?.aborted) {
      stream.end();
      return stream;
    }
    this.streams.add(stream);
    signal?.addEventListener('abort', onAbort, { once: true });
    registration = this.handlers.add(
      {
        add: (object, isInInitialList) => stream.push({ type: 'add', object, isInInitialList }),
        update: (oldObject, object) =>
          stream.push(oldObject === object ? { type: 'update', oldObject, object, resync: true } : { type: 'update', oldObject, object }),
        delete: (object) => stream.push({ type: 'delete', object }),
      },
      replay ? this.writableStore.list() : [],
      () => this.hasSynced(),
    );
    return stream;
  }

  /** Health figures: errors, lists, watches, last sync time, resourceVersion. */
  stats(): ReflectorStats {
    return this.reflector.stats();
  }

  private dispatch(event: InformerEvent<T>): void {
    this.handlers.dispatch(event);
  }

  private settleSyncWaiters(synced: boolean): void {
    for (const settle of [...this.syncWaiters]) settle(synced);
  }

  private finish(): void {
    this.lifecycle = 'stopped';
    this.detachSignal();
    this.settleSyncWaiters(false);
    for (const stream of [...this.streams]) stream.end();
  }
}

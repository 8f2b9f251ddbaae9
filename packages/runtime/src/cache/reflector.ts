/**
 * The reflector keeps a {@link Store} equal to the server's state of one
 * collection and reports every change it makes.
 *
 * How (client-go's reflector.go and kube-rs's watcher.rs, in spirit):
 * 1. List, replace the store's contents, and note the list's resourceVersion.
 * 2. Watch from that resourceVersion with bookmarks; apply each event and note
 *    its resourceVersion (bookmarks only move the resourceVersion on).
 * 3. When the server ends a watch (its timeout), watch again from the last
 *    resourceVersion seen: no relist, nothing re-delivered.
 * 4. On a 410 (an ERROR event with code 410, or a thrown error with code 410)
 *    the server no longer has that history: relist, and report the difference
 *    from the store: adds, updates, and deletes as tombstones for what vanished.
 * 5. On any other failure, report it (logger and metrics), wait an exponential,
 *    jittered delay, and try again: the watch from the last resourceVersion, or
 *    the list if there is none yet. A watch that lost its connection (a server
 *    restarting) is logged at debug level for its first few failures in a row,
 *    as client-go's reflector does, then as a warning. The reflector only stops
 *    on its signal, with one exception:
 * 6. A first list that finds the kind not served ({@link NoKindMatchError}: a
 *    CRD not installed) ends the run with that error, as controller-runtime
 *    fails at start: a configuration error, not a transient one, and whoever
 *    waits for the sync must hear of it rather than wait forever. Once synced,
 *    the same error (a CRD deleted while running) is retried like any other.
 *
 * With `watchList`, step 1 is a watch-list instead (kube's WatchList, client-go's
 * `UseWatchList`): one watch asked for the collection's objects as ADDED events,
 * then a bookmark annotated `k8s.io/initial-events-end`, at which the store is
 * replaced as after a list; the same watch then goes on as in step 2. A
 * watch-list that fails before its initial events end (a server with the
 * feature off answers 422) is followed by a list and a watch, as client-go falls
 * back: making progress is better than waiting.
 */
import type { KubeObject } from '@operant/apimachinery';
import { realClock, type Clock, type Timer } from '../workqueue/clock.js';
import type { ListerWatcher, ListResult, ListWatchOptions, WatchEvent, WatchRequestOptions } from './list-watch.js';
import type { InformerEvent } from './events.js';
import type { Store } from './store.js';
import { objectKey } from './keys.js';
import { Backoff, type BackoffOptions } from './backoff.js';
import { abortable, sleep } from './abort.js';
import { stderrLogger } from './logger.js';
import { noopReflectorMetricsProvider, type ReflectorMetricsProvider, type ReflectorPhase } from './metrics.js';
import { WatchStalledError, WatchStatusError, errorMessage, failureReason, isConnectionFailure, needsRelist } from './watch-errors.js';
import { NoKindMatchError } from '../no-kind-match.js';
import type { LogMethods } from '../logging/log.js';

/**
 * Consecutive connection failures of the watch (the server restarting or out
 * of reach) logged at debug level before they are logged as warnings: with the
 * default back-off, some 25 s of outage. A restart is retried quietly, as
 * client-go's reflector does; an outage that lasts is still reported.
 */
const quietConnectionFailures = 5;
/** A watch that ends by itself sooner than this with no event at all is suspicious: the next one waits a backoff delay. */
const minHealthyWatchMs = 1000;
/** How long past its requested timeout a watch the server has not ended is given before it is presumed dead. */
const stallGraceMs = 30_000;
/** How long a stopped watch's source is given to close its connection. */
const closeGraceMs = 1000;

/**
 * Configuration of a {@link Reflector}.
 *
 * @example
 * ```ts
 * import type * as corev1 from 'kubernetes-types/core/v1.js';
 * import { Pod, type ReflectorOptions, type Typed } from '@operant/runtime';
 * import { Store } from '@operant/runtime/cache';
 *
 * const options: ReflectorOptions<Typed<corev1.Pod>> = {
 *   name: 'pods',
 *   listerWatcher: client.listerWatcher(Pod),
 *   store: new Store(),
 *   scope: { namespace: 'default' },
 *   onEvent: (ev) => console.log(ev.type),
 * };
 * ```
 */
export interface ReflectorOptions<T extends KubeObject> {
  /** Names the reflector in logs and metrics (e.g. `pods`, `deployments.apps`). */
  name: string;
  listerWatcher: ListerWatcher<T>;
  /** The store to keep in sync; the reflector is its only writer. */
  store: Store<T>;
  /** Namespace and selectors of the lists and watches. */
  scope?: ListWatchOptions;
  /** Told of every change, after the store has been updated. */
  onEvent: (event: InformerEvent<T>) => void;
  /** Called once, after the first list has been applied and its events reported. */
  onSynced?: () => void;
  /** Re-deliver every cached object as an update this often (0 or absent: never). */
  resyncPeriodMs?: number;
  /** Delays between retries (default 800 ms doubling to 30 s, with jitter). */
  backoff?: BackoffOptions;
  /**
   * Each watch asks the server to end it after a random time between this and
   * twice this (default 300 s, as client-go), which spreads reconnects; 0 leaves
   * the duration to the server. A watch the server has not ended 30 s past its
   * timeout (a dead connection) is abandoned, reported as `WatchStalled`, and replaced.
   */
  watchTimeoutSeconds?: number;
  logger?: LogMethods;
  metrics?: ReflectorMetricsProvider;
  clock?: Clock;
  /** Random source for jitter (tests make it deterministic). */
  random?: () => number;
  /** Sync with one watch-list request instead of a list and a watch (see the module's notes); default false. */
  watchList?: boolean;
}

/**
 * A snapshot of a reflector's health.
 *
 * @example
 * ```ts
 * const { errors, lastSyncTime } = informer.stats();
 * ```
 */
export interface ReflectorStats {
  /** The last resourceVersion seen (from a list, an event or a bookmark). */
  resourceVersion: string | undefined;
  /** The first list has been applied. */
  synced: boolean;
  /** Lists done, the first included. */
  lists: number;
  /** Watch requests started. */
  watches: number;
  /** Failures reported (410s included). */
  errors: number;
  /** Failures since the last success. */
  consecutiveFailures: number;
  /** Epoch milliseconds at which the cache was last known to be in sync. */
  lastSyncTime: number | undefined;
  /** The message of the last failure. */
  lastError: string | undefined;
}

/**
 * Lists and watches one collection into a store, forever, until its signal aborts.
 *
 * @example
 * ```ts
 * import type * as corev1 from 'kubernetes-types/core/v1.js';
 * import { Pod, type Typed } from '@operant/runtime';
 * import { Reflector, Store } from '@operant/runtime/cache';
 *
 * const store = new Store<Typed<corev1.Pod>>();
 * const reflector = new Reflector({ name: 'pods', listerWatcher: client.listerWatcher(Pod), store, onEvent: (ev) => console.log(ev.type) });
 * const controller = new AbortController();
 * const done = reflector.run(controller.signal);
 * // ... later
 * controller.abort();
 * await done;
 * ```
 */
export class Reflector<T extends KubeObject> {
  private readonly name: string;
  private readonly lw: ListerWatcher<T>;
  private readonly store: Store<T>;
  private readonly scope: ListWatchOptions;
  private readonly logger: LogMethods;
  private readonly metrics: ReflectorMetricsProvider;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly backoff: Backoff;
  private readonly watchTimeoutSeconds: number;
  private running = false;
  private needsList = true;
  /** This round's watch-list failed before its initial events ended: list instead. */
  private listInstead = false;
  /** 410s since the last watch event: after the first, relists wait a backoff delay. */
  private expiredInARow = 0;
  /** Watch events were applied since the sync time was last noted. */
  private progressed = false;
  private readonly state: ReflectorStats = {
    resourceVersion: undefined,
    synced: false,
    lists: 0,
    watches: 0,
    errors: 0,
    consecutiveFailures: 0,
    lastSyncTime: undefined,
    lastError: undefined,
  };

  constructor(private readonly options: ReflectorOptions<T>) {
    this.name = options.name;
    this.lw = options.listerWatcher;
    this.store = options.store;
    this.scope = pickScope(options.scope);
    this.logger = options.logger ?? stderrLogger;
    this.metrics = options.metrics ?? noopReflectorMetricsProvider;
    this.clock = options.clock ?? realClock;
    this.random = options.random ?? Math.random;
    this.backoff = new Backoff(options.backoff, this.clock, this.random);
    this.watchTimeoutSeconds = options.watchTimeoutSeconds ?? 300;
  }

  /** A copy of the current health figures. */
  stats(): ReflectorStats {
    return { ...this.state };
  }

  /** True once the first list has been applied. */
  hasSynced(): boolean {
    return this.state.synced;
  }

  /**
   * Lists and watches until `signal` aborts; resolves then. Rejects only when
   * the first list finds the kind not served ({@link NoKindMatchError}).
   * Pending requests, sleeps and the resync timer all end with the signal.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.running) throw new Error(`reflector ${this.name} is already running`);
    this.running = true;
    const stopResync = this.startResync(signal);
    let phase: ReflectorPhase = 'list';
    try {
      while (!signal.aborted) {
        let initial: InitialEvents<T> | undefined;
        try {
          if (this.needsList && this.options.watchList && !this.listInstead) {
            phase = 'list';
            initial = new InitialEvents<T>();
          } else if (this.needsList) {
            phase = 'list';
            this.listInstead = false;
            await this.listAndReplace(signal);
            if (signal.aborted) break;
          }
          phase = 'watch';
          const healthy = await this.watchOnce(signal, initial);
          if (!healthy && !signal.aborted) {
            const delay = this.backoff.next();
            this.logger.debug({ informer: this.name, retryInMs: delay }, 'watch ended early without events; waiting before the next one');
            await sleep(delay, signal, this.clock);
          }
        } catch (err) {
          if (signal.aborted) break;
          if (!this.state.synced && err instanceof NoKindMatchError) throw this.counted(err, phase);
          // Only a watch-list that failed before its initial events ended is followed by a list at once; a
          // failed list is counted and waited for like any failure (the next round tries the watch-list again).
          if (initial && this.needsList) {
            this.listInstead = true;
            this.logger.debug({ informer: this.name, err: errorMessage(err) }, 'the watch-list failed before its initial events ended; listing instead');
            continue;
          }
          await this.recover(err, phase, signal);
        }
      }
    } finally {
      stopResync();
      this.running = false;
    }
  }

  private async listAndReplace(signal: AbortSignal): Promise<void> {
    const started = this.clock.now();
    const result = await abortable(Promise.resolve().then(() => this.lw.list({ ...this.scope, signal })), signal);
    if (signal.aborted) return;
    this.replace(result, started);
  }

  /** Makes the store hold a list's objects (or a watch-list's initial events) and reports the difference. */
  private replace(result: ListResult<T>, started: number): void {
    const initial = !this.state.synced;
    const diff = this.store.replace(result.items);
    this.needsList = false;
    this.state.lists++;
    this.state.consecutiveFailures = 0;
    this.setResourceVersion(result.resourceVersion);
    this.metrics.listed(this.name, result.items.length, (this.clock.now() - started) / 1000);
    this.logger.debug(
      { informer: this.name, items: result.items.length, resourceVersion: result.resourceVersion, added: diff.added.length, updated: diff.updated.length, deleted: diff.deleted.length },
      initial ? 'listed' : 'relisted',
    );
    for (const object of diff.added) this.emit({ type: 'add', object, isInInitialList: initial });
    for (const { old, current } of diff.updated) this.emit({ type: 'update', oldObject: old, object: current });
    for (const tombstone of diff.deleted) this.emit({ type: 'delete', object: tombstone });
    if (initial) {
      this.state.synced = true;
      this.options.onSynced?.();
    }
  }

  /**
   * One watch, from the last resourceVersion until it ends; false when it
   * ended suspiciously early. With `initial`, a watch-list: its first events
   * are gathered there and replace the store at the bookmark that ends them.
   */
  private async watchOnce(signal: AbortSignal, initial?: InitialEvents<T>): Promise<boolean> {
    const watchAbort = new AbortController();
    const onAbort = (): void => watchAbort.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const timeoutSeconds = this.watchTimeoutSeconds > 0 ? Math.floor(this.watchTimeoutSeconds * (1 + this.random())) : undefined;
    let watchdog: Timer | undefined;
    if (timeoutSeconds !== undefined) {
      const afterMs = timeoutSeconds * 1000 + stallGraceMs;
      watchdog = this.clock.setTimer(() => watchAbort.abort(new WatchStalledError(afterMs)), afterMs);
    }
    // Settles when the watch is stopped (our signal, or the watchdog): one listener for the whole
    // watch, raced once against its end, so that a source ignoring its signal cannot hold us.
    const stopped = new Promise<void>((resolve) => watchAbort.signal.addEventListener('abort', () => resolve(), { once: true }));
    this.state.watches++;
    this.metrics.watchStarted(this.name);
    const started = this.clock.now();
    let events = 0;
    let gathering = initial;
    const onEvents = (batch: readonly WatchEvent<T>[]): void => {
      if (watchAbort.signal.aborted) return;
      events += batch.length;
      if (!gathering) {
        this.applyBatch(batch);
        return;
      }
      const rest = gathering.take(batch);
      if (rest === undefined) return;
      this.replace(gathering.result(), started);
      gathering = undefined;
      if (rest.length > 0) this.applyBatch(rest);
    };
    const opts: WatchRequestOptions = { ...this.scope, resourceVersion: this.state.resourceVersion ?? '', allowWatchBookmarks: true, timeoutSeconds, signal: watchAbort.signal };
    if (initial) {
      opts.sendInitialEvents = true;
      opts.resourceVersionMatch = 'NotOlderThan';
    }
    let iterator: AsyncIterator<WatchEvent<T>> | undefined;
    let ended: Promise<void> | undefined;
    try {
      if (this.lw.watchBatches) {
        ended = this.lw.watchBatches(opts, onEvents);
      } else {
        iterator = this.lw.watch(opts)[Symbol.asyncIterator]();
        ended = eachEvent(iterator, watchAbort.signal, onEvents);
      }
      await Promise.race([ended, stopped]);
      // Stopped by the watchdog (not by our signal): report it as a failure.
      if (watchAbort.signal.aborted && !signal.aborted) throw watchAbort.signal.reason;
      if (gathering && !signal.aborted) throw new Error('the watch-list ended before its initial events did');
    } finally {
      watchdog?.cancel();
      signal.removeEventListener('abort', onAbort);
      if (!watchAbort.signal.aborted) watchAbort.abort();
      await this.close(iterator, ended);
    }
    return events > 0 || this.clock.now() - started >= minHealthyWatchMs;
  }

  /**
   * Ends a watch and waits, up to a bound, for it to finish (its connection
   * closed), so that stopping leaves nothing open behind. A source that
   * ignores its signal is not waited for beyond the bound.
   */
  private async close(iterator: AsyncIterator<WatchEvent<T>> | undefined, ended: Promise<void> | undefined): Promise<void> {
    // Whatever the watch's end brings now (an error after we stopped, say) has been dealt with.
    let closing: Promise<unknown> | undefined = ended?.catch(() => {});
    if (iterator) {
      if (!iterator.return) return;
      try {
        closing = Promise.resolve(iterator.return()).catch(() => {});
      } catch {
        return; // a source whose return() throws has nothing left to close
      }
    }
    if (!closing) return;
    let timer: Timer | undefined;
    const bound = new Promise<void>((resolve) => (timer = realClock.setTimer(resolve, closeGraceMs)));
    await Promise.race([closing, bound]);
    timer?.cancel();
  }

  /**
   * Applies the events that arrived together. The sync time (a clock read and
   * a metrics call) is noted once per batch, not per event.
   */
  private applyBatch(batch: readonly WatchEvent<T>[]): void {
    try {
      for (let i = 0; i < batch.length; i++) this.apply(batch[i]!);
    } finally {
      if (this.progressed) {
        this.progressed = false;
        this.markSynced();
      }
    }
  }

  private apply(event: WatchEvent<T>): void {
    switch (event.type) {
      case 'ADDED':
      case 'MODIFIED':
        this.applyUpsert(event.object);
        break;
      case 'DELETED':
        this.applyDelete(event.object);
        break;
      case 'BOOKMARK':
        this.noteProgress(event.object);
        break;
      case 'ERROR':
        throw new WatchStatusError(event.object);
      default:
        this.logger.warn({ informer: this.name, type: String((event as { type: unknown }).type) }, 'ignoring a watch event of unknown type');
    }
  }

  private applyUpsert(obj: T): void {
    const key = this.keyOrSkip(obj);
    if (key === undefined) return;
    const cached = this.store.get(key);
    const rv = obj.metadata.resourceVersion;
    // The same version again (e.g. an ADDED for what the list already had): nothing changed.
    if (cached && rv !== undefined && cached.metadata.resourceVersion === rv) {
      this.noteProgress(obj);
      return;
    }
    const { old, current } = this.store.upsert(obj, key);
    this.noteProgress(obj);
    this.emit(old ? { type: 'update', oldObject: old, object: current } : { type: 'add', object: current, isInInitialList: false });
  }

  private applyDelete(obj: T): void {
    const key = this.keyOrSkip(obj);
    if (key === undefined) return;
    const old = this.store.delete(key);
    this.noteProgress(obj);
    if (old) this.emit({ type: 'delete', object: this.store.prepare(obj) });
  }

  private keyOrSkip(obj: T): string | undefined {
    try {
      return objectKey(obj);
    } catch (err) {
      this.logger.warn({ informer: this.name, err }, 'ignoring a watch event whose object has no name');
      return undefined;
    }
  }

  /** A watch event arrived: the cache is current as of its resourceVersion (noted as synced at the end of the batch). */
  private noteProgress(obj: KubeObject): void {
    this.expiredInARow = 0;
    this.state.consecutiveFailures = 0;
    const rv = obj.metadata?.resourceVersion;
    if (rv) this.state.resourceVersion = rv;
    this.progressed = true;
  }

  private setResourceVersion(rv: string): void {
    this.state.resourceVersion = rv;
    this.markSynced();
  }

  private markSynced(): void {
    const now = Date.now();
    this.state.lastSyncTime = now;
    this.metrics.synced(this.name, now / 1000);
  }

  /** Counts a failure in the stats and metrics; returns it. */
  private counted<E>(err: E, phase: ReflectorPhase): E {
    this.state.errors++;
    this.state.consecutiveFailures++;
    this.state.lastError = errorMessage(err);
    this.metrics.errored(this.name, phase, failureReason(err));
    return err;
  }

  /** Reports a failure and waits as appropriate before the loop tries again. */
  private async recover(err: unknown, phase: ReflectorPhase, signal: AbortSignal): Promise<void> {
    this.counted(err, phase);
    const fields = { informer: this.name, phase, reason: failureReason(err), err: errorMessage(err), resourceVersion: this.state.resourceVersion };
    if (needsRelist(err)) {
      // The server's history no longer reaches our resourceVersion: only a relist can tell what changed.
      this.needsList = true;
      this.expiredInARow++;
      if (this.expiredInARow === 1) {
        this.logger.info(fields, 'resourceVersion expired; relisting');
        return;
      }
    }
    const delay = this.backoff.next();
    const failure = { ...fields, retryInMs: delay, consecutiveFailures: this.state.consecutiveFailures };
    const watchMessage = this.needsList ? 'watch failed; relisting' : 'watch failed; resuming from the last resourceVersion';
    if (phase === 'list') this.logger.error(failure, 'list failed; retrying');
    else if (isConnectionFailure(err) && this.state.consecutiveFailures <= quietConnectionFailures) this.logger.debug(failure, watchMessage);
    else this.logger.warn(failure, watchMessage);
    await sleep(delay, signal, this.clock);
  }

  private emit(event: InformerEvent<T>): void {
    try {
      this.options.onEvent(event);
    } catch (err) {
      this.logger.error({ informer: this.name, err, event: event.type }, 'event consumer threw');
    }
  }

  /** Schedules periodic re-delivery of the cache as updates; returns the canceller. */
  private startResync(signal: AbortSignal): () => void {
    const period = this.options.resyncPeriodMs ?? 0;
    if (period <= 0) return () => {};
    let timer: Timer | undefined;
    const tick = (): void => {
      if (signal.aborted) return;
      if (this.state.synced) {
        for (const obj of this.store.list()) this.emit({ type: 'update', oldObject: obj, object: obj, resync: true });
      }
      timer = this.clock.setTimer(tick, period);
    };
    timer = this.clock.setTimer(tick, period);
    return () => timer?.cancel();
  }
}

function pickScope(scope: ListWatchOptions | undefined): ListWatchOptions {
  const out: ListWatchOptions = {};
  if (scope?.namespace) out.namespace = scope.namespace;
  if (scope?.labelSelector) out.labelSelector = scope.labelSelector;
  if (scope?.fieldSelector) out.fieldSelector = scope.fieldSelector;
  return out;
}

/**
 * Feeds a watch given as an async iterator to a batch consumer, one event at a
 * time (for ListerWatchers without `watchBatches`, such as test fakes). Stops
 * once `signal` aborts; the caller ends the iterator.
 */
async function eachEvent<T extends KubeObject>(
  iterator: AsyncIterator<WatchEvent<T>>,
  signal: AbortSignal,
  onEvents: (events: readonly WatchEvent<T>[]) => void,
): Promise<void> {
  for (;;) {
    const next = await iterator.next();
    if (next.done || signal.aborted) return;
    onEvents([next.value]);
  }
}

/** The annotation of the bookmark that ends a watch-list's initial events (kube's `metav1.InitialEventsAnnotationKey`). */
const initialEventsEnd = 'k8s.io/initial-events-end';

/**
 * A watch-list's initial events, gathered as client-go gathers them in a
 * temporary store: the objects by key, until the bookmark that ends them.
 */
class InitialEvents<T extends KubeObject> {
  private readonly objects = new Map<string, T>();
  private resourceVersion = '';

  /**
   * Takes the events of a batch up to the end of the initial events. Returns
   * undefined while they go on, else the events after the end (to apply as a
   * watch's). An ERROR event throws, as in a watch.
   */
  take(batch: readonly WatchEvent<T>[]): readonly WatchEvent<T>[] | undefined {
    for (let i = 0; i < batch.length; i++) {
      const event = batch[i]!;
      const rv = event.object.metadata?.resourceVersion;
      if (rv) this.resourceVersion = rv;
      switch (event.type) {
        case 'ADDED':
        case 'MODIFIED':
          this.objects.set(objectKey(event.object), event.object);
          break;
        case 'DELETED':
          this.objects.delete(objectKey(event.object));
          break;
        case 'BOOKMARK':
          if (event.object.metadata?.annotations?.[initialEventsEnd] === 'true') return batch.slice(i + 1);
          break;
        case 'ERROR':
          throw new WatchStatusError(event.object);
      }
    }
    return undefined;
  }

  /** What a list would have returned. */
  result(): ListResult<T> {
    return { items: [...this.objects.values()], resourceVersion: this.resourceVersion };
  }
}

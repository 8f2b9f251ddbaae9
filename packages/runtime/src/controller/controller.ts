/**
 * The controller: sources feed a rate-limited work queue, and a fixed number
 * of workers take requests from it and reconcile them, one key never on two
 * workers at once (controller-runtime's `pkg/internal/controller`). What a
 * reconcile returns or throws decides what happens to its request next:
 *
 * | outcome                               | queue                  | `reconcile_total` | log          |
 * |---------------------------------------|------------------------|-------------------|--------------|
 * | `{ requeueAfter: ms \| '30s' }` (> 0) | forget, add after it   | `requeue_after`   | debug        |
 * | `{ requeue: true }`                   | add rate-limited       | `requeue`         | debug        |
 * | nothing                               | forget                 | `success`         | debug        |
 * | 409 Conflict (also wrapped)           | add rate-limited       | `requeue`         | debug        |
 * | {@link TerminalError}                 | forget (no retry)      | `error`           | error, once  |
 * | a crash ({@link isPanic})             | add rate-limited       | `error`           | error        |
 * | any other error                       | add rate-limited       | `error`           | error        |
 */
import { setMaxListeners } from 'node:events';
import { randomUUID } from 'node:crypto';
import { type LogFields } from '../cache/logger.js';
import { CacheSyncTimeoutError } from '../cache/sync-timeout.js';
import type { ObjectClient } from '../client/index.js';
import { durationMs, type DurationInput } from '../duration.js';
import { realClock, type Clock } from '../workqueue/clock.js';
import type { QueueMetricsProvider } from '../workqueue/metrics.js';
import type { RateLimiter } from '../workqueue/rate-limiters.js';
import { RateLimitingQueue } from '../workqueue/rate-limiting-queue.js';
import { isConflictError, isPanic, isTerminalError } from './errors.js';
import { childLogger, stderrControllerLogger } from './logger.js';
import { deferredChildLogger } from '../logging/deferred-child.js';
import { noopControllerMetrics, type ControllerMetrics } from './metrics.js';
import { requestFromKey, requestKey, type Request } from './request.js';
import type { Source, SourceContext } from './source.js';
import type { LogMethods, Logger } from '../logging/log.js';

/**
 * What a reconcile asks for next. Return nothing when the object is as it
 * should be.
 * - `requeueAfter`: reconcile again after this long (and reset the backoff);
 *   wins over `requeue`. A number is **milliseconds**; a string is a Go
 *   duration (`'30s'`, `'1m30s'`, `'500ms'`, `'1h'`, see {@link parseDuration}),
 *   so a value ported from `ctrl.Result{RequeueAfter: 30 * time.Second}` reads
 *   `'30s'`. A string Go would refuse fails the reconcile (retried with backoff).
 * - `requeue`: reconcile again after the rate limiter's delay (backoff grows
 *   with each consecutive requeue).
 *
 * @example
 * ```ts
 * import type { ReconcileResult } from '@operant/runtime';
 *
 * const result: ReconcileResult = { requeueAfter: '1m30s' }; // the same as { requeueAfter: 90_000 }
 * ```
 */
export interface ReconcileResult {
  requeue?: boolean;
  requeueAfter?: DurationInput;
}

/**
 * What a reconcile is given besides its request.
 *
 * @example
 * ```ts
 * import { ConfigMap, type ReconcileFunc } from '@operant/runtime';
 *
 * const fn: ReconcileFunc = async (req, { client, log, signal }) => {
 *   log.info({}, 'reconciling');
 *   await client.get(ConfigMap, req.name, { namespace: req.namespace, signal });
 * };
 * ```
 */
export interface ReconcileContext {
  /** The API client (the manager's `mgr.client`): anything that reads and writes objects. */
  readonly client: ObjectClient;
  /**
   * A logger carrying the controller, the request's namespace and name, and
   * the reconcile id (controller-runtime's `log.FromContext(ctx)`);
   * `log.child({ ... })` is logr's `WithValues`.
   */
  readonly log: Logger;
  /** Aborts when the controller stops: pass it to requests and waits. */
  readonly signal: AbortSignal;
  /** A unique id of this reconcile (also in every log line as `reconcileID`). */
  readonly reconcileId: string;
}

/**
 * Brings one object to its desired state. Throw to fail: the request is
 * retried with backoff, unless the error is a {@link TerminalError}; a 409
 * Conflict is retried without an error log.
 *
 * @example
 * ```ts
 * import { ConfigMap, ignoreNotFound, type ReconcileFunc } from '@operant/runtime';
 *
 * const reconcile: ReconcileFunc = async (req, { client }) => {
 *   const cm = await client.get(ConfigMap, req.name, { namespace: req.namespace }).catch(ignoreNotFound);
 *   if (!cm) return;                                          // deleted: owned objects are garbage-collected
 *   if (cm.data?.['ready'] !== 'true') return { requeueAfter: 60_000 }; // look again in a minute
 * };
 * ```
 */
export type ReconcileFunc = (req: Request, ctx: ReconcileContext) => Promise<ReconcileResult | void> | ReconcileResult | void;

/**
 * Options of {@link Controller}. The builder ({@link controllerBuilder}) fills them in.
 *
 * @example
 * ```ts
 * import type { ControllerOptions } from '@operant/runtime';
 *
 * const options: ControllerOptions = { name: 'configmaps', client, reconcile: async (req) => log.info({ req }, 'reconciling'), maxConcurrentReconciles: 4 };
 * ```
 */
export interface ControllerOptions {
  /** Names the controller in logs and metrics (the `controller` label) and its work queue. */
  name: string;
  /** Handed to every reconcile as `ctx.client`. */
  client: ObjectClient;
  reconcile: ReconcileFunc;
  /** Sources to start with; more can be added with {@link Controller.watch} before the start. */
  sources?: readonly Source[];
  /** Workers reconciling at once, each on a different key; default 1. */
  maxConcurrentReconciles?: number;
  /** Controller metrics; default none. */
  metrics?: ControllerMetrics;
  /** Work-queue metrics (reported under the controller's name); default none. */
  queueMetrics?: QueueMetricsProvider;
  /** Retry delays; default {@link defaultControllerRateLimiter} (5 ms doubling to 1000 s, and 10 qps overall). */
  rateLimiter?: RateLimiter<string>;
  /** Default {@link stderrControllerLogger}. */
  logger?: LogMethods;
  /** Fields added to every reconcile's log lines (the builder adds `controllerGroup` and `controllerKind`). */
  logFields?: LogFields;
  /**
   * How long `start` waits for the sources' caches to sync before it fails
   * with a {@link CacheSyncTimeoutError}; default 2 minutes. A source whose
   * kind is not served fails it at once ({@link NoKindMatchError}).
   */
  cacheSyncTimeoutMs?: number;
  clock?: Clock;
}

/**
 * Where a controller is in its life.
 *
 * @example
 * ```ts
 * import { ConfigMap, controllerBuilder } from '@operant/runtime';
 *
 * const controller = controllerBuilder('configmaps', { client, informers }).for(ConfigMap).reconcile(() => undefined);
 * if (controller.state === 'new') void controller.start(signal);
 * ```
 */
export type ControllerState = 'new' | 'running' | 'stopped';

/**
 * A controller: reconciles the requests its sources produce.
 *
 * @example
 * ```ts
 * import { ConfigMap, Controller, enqueueObject, kindSource } from '@operant/runtime';
 *
 * const controller = new Controller({ name: 'configmaps', client, reconcile: (req) => log.info({ req }, 'reconciling') });
 * controller.watch(kindSource(informers.informerFor(ConfigMap), enqueueObject()));
 * const ac = new AbortController();
 * informers.startAll(ac.signal);
 * const done = controller.start(ac.signal); // resolves after ac.abort() once in-flight reconciles end
 * ```
 */
export class Controller {
  readonly name: string;
  readonly maxConcurrentReconciles: number;
  private readonly options: ControllerOptions;
  private readonly sources: Source[];
  private readonly metrics: ControllerMetrics;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private lifecycle: ControllerState = 'new';
  private active = 0;

  constructor(options: ControllerOptions) {
    if (!options.name) throw new TypeError('a controller needs a name');
    const workers = options.maxConcurrentReconciles ?? 1;
    if (!Number.isInteger(workers) || workers < 1) throw new RangeError(`maxConcurrentReconciles must be a positive integer, got ${workers}`);
    this.name = options.name;
    this.maxConcurrentReconciles = workers;
    this.options = options;
    this.sources = [...(options.sources ?? [])];
    this.metrics = options.metrics ?? noopControllerMetrics;
    this.logger = childLogger(options.logger ?? stderrControllerLogger, { controller: options.name });
    this.clock = options.clock ?? realClock;
  }

  /** Adds a source; only before {@link start}. */
  watch(source: Source): this {
    if (this.lifecycle !== 'new') throw new Error(`controller ${this.name}: watch() after start()`);
    this.sources.push(source);
    return this;
  }

  /** New, running, or stopped. */
  get state(): ControllerState {
    return this.lifecycle;
  }

  /**
   * Runs the controller until `signal` aborts: starts the sources, waits for
   * their caches to sync (rejecting after `cacheSyncTimeoutMs`, or at once when
   * a watched kind is not served: {@link NoKindMatchError}), then runs the
   * workers. On abort the queue stops taking work, in-flight reconciles finish
   * (their `signal` is aborted too), and the promise resolves with no timer
   * left behind. A controller starts once.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.lifecycle !== 'new') throw new Error(`controller ${this.name} was already started`);
    this.lifecycle = 'running';
    const run = new AbortController();
    // Every source, worker and in-flight request of a reconcile listens on it: many at once is the design, not a leak.
    setMaxListeners(0, run.signal);
    const onAbort = (): void => run.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    const queue = new RateLimitingQueue<string>({
      name: this.name,
      metricsProvider: this.options.queueMetrics,
      rateLimiter: this.options.rateLimiter,
      clock: this.clock,
    });
    try {
      if (run.signal.aborted) return;
      this.metrics.maxConcurrentReconciles(this.name, this.maxConcurrentReconciles);
      this.metrics.activeWorkers(this.name, 0);
      const context: SourceContext = {
        queue: { add: (req, priority) => queue.add(requestKey(req), priority === undefined ? undefined : { priority }) },
        signal: run.signal,
        logger: this.logger,
      };
      for (const source of this.sources) {
        this.logger.info({ source: source.description }, 'Starting EventSource');
        source.start(context);
      }
      await this.waitForSources(run.signal);
      if (run.signal.aborted) return;
      this.logger.info({ workerCount: this.maxConcurrentReconciles }, 'Starting workers');
      const workers = Array.from({ length: this.maxConcurrentReconciles }, () => this.worker(queue, run.signal));
      await aborted(run.signal);
      this.logger.info({}, 'Shutdown signal received, waiting for all workers to finish');
      await queue.shutDownWithDrain();
      await Promise.all(workers);
      this.logger.info({}, 'All workers finished');
    } finally {
      run.abort();
      signal.removeEventListener('abort', onAbort);
      queue.shutDown();
      this.lifecycle = 'stopped';
    }
  }

  private async waitForSources(signal: AbortSignal): Promise<void> {
    const timeoutMs = this.options.cacheSyncTimeoutMs ?? 120_000;
    const timeout = new AbortController();
    const timer = this.clock.setTimer(() => timeout.abort(), timeoutMs);
    try {
      const both = AbortSignal.any([signal, timeout.signal]);
      // A source that can never sync (its kind is not served) rejects, and so does this at once.
      const synced = await Promise.all(this.sources.map((s) => s.waitForSync(both)));
      if (signal.aborted || synced.every(Boolean)) return;
      const pending = this.sources.filter((s) => !s.hasSynced());
      if (!timeout.signal.aborted) {
        throw new Error(`controller ${this.name}: a source stopped before its cache synced (${pending.map((s) => s.description).join(', ')})`);
      }
      // controller-runtime names the first source that did not sync.
      const first = pending[0];
      throw new CacheSyncTimeoutError({ waiter: this.name, source: first?.description ?? 'sources', kind: first?.kind, timeoutMs });
    } finally {
      timer.cancel();
    }
  }

  private async worker(queue: RateLimitingQueue<string>, signal: AbortSignal): Promise<void> {
    for (;;) {
      const item = await queue.get();
      if (item.shutdown) return;
      this.metrics.activeWorkers(this.name, ++this.active);
      try {
        await this.reconcileHandler(queue, item.key, signal);
      } catch (err) {
        // Only a failing metrics hook or logger gets here; the worker carries on.
        this.logger.error({ err }, 'internal error while handling a reconcile');
      } finally {
        this.metrics.activeWorkers(this.name, --this.active);
        queue.done(item.key);
      }
    }
  }

  private async reconcileHandler(queue: RateLimitingQueue<string>, key: string, signal: AbortSignal): Promise<void> {
    const req = requestFromKey(key);
    const reconcileId = randomUUID();
    const log = deferredChildLogger(this.logger, { ...this.options.logFields, namespace: req.namespace, name: req.name, reconcileID: reconcileId });
    const started = this.clock.now();
    let result: ReconcileResult | void;
    try {
      log.debug({}, 'Reconciling');
      result = await this.options.reconcile(req, { client: this.options.client, log, signal, reconcileId });
    } catch (err) {
      this.metrics.reconcileTime(this.name, (this.clock.now() - started) / 1000);
      this.failed(queue, key, err, log, signal);
      return;
    }
    this.metrics.reconcileTime(this.name, (this.clock.now() - started) / 1000);
    let requeueAfter: number | undefined;
    try {
      requeueAfter = result?.requeueAfter === undefined ? undefined : durationMs(result.requeueAfter);
    } catch (err) {
      // A requeueAfter Go would refuse is a bug of the reconcile: a failure, as a crash is.
      this.failed(queue, key, err, log, signal);
      return;
    }
    if (typeof requeueAfter === 'number' && requeueAfter > 0 && Number.isFinite(requeueAfter)) {
      queue.forget(key);
      queue.addAfter(key, requeueAfter);
      this.metrics.reconcileTotal(this.name, 'requeue_after');
      log.debug({ requeueAfter }, 'Reconcile done, requeueing after delay');
    } else if (result?.requeue) {
      queue.addRateLimited(key);
      this.metrics.reconcileTotal(this.name, 'requeue');
      log.debug({}, 'Reconcile done, requeueing');
    } else {
      queue.forget(key);
      this.metrics.reconcileTotal(this.name, 'success');
      log.debug({}, 'Reconcile successful');
    }
  }

  private failed(queue: RateLimitingQueue<string>, key: string, err: unknown, log: Logger, signal: AbortSignal): void {
    // A failure during shutdown is most likely the abort itself: not worth an error line.
    const report = signal.aborted ? log.debug.bind(log) : log.error.bind(log);
    if (isTerminalError(err)) {
      queue.forget(key);
      this.metrics.terminalReconcileErrors(this.name);
      this.metrics.reconcileErrors(this.name);
      this.metrics.reconcileTotal(this.name, 'error');
      report({ err }, 'Reconciler error (terminal, not retried)');
      return;
    }
    queue.addRateLimited(key);
    if (isConflictError(err)) {
      this.metrics.reconcileTotal(this.name, 'requeue');
      log.debug({ err }, 'Conflict: the object changed since it was read; requeued');
      return;
    }
    const panic = isPanic(err);
    if (panic) this.metrics.reconcilePanics(this.name);
    this.metrics.reconcileErrors(this.name);
    this.metrics.reconcileTotal(this.name, 'error');
    report({ err, ...(panic ? { panic: true } : {}) }, panic ? 'Observed a panic in reconciler' : 'Reconciler error');
  }
}

/** Resolves when `signal` aborts. */
function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

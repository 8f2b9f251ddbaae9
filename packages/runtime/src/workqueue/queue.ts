/**
 * The keyed work queue: the part of a controller between events and workers.
 *
 * A key is in at most one of three states: waiting (in `ready`, handed out
 * next), processing (a worker holds it), or both processing and dirty (changed
 * again while a worker held it; queued once that worker calls `done`). The
 * dirty map is what merges repeat adds; the processing set is what keeps one
 * key from two workers at once. Both ideas are client-go's.
 */
import { realClock, type Clock } from './clock.js';
import { noopQueueMetricsProvider, type QueueMetricsProvider } from './metrics.js';
import { MetricsRecorder } from './metrics-recorder.js';
import { PriorityFifo } from './priority-fifo.js';

/**
 * Named priorities for {@link WorkQueue.add}. Any finite number works; higher
 * is served first. Use `low` for the initial list (and resyncs) so that live
 * changes overtake the startup backlog, as controller-runtime does.
 *
 * @example
 * ```ts
 * import { Priority, WorkQueue } from '@operant/runtime/workqueue';
 *
 * const queue = new WorkQueue<string>();
 * queue.add('default/web', { priority: Priority.low });    // from the initial list
 * queue.add('default/web', { priority: Priority.normal }); // a watch event: moves it up
 * ```
 */
export const Priority = Object.freeze({ low: -100, normal: 0, high: 100 } as const);

/**
 * Options for adding a key.
 *
 * @example
 * ```ts
 * import { type AddOptions } from '@operant/runtime';
 * import { Priority, WorkQueue } from '@operant/runtime/workqueue';
 *
 * const queue = new WorkQueue<string>();
 * const options: AddOptions = { priority: Priority.high };
 * queue.add('kube-system/dns', options);
 * ```
 */
export interface AddOptions {
  /** Higher is served first; default {@link Priority.normal}. A key added twice keeps the higher priority. */
  priority?: number;
}

/**
 * What {@link WorkQueue.get} resolves to: a key to work on, or the signal to stop.
 *
 * @example
 * ```ts
 * import { type QueueItem } from '@operant/runtime';
 * import { WorkQueue } from '@operant/runtime/workqueue';
 *
 * const queue = new WorkQueue<string>();
 * const item: QueueItem<string> = await queue.get();
 * if (!item.shutdown) console.log(item.key);
 * ```
 */
export type QueueItem<K> = { readonly key: K; readonly shutdown: false } | { readonly key: undefined; readonly shutdown: true };

/**
 * Options shared by every queue.
 *
 * @example
 * ```ts
 * import { type QueueOptions } from '@operant/runtime';
 * import { MetricsRegistry } from '@operant/runtime/metrics';
 *
 * const options: QueueOptions = { name: 'sidecarset', metricsProvider: new MetricsRegistry().workqueue };
 * ```
 */
export interface QueueOptions {
  /** Reported to the metrics provider as the queue's name. */
  name?: string;
  /** Where measurements go; default {@link noopQueueMetricsProvider}. */
  metricsProvider?: QueueMetricsProvider;
  /** Time source for delays and metrics; default {@link realClock}. */
  clock?: Clock;
  /** How often the age of work in progress is sampled for metrics; default 500 ms. */
  unfinishedWorkSamplePeriodMs?: number;
}

const SHUTDOWN: QueueItem<never> = Object.freeze({ key: undefined, shutdown: true });

/**
 * A keyed work queue. Repeat adds of a waiting key merge; a key is never handed
 * to two workers at once; a key re-added while a worker holds it is queued again
 * when that worker calls `done`. Keys compare as `Map` keys do (by value for
 * strings, by identity for objects).
 *
 * @example
 * ```ts
 * import { WorkQueue } from '@operant/runtime/workqueue';
 *
 * declare function reconcile(key: string): Promise<void>;
 * const queue = new WorkQueue<string>();
 * queue.add('default/web');
 * const worker = async () => {
 *   for (;;) {
 *     const item = await queue.get();
 *     if (item.shutdown) return;
 *     try {
 *       await reconcile(item.key);
 *     } finally {
 *       queue.done(item.key);
 *     }
 *   }
 * };
 * await Promise.all([worker(), worker()]);
 * ```
 */
export class WorkQueue<K = string> {
  protected readonly clock: Clock;
  protected readonly metrics: MetricsRecorder<K>;
  private readonly ready = new PriorityFifo<K>();
  /** Keys that need processing, with the priority they will be queued at. */
  private readonly dirty = new Map<K, number>();
  private readonly processing = new Set<K>();
  private readonly getters: Array<(item: QueueItem<K>) => void> = [];
  private readonly drainers: Array<() => void> = [];
  private stopping = false;

  constructor(options: QueueOptions = {}) {
    this.clock = options.clock ?? realClock;
    this.metrics = new MetricsRecorder<K>(
      options.metricsProvider ?? noopQueueMetricsProvider,
      options.name ?? '',
      this.clock,
      options.unfinishedWorkSamplePeriodMs ?? 500,
    );
  }

  /** Marks `key` as needing processing. Ignored once the queue is shutting down. */
  add(key: K, options?: AddOptions): void {
    if (this.stopping) return;
    const priority = checkPriority(options?.priority);
    const pending = this.dirty.get(key);
    if (pending !== undefined) {
      if (priority <= pending) return;
      this.dirty.set(key, priority);
      if (!this.processing.has(key)) this.ready.push(key, priority);
      return;
    }
    this.metrics.added(key);
    this.dirty.set(key, priority);
    if (this.processing.has(key)) return; // queued by done()
    this.ready.push(key, priority);
    this.dispatch();
  }

  /**
   * Resolves with the next key once there is one (the caller must then call
   * `done(key)`), or with `shutdown: true` once the queue is shutting down.
   * Waiting getters are served in the order they called.
   */
  get(): Promise<QueueItem<K>> {
    if (this.stopping) return Promise.resolve(SHUTDOWN);
    if (this.ready.size > 0) return Promise.resolve({ key: this.take(), shutdown: false });
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Ends processing of `key`; queues it again if it was re-added meanwhile. */
  done(key: K): void {
    if (!this.processing.delete(key)) return;
    this.metrics.done(key);
    if (this.stopping) {
      if (this.processing.size === 0) this.releaseDrainers();
      return;
    }
    const priority = this.dirty.get(key);
    if (priority === undefined) return;
    this.ready.push(key, priority);
    this.dispatch();
  }

  /** Keys waiting to be handed out (not counting those a worker holds). */
  len(): number {
    return this.ready.size;
  }

  /** Whether `shutDown` or `shutDownWithDrain` has been called. */
  shuttingDown(): boolean {
    return this.stopping;
  }

  /**
   * Stops the queue at once: new adds are ignored, waiting keys are dropped
   * from service, and every pending and future `get` resolves with
   * `shutdown: true`. Also ends a `shutDownWithDrain` still waiting.
   */
  shutDown(): void {
    this.stop();
    this.releaseDrainers();
  }

  /**
   * Like `shutDown`, but resolves only when every key a worker holds has been
   * `done`. Workers must keep calling `done`, or this never resolves (a later
   * `shutDown` ends the wait).
   */
  shutDownWithDrain(): Promise<void> {
    this.stop();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainers.push(resolve));
  }

  /** Subclasses extend this to release their own resources (timers). */
  protected stop(): void {
    if (this.stopping) return;
    this.stopping = true;
    this.metrics.stop();
    for (const resolve of this.getters.splice(0)) resolve(SHUTDOWN);
  }

  /** Hands waiting keys to waiting getters; getters only wait while nothing is ready. */
  private dispatch(): void {
    while (this.getters.length > 0 && this.ready.size > 0) {
      this.getters.shift()!({ key: this.take(), shutdown: false });
    }
  }

  /** Moves the next key to processing synchronously, so no other getter can see it. */
  private take(): K {
    const key = this.ready.pop()!;
    this.dirty.delete(key);
    this.processing.add(key);
    this.metrics.taken(key);
    return key;
  }

  private releaseDrainers(): void {
    for (const resolve of this.drainers.splice(0)) resolve();
  }
}

/** The priority to use for `priority` (default normal); throws on NaN and infinities. Internal. */
export function checkPriority(priority: number | undefined): number {
  if (priority === undefined) return Priority.normal;
  if (!Number.isFinite(priority)) throw new RangeError(`work queue priority must be a finite number, got ${priority}`);
  return priority;
}

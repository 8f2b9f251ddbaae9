/**
 * The event recorder, after client-go's tools/events: reconciles report what
 * they did as Events on the objects concerned, without ever waiting on or
 * failing because of the API server. Repeats of an event are folded into a
 * series (one Event whose count grows) instead of new Events.
 */
import { hostname } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { format } from 'node:util';
import type { KubeObject } from '@operant/apimachinery';
import { ApiError, hasStatusCause, isAlreadyExists, isNotFound } from '../client/api-error.js';
import type { Client } from '../client/client.js';
import { stderrControllerLogger } from '../controller/logger.js';
import { referenceKey, toReference, type ObjectReference } from './reference.js';
import { SendQueue } from './send-queue.js';
import { eventSink, type EventApi, type EventRecord, type EventSink, type EventType, type SeriesState } from './sink.js';
import { EventNamer } from './time.js';
import type { LogMethods } from '../logging/log.js';

/**
 * Options of {@link EventRecorder}.
 *
 * @example
 * ```ts
 * import type { EventRecorderOptions } from '@operant/runtime';
 *
 * const options: EventRecorderOptions = { reportingController: 'example.com/bucket-controller', logger: log, signal };
 * ```
 */
export interface EventRecorderOptions {
  /** The controller's name, e.g. `example.com/bucket-controller`; shown as the event's source. */
  reportingController: string;
  /** This instance's ID; default `<reportingController>-<hostname>`, as client-go. */
  reportingInstance?: string;
  /** The Event API to write; default `events.k8s.io/v1`. */
  api?: EventApi;
  /** Where dropped and failed events are reported (pino's call shape); default warnings and errors to stderr. */
  logger?: LogMethods;
  /** Events waiting to be sent before new ones are dropped; default 1000, as client-go. */
  queueSize?: number;
  /**
   * At most one warning about dropped events per this many milliseconds; the
   * next one says how many were dropped meanwhile. Default 10 s: a burst of
   * drops (thousands a second in a busy cluster) costs one log line, not one each.
   */
  dropWarningIntervalMs?: number;
  /** How often repeat counts are written (series patches are batched); default 30 s. */
  seriesFlushIntervalMs?: number;
  /** A series ends when no repeat came for this long, and a repeat then starts a new Event; default 6 min, as client-go. */
  seriesFinishMs?: number;
  /** Tries per write before it is given up; default 12, as client-go. */
  maxAttempts?: number;
  /** Pause before retrying a failed write (±25% jitter); default 10 s, as client-go. */
  retryDelayMs?: number;
  /** Aborting stops the recorder at once: waiting events are dropped, requests in flight cancelled. */
  signal?: AbortSignal;
  /** Wall clock in epoch milliseconds, for event times and series expiry; default `Date.now`. */
  now?: () => number;
}

/** Remembered events (for folding repeats) beyond which the oldest are forgotten early. */
const maxCacheEntries = 10_000;
/** The API server refuses longer notes. */
const maxNoteBytes = 1024;

interface CacheEntry {
  key: string;
  record: EventRecord;
  /** Undefined until the first repeat. */
  series?: SeriesState;
  /** A repeat happened since the series was last queued for writing. */
  dirty: boolean;
  seriesQueued: boolean;
}

type Job = { op: 'create'; entry: CacheEntry } | { op: 'series'; entry: CacheEntry };

/**
 * Records Events about objects (client-go's events.EventRecorder).
 *
 * The first occurrence of an event creates an Event named
 * `<regarding name>.<hex timestamp>`. A repeat with the same regarding and
 * related objects, type, reason, action, note, reporting controller and
 * instance within `seriesFinishMs` of the last one adds to that Event's
 * `series` (count, lastObservedTime) instead; counts are written every
 * `seriesFlushIntervalMs`. Writes happen in the background, in order, with
 * retries of transient failures; when `queueSize` events are waiting, new ones
 * are dropped with a warning (one per `dropWarningIntervalMs`, counting the
 * drops since the last). Calls never throw and never wait.
 *
 * @example
 * ```ts
 * import { EventRecorder } from '@operant/runtime';
 *
 * const recorder = new EventRecorder(client, { reportingController: 'example.com/pod-controller' });
 * recorder.eventf(pod, null, 'Normal', 'Scheduled', 'Schedule', 'assigned %s to %s', pod.metadata.name, 'node-1');
 * recorder.event(pod, 'Warning', 'QuotaExceeded', 'the namespace has no CPU quota left');
 * await recorder.close(); // on shutdown: writes what is pending
 * ```
 */
export class EventRecorder {
  readonly reportingController: string;
  readonly reportingInstance: string;
  private readonly sink: EventSink;
  private readonly logger: LogMethods;
  private readonly now: () => number;
  private readonly namer = new EventNamer();
  private readonly cache = new Map<string, CacheEntry>();
  private readonly queue: SendQueue<Job>;
  private readonly flushIntervalMs: number;
  private readonly finishMs: number;
  private readonly maxAttempts: number;
  private readonly retryDelayMs: number;
  private readonly requestSignal: AbortSignal | undefined;
  /** Aborted when closing: retry pauses end and no more retries start. */
  private readonly closing = new AbortController();
  private flushTimer: NodeJS.Timeout | undefined;
  private closed: Promise<void> | undefined;
  private dropped = 0;
  private readonly dropWarningIntervalMs: number;
  /** When the last drop warning was logged (`now()`), and the drops since, not yet reported. */
  private lastDropWarningMs = -Infinity;
  private droppedUnreported = 0;

  constructor(client: Client, options: EventRecorderOptions) {
    if (!options.reportingController) throw new TypeError('an EventRecorder needs a reportingController');
    this.reportingController = options.reportingController;
    this.reportingInstance = options.reportingInstance ?? `${options.reportingController}-${hostname()}`;
    this.sink = eventSink(client, options.api ?? 'events.k8s.io/v1');
    this.logger = options.logger ?? stderrControllerLogger;
    this.now = options.now ?? Date.now;
    this.flushIntervalMs = options.seriesFlushIntervalMs ?? 30_000;
    this.finishMs = options.seriesFinishMs ?? 6 * 60_000;
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 12);
    this.retryDelayMs = options.retryDelayMs ?? 10_000;
    this.requestSignal = options.signal;
    this.queue = new SendQueue<Job>(options.queueSize ?? 1000, (job) => this.send(job));
    this.dropWarningIntervalMs = Math.max(0, options.dropWarningIntervalMs ?? 10_000);
    if (options.signal?.aborted) this.abort();
    else options.signal?.addEventListener('abort', () => this.abort(), { once: true });
  }

  /** Events dropped so far because the queue was full. */
  get droppedEvents(): number {
    return this.dropped;
  }

  /**
   * Records an event about `regarding` (an object with apiVersion and kind, or
   * a reference), optionally mentioning a `related` object. `note` may hold
   * Node `util.format` placeholders (`%s`, `%d`, `%j`, `%o`) filled from `args`.
   *
   * @example
   * ```ts
   * import { ConfigMap, EventRecorder } from '@operant/runtime';
   *
   * const recorder = new EventRecorder(client, { reportingController: 'example.com/sidecars' });
   * const settings = await client.get(ConfigMap, 'sidecars', { namespace: 'default' });
   * recorder.eventf(pod, settings, 'Normal', 'Injected', 'Inject', 'injected %d sidecars into %s', 2, pod.metadata.name);
   * ```
   */
  eventf(
    regarding: KubeObject | ObjectReference,
    related: KubeObject | ObjectReference | null | undefined,
    type: EventType,
    reason: string,
    action: string,
    note: string,
    ...args: unknown[]
  ): void {
    try {
      this.record(regarding, related, type, reason, action, args.length > 0 ? format(note, ...args) : note);
    } catch (err) {
      // A bad reference or type is the caller's bug, but must not fail its reconcile.
      this.logger.error({ err, reason, type }, 'could not record event, will not report it');
    }
  }

  /**
   * Records an event the way controller-runtime's record.EventRecorder.Event
   * is called: no related object, and the reason doubles as the action.
   *
   * @example
   * ```ts
   * import { ConfigMap, EventRecorder } from '@operant/runtime';
   *
   * const recorder = new EventRecorder(client, { reportingController: 'example.com/settings' });
   * const cm = await client.get(ConfigMap, 'settings', { namespace: 'default' });
   * recorder.event(cm, 'Warning', 'InvalidData', 'key "mode" must be fast or slow');
   * ```
   */
  event(regarding: KubeObject | ObjectReference, type: EventType, reason: string, message: string): void {
    this.eventf(regarding, null, type, reason, reason, message);
  }

  /**
   * Writes pending repeat counts now and resolves once everything queued has
   * been sent (or given up on).
   *
   * @example
   * ```ts
   * import { EventRecorder } from '@operant/runtime';
   *
   * const recorder = new EventRecorder(client, { reportingController: 'example.com/pods' });
   * recorder.event(pod, 'Normal', 'Synced', 'synced');
   * await recorder.flush();
   * ```
   */
  async flush(): Promise<void> {
    this.flushSeries();
    await this.queue.idle();
  }

  /**
   * Stops recording: later calls are ignored, pending repeat counts are
   * queued, what is queued is sent with no further retries, and the promise
   * resolves when that is done. Idempotent.
   *
   * @example
   * ```ts
   * import { EventRecorder } from '@operant/runtime';
   *
   * const recorder = new EventRecorder(client, { reportingController: 'example.com/pods' });
   * process.once('SIGTERM', () => void recorder.close().then(() => process.exit(0)));
   * ```
   */
  close(): Promise<void> {
    return (this.closed ??= (async () => {
      this.flushSeries();
      this.stopTimer();
      this.queue.stop(false);
      this.closing.abort();
      await this.queue.idle();
      this.cache.clear();
    })());
  }

  private abort(): void {
    const dropped = this.queue.stop(true);
    if (dropped > 0) this.logger.warn({ dropped }, 'event recorder stopped, dropping queued events');
    this.stopTimer();
    this.closing.abort();
    this.closed ??= this.queue.idle().then(() => this.cache.clear());
  }

  private record(
    regardingIn: KubeObject | ObjectReference,
    relatedIn: KubeObject | ObjectReference | null | undefined,
    type: EventType,
    reason: string,
    action: string,
    note: string,
  ): void {
    if (this.closing.signal.aborted) {
      this.logger.debug({ reason }, 'event recorder closed, ignoring event');
      return;
    }
    if (type !== 'Normal' && type !== 'Warning') {
      this.logger.error({ type, reason }, 'unsupported event type, will not report event');
      return;
    }
    const regarding = toReference(regardingIn);
    const related = relatedIn ? toReference(relatedIn) : undefined;
    const trimmedNote = truncateBytes(note, maxNoteBytes);
    const key = JSON.stringify([
      type, action, reason, trimmedNote, this.reportingController, this.reportingInstance, referenceKey(regarding), referenceKey(related),
    ]);
    const now = this.now();

    const existing = this.cache.get(key);
    if (existing && now - lastSeen(existing) <= this.finishMs) {
      existing.series = { count: (existing.series?.count ?? 1) + 1, lastObservedMs: now };
      existing.dirty = true;
      this.ensureTimer();
      return;
    }
    if (existing) this.finishEntry(existing);
    // A new Event with the queue full is dropped before it is named and built: at scale most are.
    if (this.queue.full) return this.drop(reason, type, regarding, now);

    const record: EventRecord = {
      name: this.namer.name(regarding.name!, now),
      namespace: regarding.namespace || 'default',
      eventTimeMs: now,
      type,
      reason,
      action,
      note: trimmedNote,
      regarding,
      reportingController: this.reportingController,
      reportingInstance: this.reportingInstance,
    };
    if (related) record.related = related;
    const entry: CacheEntry = { key, record, dirty: false, seriesQueued: false };
    if (!this.queue.offer({ op: 'create', entry })) return this.drop(reason, type, regarding, now);
    this.cache.set(key, entry);
    if (this.cache.size > maxCacheEntries) this.finishEntry(this.cache.values().next().value!);
    this.ensureTimer();
  }

  /** Counts a dropped event, and warns at most once per `dropWarningIntervalMs` with the drops since the last warning. */
  private drop(reason: string, type: EventType, regarding: ObjectReference, now: number): void {
    this.dropped++;
    this.droppedUnreported++;
    if (now - this.lastDropWarningMs < this.dropWarningIntervalMs) return;
    this.logger.warn(
      {
        reason,
        type,
        regarding: `${regarding.namespace ?? ''}/${regarding.name}`,
        queueSize: this.queue.length,
        dropped: this.droppedUnreported,
        droppedTotal: this.dropped,
      },
      'event queue is full, dropping event',
    );
    this.lastDropWarningMs = now;
    this.droppedUnreported = 0;
  }

  /** Queues the final count of a series that ends, and forgets it. */
  private finishEntry(entry: CacheEntry): void {
    if (entry.dirty) this.queueSeries(entry);
    if (this.cache.get(entry.key) === entry) this.cache.delete(entry.key);
  }

  private queueSeries(entry: CacheEntry): void {
    entry.dirty = false;
    if (entry.seriesQueued) return;
    // Forced: at most one waiting series write per cached event, so the cache bounds these.
    if (this.queue.offer({ op: 'series', entry }, true)) entry.seriesQueued = true;
  }

  /** The heartbeat: writes repeat counts and forgets series that have ended. */
  private flushSeries(): void {
    const now = this.now();
    for (const entry of [...this.cache.values()]) {
      if (now - lastSeen(entry) > this.finishMs) this.finishEntry(entry);
      else if (entry.dirty) this.queueSeries(entry);
    }
  }

  private ensureTimer(): void {
    if (this.flushTimer || this.closing.signal.aborted) return;
    this.flushTimer = setInterval(() => {
      this.flushSeries();
      if (this.cache.size === 0) this.stopTimer();
    }, this.flushIntervalMs);
    // Recording must not keep a process alive.
    this.flushTimer.unref();
  }

  private stopTimer(): void {
    if (this.flushTimer) clearInterval(this.flushTimer);
    this.flushTimer = undefined;
  }

  private async send(job: Job): Promise<void> {
    const { entry } = job;
    let series: SeriesState | undefined;
    if (job.op === 'series') {
      entry.seriesQueued = false;
      series = entry.series && { ...entry.series };
      if (!series) return;
    }
    for (let attempt = 1; ; attempt++) {
      try {
        await this.write(job.op, entry.record, series);
        return;
      } catch (err) {
        const retry = this.shouldRetry(err, job.op) && attempt < this.maxAttempts && !this.closing.signal.aborted;
        const fields = { err, event: `${entry.record.namespace}/${entry.record.name}`, reason: entry.record.reason, attempt };
        if (!retry) {
          // client-go's tools/record: an event that exists already, or whose namespace is being deleted, is dropped at V(5).
          if ((isAlreadyExists(err) && job.op === 'create') || hasStatusCause(err, 'NamespaceTerminating')) this.logger.debug(fields, 'server rejected event (will not retry)');
          else this.logger.error(fields, this.requestSignal?.aborted ? 'event recorder stopped, event not written' : 'unable to write event (giving up)');
          return;
        }
        this.logger.warn(fields, 'unable to write event (will retry)');
        const jittered = this.retryDelayMs * (0.75 + Math.random() * 0.5);
        await delay(jittered, undefined, { signal: this.closing.signal }).catch(() => undefined);
      }
    }
  }

  /** One write: a create, or a series patch that creates the event when it is gone. */
  private async write(op: Job['op'], record: EventRecord, series: SeriesState | undefined): Promise<void> {
    if (op === 'create' || !series) return this.sink.create(record, undefined, this.requestSignal);
    try {
      await this.sink.patchSeries(record, series, this.requestSignal);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await this.sink.create(record, series, this.requestSignal);
    }
  }

  /** client-go's rule: retry transport failures and server-side trouble, not refusals of the event itself. */
  private shouldRetry(err: unknown, op: Job['op']): boolean {
    if (this.requestSignal?.aborted) return false;
    if (err instanceof ApiError) {
      // A series create racing the event's own creation: the patch will find it next time.
      if (isAlreadyExists(err)) return op === 'series';
      return err.code === 429 || err.code >= 500;
    }
    return !(err instanceof TypeError);
  }
}

function lastSeen(entry: CacheEntry): number {
  return entry.series?.lastObservedMs ?? entry.record.eventTimeMs;
}

function truncateBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let out = Buffer.from(text).subarray(0, maxBytes).toString();
  // A cut multi-byte character decodes as U+FFFD; drop it.
  while (Buffer.byteLength(out) > maxBytes || out.endsWith('\uFFFD')) out = out.slice(0, -1);
  return out;
}

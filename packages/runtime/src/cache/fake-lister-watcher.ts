/**
 * An in-memory ListerWatcher for unit tests of informers and controllers: it
 * behaves like one collection of an API server (a global resourceVersion, a
 * bounded history that watches start from, 410 when it no longer reaches back,
 * namespace, label and field selectors with objects leaving a selector arriving
 * as DELETED), and lets a test end watches, break them, and fail requests.
 */
import { fieldValue, parseFieldSelector, parseLabelSelector, type KubeObject } from '@operant/apimachinery';
import type { ListerWatcher, ListResult, ListWatchOptions, WatchEvent } from './list-watch.js';
import { EventStream } from './event-stream.js';
import { objectKey } from './keys.js';

/**
 * A request the fake received.
 *
 * @example
 * ```ts
 * import type * as corev1 from 'kubernetes-types/core/v1.js';
 * import { type Typed } from '@operant/runtime';
 * import { FakeListerWatcher } from '@operant/runtime/testing';
 *
 * const fake = new FakeListerWatcher<Typed<corev1.Pod>>();
 * const watchedFrom = fake.calls.filter((c) => c.verb === 'watch').map((c) => c.options.resourceVersion);
 * ```
 */
export interface FakeCall {
  verb: 'list' | 'watch';
  options: ListWatchOptions & { resourceVersion?: string; allowWatchBookmarks?: boolean; timeoutSeconds?: number };
}

/**
 * Options of a {@link FakeListerWatcher}.
 *
 * @example
 * ```ts
 * import type * as corev1 from 'kubernetes-types/core/v1.js';
 * import { type Typed } from '@operant/runtime';
 * import { FakeListerWatcher } from '@operant/runtime/testing';
 *
 * new FakeListerWatcher<Typed<corev1.Pod>>({ historyCapacity: 10, objects: [pod] });
 * ```
 */
export interface FakeListerWatcherOptions<T extends KubeObject> {
  /** Changes kept for watches (default 1000); a watch from before them gets a 410. */
  historyCapacity?: number;
  /** Objects present from the start. */
  objects?: T[];
}

interface Change<T extends KubeObject> {
  rv: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** The state before (absent for ADDED). */
  old?: T;
  /** The state after (for DELETED, the final state). */
  obj: T;
}

type Item<T extends KubeObject> = { event: WatchEvent<T> } | { error: unknown };

interface OpenWatch<T extends KubeObject> {
  matches: (obj: T) => boolean;
  stream: EventStream<Item<T>>;
}

/**
 * A fake collection that serves lists and watches from memory.
 *
 * @example
 * ```ts
 * import { type KubeObject } from '@operant/runtime';
 * import { Informer } from '@operant/runtime/cache';
 * import { FakeListerWatcher } from '@operant/runtime/testing';
 *
 * const fake = new FakeListerWatcher<KubeObject>();
 * fake.upsert({ metadata: { namespace: 'default', name: 'a' } });
 * const informer = new Informer(fake);
 * informer.start(signal);
 * await informer.waitForCacheSync(signal);
 * fake.endWatches();        // the informer resumes from its last resourceVersion
 * fake.expireHistory();     // the next watch gets a 410 and the informer relists
 * ```
 */
export class FakeListerWatcher<T extends KubeObject> implements ListerWatcher<T> {
  /** Every list and watch request, in order. */
  readonly calls: FakeCall[] = [];
  private readonly objects = new Map<string, T>();
  private history: Change<T>[] = [];
  private readonly historyCapacity: number;
  /** The highest revision no longer in the history: watches must start at or after it. */
  private compactedThrough = 0;
  private revision = 0;
  private readonly watches = new Set<OpenWatch<T>>();
  private readonly listFailures: unknown[] = [];
  private readonly watchFailures: unknown[] = [];

  constructor(options: FakeListerWatcherOptions<T> = {}) {
    this.historyCapacity = options.historyCapacity ?? 1000;
    for (const obj of options.objects ?? []) this.upsert(obj);
  }

  /** The current resourceVersion. */
  get resourceVersion(): string {
    return String(this.revision);
  }

  /** How many watches are open. */
  get openWatches(): number {
    return this.watches.size;
  }

  /** The current state of an object. */
  get(key: string): T | undefined {
    const obj = this.objects.get(key);
    return obj ? structuredClone(obj) : undefined;
  }

  /** Creates or replaces an object, giving it the next resourceVersion; returns the stored copy. */
  upsert(obj: T): T {
    const key = objectKey(obj);
    const stored = structuredClone(obj);
    stored.metadata.resourceVersion = String(++this.revision);
    const old = this.objects.get(key);
    this.objects.set(key, stored);
    this.record(old ? { rv: this.revision, type: 'MODIFIED', old, obj: stored } : { rv: this.revision, type: 'ADDED', obj: stored });
    return structuredClone(stored);
  }

  /** Deletes an object; false if it did not exist. */
  delete(key: string): boolean {
    const old = this.objects.get(key);
    if (!old) return false;
    this.objects.delete(key);
    const final = structuredClone(old);
    final.metadata.resourceVersion = String(++this.revision);
    this.record({ rv: this.revision, type: 'DELETED', old, obj: final });
    return true;
  }

  /** Sends a BOOKMARK at the current resourceVersion to every open watch. */
  bookmark(): void {
    const object = { metadata: { resourceVersion: this.resourceVersion } } as T;
    for (const w of this.watches) w.stream.push({ event: { type: 'BOOKMARK', object } });
  }

  /** Ends every open watch cleanly, as a server does at a watch's timeout. */
  endWatches(): void {
    for (const w of [...this.watches]) w.stream.end();
  }

  /** Makes every open watch throw `err` (a transport failure) after what it has already queued. */
  breakWatches(err: unknown): void {
    for (const w of [...this.watches]) {
      w.stream.push({ error: err });
      w.stream.end();
    }
  }

  /** Sends an ERROR event carrying `status` to every open watch, then ends them. */
  sendError(status: { code: number; reason?: string; message?: string }): void {
    const object = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', ...status } as unknown as T;
    for (const w of [...this.watches]) {
      w.stream.push({ event: { type: 'ERROR', object } });
      w.stream.end();
    }
  }

  /** Forgets the history: any watch from an earlier resourceVersion gets a 410. */
  expireHistory(): void {
    this.history = [];
    this.compactedThrough = this.revision;
  }

  /** The next `count` lists throw `err`. */
  failLists(count: number, err: unknown): void {
    for (let i = 0; i < count; i++) this.listFailures.push(err);
  }

  /** The next `count` watch requests throw `err` before any event. */
  failWatches(count: number, err: unknown): void {
    for (let i = 0; i < count; i++) this.watchFailures.push(err);
  }

  async list(opts: ListWatchOptions & { signal?: AbortSignal }): Promise<ListResult<T>> {
    this.calls.push({ verb: 'list', options: scopeOf(opts) });
    if (this.listFailures.length > 0) throw this.listFailures.shift();
    const matches = matcher(opts);
    const items = [...this.objects.values()].filter(matches).map((o) => structuredClone(o));
    return { items, resourceVersion: this.resourceVersion };
  }

  watch(
    opts: ListWatchOptions & { resourceVersion: string; allowWatchBookmarks?: boolean; timeoutSeconds?: number; signal?: AbortSignal },
  ): AsyncIterable<WatchEvent<T>> {
    const { allowWatchBookmarks, timeoutSeconds, resourceVersion } = opts;
    this.calls.push({ verb: 'watch', options: { ...scopeOf(opts), resourceVersion, allowWatchBookmarks, timeoutSeconds } });
    const failure = this.watchFailures.length > 0 ? { err: this.watchFailures.shift() } : undefined;
    const from = resourceVersion === '' ? this.revision : Number(resourceVersion);
    const matches = matcher(opts);
    const stream = new EventStream<Item<T>>(() => this.watches.delete(open));
    const open: OpenWatch<T> = { matches, stream };
    if (failure) {
      stream.push({ error: failure.err });
      stream.end();
    } else if (from < this.compactedThrough) {
      const object = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Expired', code: 410, message: `too old resource version: ${from} (${this.compactedThrough + 1})` };
      stream.push({ event: { type: 'ERROR', object: object as unknown as T } });
      stream.end();
    } else {
      for (const change of this.history) if (change.rv > from) this.deliver(open, change);
      this.watches.add(open);
      opts.signal?.addEventListener('abort', () => stream.end(), { once: true });
    }
    return {
      [Symbol.asyncIterator]: () => ({
        next: async () => {
          const r = await stream.next();
          if (r.done) return { value: undefined, done: true };
          if ('error' in r.value) throw r.value.error;
          return { value: r.value.event, done: false };
        },
        return: async () => {
          await stream.return();
          return { value: undefined, done: true };
        },
      }),
    };
  }

  private record(change: Change<T>): void {
    this.history.push(change);
    if (this.history.length > this.historyCapacity) this.compactedThrough = this.history.shift()!.rv;
    for (const w of this.watches) this.deliver(w, change);
  }

  /** Sends a change to a watch as its selector sees it. */
  private deliver(w: OpenWatch<T>, change: Change<T>): void {
    const before = change.old !== undefined && w.matches(change.old);
    const after = change.type !== 'DELETED' && w.matches(change.obj);
    let event: WatchEvent<T> | undefined;
    if (change.type === 'DELETED') {
      if (before) event = { type: 'DELETED', object: change.obj };
    } else if (before && after) event = { type: 'MODIFIED', object: change.obj };
    else if (after) event = { type: 'ADDED', object: change.obj };
    else if (before) event = { type: 'DELETED', object: { ...change.old!, metadata: { ...change.old!.metadata, resourceVersion: String(change.rv) } } };
    if (event) w.stream.push({ event: { type: event.type, object: structuredClone(event.object) } });
  }
}

function scopeOf(opts: ListWatchOptions): ListWatchOptions {
  return { namespace: opts.namespace, labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector };
}

function matcher<T extends KubeObject>(opts: ListWatchOptions): (obj: T) => boolean {
  const labels = opts.labelSelector ? parseLabelSelector(opts.labelSelector) : undefined;
  const fields = opts.fieldSelector ? parseFieldSelector(opts.fieldSelector) : undefined;
  return (obj) =>
    (!opts.namespace || obj.metadata.namespace === opts.namespace) &&
    (!labels || labels.matches(obj.metadata.labels)) &&
    (!fields || fields.matches((f) => fieldValue(obj, f)));
}

/**
 * Knows when any of a set of kinds last changed, from watches (the runtime
 * client's), so that "nothing has changed for 500 ms" is observed rather
 * than assumed after a sleep. Each kind is listed once for its current
 * resourceVersion and watched from there: every event after that point is a
 * change. A watch that ends is resumed from the last resourceVersion seen; one
 * that cannot be (410, a broken connection) starts over from a new list and
 * counts as a change, since events may have been missed in between.
 *
 * The watches ({@link KindWatches}) and what one wait sees of them
 * ({@link ChangeView}) are apart, so that watches can outlive a wait: a test
 * environment keeps a set open while the `converges` calls in a namespace
 * follow each other (a list and a watch per kind, on a new connection each
 * time, cost a call more than a short quiet period), and each call sees only
 * the changes since it began, to its own kinds. The standalone `converges` opens a
 * tracker of its own ({@link openChangeTracker}): its watches, in its namespace, closed when it ends.
 */
import { setMaxListeners } from 'node:events';
import type { KubeObject } from '@operant/apimachinery';
import { isNotFound, type Client, type Kind } from '@operant/runtime';
import { sleep } from './outcome.js';

/** What `converges` reads: the changes seen since it began, and whether its watches have started. */
export interface Changes {
  /** performance.now() of the last change seen (the start until one is). */
  readonly lastChange: number;
  /** `MODIFIED deployments.apps team-a/web`. */
  readonly lastChangeDescription: string;
  readonly changes: number;
  /** Resolves once every kind has been listed and is watched from there. */
  readonly ready: Promise<void>;
  /** The kinds not listed yet (`configmaps`, `deployments.apps`). */
  unready(): string[];
  /** Resolves at the next change (or when it closes). */
  nextChange(): Promise<void>;
  close(): Promise<void>;
}

/** One change as the watches see it: a namespaced object's namespace, or none (a cluster-scoped object, or a relist). */
interface Change {
  resource: string;
  namespace: string | undefined;
  description: string;
}

/**
 * A watched kind: listed once its watch has a starting point (or the server
 * does not serve it), and unlisted again while a broken watch starts over
 * from a new list, so that a wait that begins meanwhile waits for that list.
 */
class WatchedKind {
  listed = false;
  ready: Promise<void>;
  private resolve!: () => void;

  constructor(readonly resource: string) {
    this.ready = new Promise<void>((resolve) => (this.resolve = resolve));
  }

  markListed(): void {
    this.listed = true;
    this.resolve();
  }

  /** Until the next list (the waits begun before it have their starting point already). */
  unlist(): void {
    if (!this.listed) return;
    this.listed = false;
    this.ready = new Promise<void>((resolve) => (this.resolve = resolve));
  }
}

/**
 * The watches on a set of kinds (a namespaced kind only in `namespace`, when
 * given), which grows as views ask for more. Each change goes to the open
 * views it concerns. Closing ends every watch.
 */
export class KindWatches {
  private readonly kinds = new Map<string, WatchedKind>();
  private readonly views = new Set<ChangeView>();
  private readonly stop = new AbortController();
  private readonly loops = new Set<Promise<void>>();

  constructor(
    private readonly client: Client,
    private readonly namespace?: string,
  ) {
    // One signal for every kind's list, watch and retry delay.
    setMaxListeners(0, this.stop.signal);
  }

  /**
   * What one wait sees: the changes to `kinds` from now on (a namespaced
   * kind's only in `namespace`, when given), starting the watches of the
   * kinds not watched yet. Close it when the wait ends (`onClose` is then
   * called, and awaited); the watches go on.
   */
  view(kinds: readonly Kind[], namespace?: string, onClose?: () => void | Promise<void>): ChangeView {
    const watched = kinds.map((kind) => this.watched(kind));
    const view = new ChangeView(watched, namespace, async () => {
      this.views.delete(view);
      await onClose?.();
    });
    this.views.add(view);
    return view;
  }

  /** Ends every watch (the open views see no more changes). */
  async close(): Promise<void> {
    this.stop.abort();
    for (const view of this.views) view.wake();
    await Promise.all(this.loops);
  }

  private watched(kind: Kind): WatchedKind {
    const resource = resourceName(kind);
    const known = this.kinds.get(resource);
    if (known) return known;
    const entry = new WatchedKind(resource);
    this.kinds.set(resource, entry);
    const loop = this.watch(kind, entry).finally(() => this.loops.delete(loop));
    this.loops.add(loop);
    return entry;
  }

  private changed(change: Change): void {
    for (const view of this.views) view.observe(change);
  }

  private async watch(kind: Kind, entry: WatchedKind): Promise<void> {
    const signal = this.stop.signal;
    const namespace = kind.namespaced ? this.namespace : undefined;
    const resource = entry.resource;
    let resourceVersion: string | undefined;
    let first = true;
    while (!signal.aborted) {
      try {
        if (resourceVersion === undefined) {
          const list = await this.client.list(kind, { namespace, limit: 1, live: true, signal });
          resourceVersion = list.metadata.resourceVersion;
          if (!first) this.changed({ resource, namespace: undefined, description: `relisted ${resource}` });
          first = false;
          entry.markListed();
        }
        for await (const event of this.client.watch<KubeObject>(kind, { namespace, resourceVersion, allowWatchBookmarks: true, signal })) {
          if (event.type === 'ERROR') {
            resourceVersion = undefined;
            entry.unlist();
            break;
          }
          resourceVersion = event.object.metadata?.resourceVersion ?? resourceVersion;
          if (event.type === 'BOOKMARK') continue;
          const meta = event.object.metadata ?? {};
          this.changed({
            resource,
            namespace: kind.namespaced ? meta.namespace : undefined,
            description: `${event.type} ${resource} ${[meta.namespace, meta.name].filter(Boolean).join('/')}`,
          });
        }
      } catch (err) {
        if (signal.aborted) break;
        // A kind the server does not serve (a CRD not installed) never changes. One that stops
        // being served while no one waits is dropped: the next wait asks again (its CRD may be back).
        if (isNotFound(err) && (first || this.views.size === 0)) {
          if (this.kinds.get(resource) === entry) this.kinds.delete(resource);
          entry.markListed();
          return;
        }
        resourceVersion = undefined;
        // Not served (for now): a wait that begins meanwhile need not wait for it, as a new tracker would not.
        if (isNotFound(err)) entry.markListed();
        else entry.unlist();
        await sleep(50, signal);
      }
    }
    entry.markListed();
  }
}

/**
 * The changes one wait sees: those to its kinds (a namespaced kind's only in
 * its namespace, when it has one; a relist of one of its kinds counts
 * everywhere) since it was opened.
 */
export class ChangeView implements Changes {
  lastChange = performance.now();
  lastChangeDescription = '';
  changes = 0;
  readonly ready: Promise<void>;
  private readonly resources: Set<string>;
  private waiters: Array<() => void> = [];
  private closed = false;

  constructor(
    private readonly kinds: readonly WatchedKind[],
    private readonly namespace: string | undefined,
    private readonly detach: () => Promise<void>,
  ) {
    this.resources = new Set(kinds.map((k) => k.resource));
    this.ready = Promise.all(kinds.map((k) => k.ready)).then(() => undefined);
  }

  unready(): string[] {
    return this.kinds.filter((k) => !k.listed).map((k) => k.resource);
  }

  nextChange(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.wake();
    await this.detach();
  }

  /** Counts `change` when it is this view's business. */
  observe(change: Change): void {
    if (!this.resources.has(change.resource)) return;
    if (this.namespace !== undefined && change.namespace !== undefined && change.namespace !== this.namespace) return;
    this.lastChange = performance.now();
    this.lastChangeDescription = change.description;
    this.changes++;
    this.wake();
  }

  /** Resolves the waiters for the next change. */
  wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

/**
 * Watches of its own on `kinds` (a namespaced kind only in `namespace`, when
 * given), and the changes to them from now on: closing it ends the watches.
 * What the standalone `converges` uses. `ready` resolves once every watch has
 * its starting point; until then `unready()` names the kinds still being
 * listed. A server that does not answer keeps it pending: the caller bounds
 * the wait, and closes.
 */
export function openChangeTracker(client: Client, kinds: readonly Kind[], namespace?: string): Changes {
  const watches = new KindWatches(client, namespace);
  return watches.view(kinds, namespace, () => watches.close());
}

/** `deployments.apps`, or `configmaps` for the core group. */
function resourceName(kind: Kind): string {
  return `${kind.plural}${kind.group ? `.${kind.group}` : ''}`;
}

/**
 * Knows when any of a set of kinds last changed, from watches (the runtime
 * client's), so that "nothing has changed for 500 ms" is observed rather
 * than assumed after a sleep. Each kind is listed once for its current
 * resourceVersion and watched from there: every event after that point is a
 * change. A watch that ends is resumed from the last resourceVersion seen; one
 * that cannot be (410, a broken connection) starts over from a new list and
 * counts as a change, since events may have been missed in between.
 */
import { setMaxListeners } from 'node:events';
import type { KubeObject } from '@operant/apimachinery';
import { isNotFound, type Client, type Kind } from '@operant/runtime';
import { sleep } from './outcome.js';

export class ChangeTracker {
  /** performance.now() of the last change seen (the tracker's start until one is). */
  lastChange = performance.now();
  /** `MODIFIED deployments.apps team-a/web`. */
  lastChangeDescription = '';
  changes = 0;
  /** Resolves once every kind has been listed and is watched from there. */
  ready: Promise<void> = Promise.resolve();
  /** The kinds not listed yet. */
  private readonly unlisted = new Set<string>();
  private waiters: Array<() => void> = [];
  private readonly stop = new AbortController();
  private readonly loops: Promise<void>[] = [];

  private constructor(
    private readonly client: Client,
    private readonly namespace: string | undefined,
  ) {
    // One signal for every kind's list, watch and retry delay.
    setMaxListeners(0, this.stop.signal);
  }

  /**
   * Starts watching `kinds` (a namespaced kind only in `namespace`, when given).
   * `ready` resolves once every watch has its starting point; until then
   * {@link unready} names the kinds still being listed. A server that does
   * not answer keeps it pending: the caller bounds the wait, and closes.
   */
  static open(client: Client, kinds: readonly Kind[], namespace?: string): ChangeTracker {
    const tracker = new ChangeTracker(client, namespace);
    const ready = kinds.map((kind) => {
      const resource = resourceName(kind);
      tracker.unlisted.add(resource);
      return new Promise<void>((resolve) =>
        tracker.loops.push(
          tracker.watch(kind, () => {
            tracker.unlisted.delete(resource);
            resolve();
          }),
        ),
      );
    });
    tracker.ready = Promise.all(ready).then(() => undefined);
    return tracker;
  }

  /** The kinds not listed yet (`configmaps`, `deployments.apps`). */
  unready(): string[] {
    return [...this.unlisted];
  }

  /** Resolves at the next change (or when the tracker closes). */
  nextChange(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async close(): Promise<void> {
    this.stop.abort();
    this.notify();
    await Promise.all(this.loops);
  }

  private changed(description: string): void {
    this.lastChange = performance.now();
    this.lastChangeDescription = description;
    this.changes++;
    this.notify();
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private async watch(kind: Kind, ready: () => void): Promise<void> {
    const signal = this.stop.signal;
    const namespace = kind.namespaced ? this.namespace : undefined;
    const resource = resourceName(kind);
    let resourceVersion: string | undefined;
    let first = true;
    while (!signal.aborted) {
      try {
        if (resourceVersion === undefined) {
          const list = await this.client.list(kind, { namespace, limit: 1, live: true, signal });
          resourceVersion = list.metadata.resourceVersion;
          if (!first) this.changed(`relisted ${resource}`);
          first = false;
          ready();
        }
        for await (const event of this.client.watch<KubeObject>(kind, { namespace, resourceVersion, allowWatchBookmarks: true, signal })) {
          if (event.type === 'ERROR') {
            resourceVersion = undefined;
            break;
          }
          resourceVersion = event.object.metadata?.resourceVersion ?? resourceVersion;
          if (event.type === 'BOOKMARK') continue;
          const meta = event.object.metadata ?? {};
          this.changed(`${event.type} ${resource} ${[meta.namespace, meta.name].filter(Boolean).join('/')}`);
        }
      } catch (err) {
        if (signal.aborted) break;
        // A kind the server does not serve (a CRD not installed) never changes.
        if (first && isNotFound(err)) {
          ready();
          return;
        }
        resourceVersion = undefined;
        await sleep(50, signal);
      }
    }
    ready();
  }
}

/** `deployments.apps`, or `configmaps` for the core group. */
function resourceName(kind: Kind): string {
  return `${kind.plural}${kind.group ? `.${kind.group}` : ''}`;
}

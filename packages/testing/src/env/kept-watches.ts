/**
 * The watches a test environment's `converges` calls see changes through:
 * a set per namespace (a namespaced kind watched in that namespace only, as
 * the standalone `converges` does; one set for the calls with no namespace),
 * opened by a call on the server's private socket (plain HTTP, no TLS
 * handshake to this same process) and kept while calls in that namespace
 * follow each other, so that the next call opens nothing; closed once no call
 * there has been waiting for `idleMs`, so that a namespace whose test has
 * moved on costs nothing. Each call sees only the changes since it began, to
 * its kinds (see {@link KindWatches}).
 */
import { Client, type ClientConfig, type Kind } from '@operant/runtime';
import { KindWatches, type ChangeView } from '../wait/change-tracker.js';

/** One namespace's watches, and the calls waiting on them. */
interface NamespaceWatches {
  readonly watches: KindWatches;
  waiting: number;
  idle: NodeJS.Timeout | undefined;
}

export class KeptWatches {
  private client: Client | undefined;
  /** By namespace; '' for the calls with none (all namespaces). */
  private readonly sets = new Map<string, NamespaceWatches>();

  constructor(
    /** Where the watches connect. */
    private readonly config: () => ClientConfig,
    private readonly idleMs: number,
  ) {}

  /** What one call sees; closing it may start its namespace's idle time. */
  view(kinds: readonly Kind[], namespace: string | undefined): ChangeView {
    const key = namespace ?? '';
    let set = this.sets.get(key);
    if (!set) {
      this.client ??= Client.fromConfig(this.config(), { qps: Infinity });
      set = { watches: new KindWatches(this.client, namespace), waiting: 0, idle: undefined };
      this.sets.set(key, set);
    }
    clearTimeout(set.idle);
    set.idle = undefined;
    set.waiting++;
    const opened = set;
    return opened.watches.view(kinds, namespace, () => {
      if (--opened.waiting > 0 || this.sets.get(key) !== opened) return;
      opened.idle = setTimeout(() => {
        this.sets.delete(key);
        void opened.watches.close();
      }, this.idleMs);
      // An idle environment must not hold the process open.
      opened.idle.unref();
    });
  }

  /** Ends every watch and closes their client. */
  async close(): Promise<void> {
    const sets = [...this.sets.values()];
    this.sets.clear();
    for (const set of sets) clearTimeout(set.idle);
    await Promise.all(sets.map((set) => set.watches.close()));
    this.client?.close();
    this.client = undefined;
  }
}

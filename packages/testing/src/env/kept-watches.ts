/**
 * The watches a test environment's `converges` calls see changes through:
 * opened by a call, on the server's private socket (plain HTTP, no TLS
 * handshake to this same process), and kept while calls follow each other,
 * so that the next call opens nothing; closed once no call has been waiting
 * for `idleMs`, so that an environment whose tests have moved on does not
 * read every change of its cluster for nothing. Each call sees only the
 * changes since it began, to its kinds, in its namespace (see {@link KindWatches}).
 */
import { Client, type ClientConfig, type Kind } from '@operant/runtime';
import { KindWatches, type ChangeView } from '../wait/change-tracker.js';

export class KeptWatches {
  private open: { watches: KindWatches; client: Client } | undefined;
  private waiting = 0;
  private idle: NodeJS.Timeout | undefined;

  constructor(
    /** Where the watches connect (asked at each opening). */
    private readonly config: () => ClientConfig,
    private readonly idleMs: number,
  ) {}

  /** What one call sees; closing it may start the idle time. */
  view(kinds: readonly Kind[], namespace: string | undefined): ChangeView {
    clearTimeout(this.idle);
    this.idle = undefined;
    if (!this.open) {
      const client = Client.fromConfig(this.config(), { qps: Infinity });
      this.open = { watches: new KindWatches(client), client };
    }
    const opened = this.open;
    this.waiting++;
    return opened.watches.view(kinds, namespace, () => {
      if (--this.waiting > 0 || this.open !== opened) return;
      this.idle = setTimeout(() => void this.close(), this.idleMs);
      // An idle environment must not hold the process open.
      this.idle.unref();
    });
  }

  /** Ends the watches (the next call opens them again). */
  async close(): Promise<void> {
    clearTimeout(this.idle);
    this.idle = undefined;
    const opened = this.open;
    this.open = undefined;
    if (!opened) return;
    await opened.watches.close();
    opened.client.close();
  }
}

/**
 * For tests: counters of what a client asks of the server, so a test can
 * prove that a read was answered from a cache (no request) and that
 * informers sharing a kind open one list and one watch.
 */
import type { KubeObject } from '@operant/apimachinery';
import type { ListerWatcher } from '../cache/list-watch.js';
import type { ListerWatcherSource } from '../cache/shared-informers.js';
import type { Client } from '../client/client.js';
import type { RequestMetrics } from '../client/metrics.js';
import type { PartialObjectMetadata } from '../client/options.js';
import type { Kind } from '../kind.js';

/**
 * Requests made by a client, by HTTP method: pass `metrics` to the client.
 *
 * @example
 * ```ts
 * const counter = new RequestCounter();
 * const api = useApiServer({ client: { metrics: counter.metrics } });
 * test('cached', async () => { const gets = counter.count('GET'); ...; assert.equal(counter.count('GET'), gets); });
 * ```
 */
export class RequestCounter {
  readonly byMethod = new Map<string, number>();
  readonly metrics: RequestMetrics = { observeRequest: (r) => void this.byMethod.set(r.method, this.count(r.method) + 1) };
  /** Requests made with `method`. */
  count(method: string): number {
    return this.byMethod.get(method) ?? 0;
  }
  /** Requests made with any method. */
  total(): number {
    return [...this.byMethod.values()].reduce((a, b) => a + b, 0);
  }
}

/**
 * A client's ListerWatchers, counting the lists and watches opened per kind,
 * keyed by plural (`configmaps`, or `secrets(metadata)` for metadata-only).
 *
 * @example
 * ```ts
 * const source = new CountingSource(api.client);
 * const factory = new SharedInformerFactory(source, { logger: silentLogger });
 * // ... after reads through the factory's informers:
 * assert.equal(source.watches.get('configmaps'), 1);
 * ```
 */
export class CountingSource implements ListerWatcherSource {
  readonly watches = new Map<string, number>();
  readonly lists = new Map<string, number>();
  constructor(private readonly client: Client) {}
  listerWatcher<T extends KubeObject>(kind: Kind<T>): ListerWatcher<T>;
  listerWatcher(kind: Kind, options: { metadataOnly: true }): ListerWatcher<PartialObjectMetadata>;
  listerWatcher(kind: Kind, options?: { metadataOnly?: boolean }): ListerWatcher<KubeObject> {
    const id = `${kind.plural}${options?.metadataOnly ? '(metadata)' : ''}`;
    const lw: ListerWatcher<KubeObject> = options?.metadataOnly ? this.client.listerWatcher(kind, { metadataOnly: true }) : this.client.listerWatcher(kind);
    return {
      list: (opts) => {
        this.lists.set(id, (this.lists.get(id) ?? 0) + 1);
        return lw.list(opts);
      },
      watch: (opts) => {
        this.watches.set(id, (this.watches.get(id) ?? 0) + 1);
        return lw.watch(opts);
      },
    };
  }
}

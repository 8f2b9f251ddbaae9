/**
 * Watch fan-out: 100 watchers on one collection, 10,000 creates; the delivery
 * latency of each event to each watcher, from the moment its create was sent
 * to the moment the watcher's chunk with it arrived. The baseline is a bare
 * Node HTTPS server that writes each created object to every open stream.
 */
import { Client, closedLoop } from './client.js';
import { configMap } from './fixtures.js';
import { schedCpuMsOf } from './proc.js';

export interface FanoutRun {
  p50: number;
  p99: number;
  max: number;
  /** events delivered per second, over all watchers */
  deliveredPerSecond: number;
  /** creates per second while fanning out */
  writesPerSecond: number;
  /** the server's CPU time (all threads) from the first create to the last delivery, per event delivered, µs; NaN without a pid */
  serverCpuUsPerEvent: number;
}

const sentPattern = /"sent":"([0-9.]+)"/;

/**
 * `collection` is the collection path; `startRevision` the resourceVersion to
 * watch from (undefined for the bare server, which ignores it).
 */
export async function fanout(
  client: Client,
  collection: string,
  startRevision: string | undefined,
  opts: {
    watchers: number;
    changes: number;
    writers: number;
    tag: string;
    serverPid?: number;
    /**
     * Creates per second to offer; without it the writers go as fast as the
     * server answers. Latency is only comparable between two servers at the
     * same offered rate: a faster server is otherwise measured under more load.
     */
    ratePerSecond?: number;
  },
): Promise<FanoutRun> {
  const latencies = new Float64Array(opts.watchers * opts.changes);
  let received = 0;
  let stray = 0;
  const query = `?watch=true${startRevision ? `&resourceVersion=${startRevision}` : ''}`;
  const streams = await Promise.all(
    Array.from({ length: opts.watchers }, () =>
      client.watch(`${collection}${query}`, (line, at) => {
        const m = sentPattern.exec(line);
        if (!m) {
          stray++;
          return;
        }
        latencies[received++] = at - Number(m[1]);
      }),
    ),
  );
  const expected = opts.watchers * opts.changes;
  try {
    const t0 = performance.now();
    const cpu0 = opts.serverPid === undefined ? NaN : schedCpuMsOf(opts.serverPid);
    const writes = await closedLoop(opts.writers, { total: opts.changes }, async (_w, i) => {
      if (opts.ratePerSecond !== undefined) {
        // Create i is due at t0 + i/rate; a writer that is behind goes at once.
        const wait = t0 + (i * 1000) / opts.ratePerSecond - performance.now();
        if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      }
      await client.ok('POST', collection, configMap(`${opts.tag}-${i}`, { sent: String(performance.now()) }));
    });
    const deadline = performance.now() + 60_000;
    while (received < expected && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    const elapsed = (performance.now() - t0) / 1000;
    const serverCpuMs = opts.serverPid === undefined ? NaN : schedCpuMsOf(opts.serverPid) - cpu0;
    if (received < expected) throw new Error(`watchers received ${received} of ${expected} events (${stray} other lines)`);
    const sorted = latencies.sort();
    const at = (p: number): number => sorted[Math.ceil(p * sorted.length) - 1];
    return {
      p50: at(0.5),
      p99: at(0.99),
      max: sorted[sorted.length - 1],
      deliveredPerSecond: expected / elapsed,
      writesPerSecond: writes.perSecond,
      serverCpuUsPerEvent: (serverCpuMs * 1000) / expected,
    };
  } finally {
    for (const s of streams) s.close();
  }
}

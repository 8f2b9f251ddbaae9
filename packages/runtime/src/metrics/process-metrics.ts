/**
 * prom-client's process and Node.js collectors, made once per process.
 *
 * Some of them run all the time, not only when scraped: an event-loop delay
 * monitor sampling every 10 ms and a GC observer. They cannot be stopped, so a
 * set per registry would leave one more running for every manager a process
 * makes (tests make hundreds). controller-runtime registers the process and
 * Go collectors once, on its process-wide registry; here the one set joins
 * every registry that wants it, under the same names.
 */
import type { Metric } from 'prom-client';
import { Registry, collectDefaultMetrics } from './prom-client.js';

let shared: readonly Metric[] | undefined;

/** The process-wide collectors, made on first use. */
export function processCollectors(): readonly Metric[] {
  if (shared === undefined) {
    const home = new Registry();
    collectDefaultMetrics({ register: home });
    shared = home
      .getMetricsAsArray()
      .map((m) => home.getSingleMetric(m.name))
      .filter((m): m is Metric => m !== undefined);
  }
  return shared;
}

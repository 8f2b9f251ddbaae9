/**
 * The prom-client the runtime's metrics use: its metric and registry classes
 * from their own modules, and collectDefaultMetrics loaded on first call,
 * rather than prom-client's index. The index also loads the default process
 * collectors (and @opentelemetry/api under them), the push gateway and the
 * cluster aggregator: some 80 modules and ~30 ms of CPU in every process that
 * imports the runtime, when only a manager's process metrics use any of it
 * (process-metrics.ts). These are the very classes the index exports (it
 * requires these modules), so a Registry or metric made with
 * `import { Counter } from 'prom-client'` mixes with them freely.
 *
 * The operant CLI bundle (scripts/bundle-cli.mjs) puts its bundled copies of
 * the same modules in place of this one (scripts/bundle-shims/prom-client-runtime.mjs).
 */
import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';

const require = createRequire(import.meta.url);

export const Counter = require('prom-client/lib/counter.js') as typeof PromClient.Counter;
export type Counter<T extends string = string> = PromClient.Counter<T>;
export const Gauge = require('prom-client/lib/gauge.js') as typeof PromClient.Gauge;
export type Gauge<T extends string = string> = PromClient.Gauge<T>;
export const Histogram = require('prom-client/lib/histogram.js') as typeof PromClient.Histogram;
export type Histogram<T extends string = string> = PromClient.Histogram<T>;
export const Registry = require('prom-client/lib/registry.js') as typeof PromClient.Registry;
export type Registry = PromClient.Registry;

/** prom-client's collectDefaultMetrics, its collectors loaded by the first call. */
export function collectDefaultMetrics<T extends PromClient.RegistryContentType>(config?: PromClient.DefaultMetricsCollectorConfiguration<T>): void {
  (require('prom-client/lib/defaultMetrics.js') as typeof PromClient.collectDefaultMetrics)(config);
}

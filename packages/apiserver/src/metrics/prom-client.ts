/**
 * The four prom-client classes the server's metrics use, from their own
 * modules rather than prom-client's index: the index also loads the default
 * process collectors (and @opentelemetry/api under them), the push gateway
 * and the cluster aggregator, some 80 modules and ~30 ms of CPU in every
 * process that imports the server, none of which it uses. These are the very
 * classes the index exports (it requires these modules).
 *
 * The operant CLI bundle (scripts/bundle-cli.mjs) puts its bundled copies of
 * the same modules in place of this one (scripts/bundle-shims/prom-client-core.mjs).
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

// What the runtime's metrics take from prom-client (packages/runtime/src/metrics/prom-client.ts),
// for the operant bundle only (scripts/bundle-cli.mjs): the same classes and collectDefaultMetrics,
// bundled, in place of that module's requires from node_modules (which esbuild does not follow).
// A name the runtime imports and this file lacks fails the bundle (no matching export).
import Counter from 'prom-client/lib/counter.js';
import Gauge from 'prom-client/lib/gauge.js';
import Histogram from 'prom-client/lib/histogram.js';
import Registry from 'prom-client/lib/registry.js';
import collectDefaultMetrics from 'prom-client/lib/defaultMetrics.js';

export { Counter, Gauge, Histogram, Registry, collectDefaultMetrics };

// What the embedded API server's metrics take from prom-client (packages/apiserver/src/metrics/prom-client.ts),
// for the operant bundle only (scripts/bundle-cli.mjs): the same classes, from their own modules,
// without prom-client's index, which also loads the default process metrics, the push gateway and
// the cluster aggregator (and with them Node's zlib, cluster and perf_hooks) that the server never
// uses. A name the server imports and this file lacks fails the bundle (no matching export).
import Counter from 'prom-client/lib/counter.js';
import Gauge from 'prom-client/lib/gauge.js';
import Histogram from 'prom-client/lib/histogram.js';
import Registry from 'prom-client/lib/registry.js';

export { Counter, Gauge, Histogram, Registry };

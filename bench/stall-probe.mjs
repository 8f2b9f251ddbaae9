// Preloaded (--import) into a server by bench/fanout-probe.ts: reports each event-loop stall over
// 8 ms on stdout with how much of it the main thread ran (CPU) and how much it waited for a CPU
// (the run queue), from /proc/thread-self/schedstat: "stall <ms> cpu <ms> wait <ms>".
// It also reports each full collection the API server's idle reclaimer asks for (memory/idle-reclaim.ts:
// vm.measureMemory, then perhaps the inspector's HeapProfiler.collectGarbage) as "reclaim <what> <ms>";
// with FANOUT_PROBE_NO_RECLAIM=1 it skips them (to see what they cost the round after).
import { readFileSync } from 'node:fs';
import inspector from 'node:inspector';
import vm from 'node:vm';

const read = () => readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ').map(Number);
let last = performance.now();
let [cpu, wait] = read();
setInterval(() => {
  const now = performance.now();
  const [c, w] = read();
  if (now - last > 8) process.stdout.write(`stall ${(now - last).toFixed(1)} cpu ${((c - cpu) / 1e6).toFixed(1)} wait ${((w - wait) / 1e6).toFixed(1)}\n`);
  last = now;
  cpu = c;
  wait = w;
}, 2).unref();

const skip = process.env.FANOUT_PROBE_NO_RECLAIM === '1';
const measureMemory = vm.measureMemory;
vm.measureMemory = function (...args) {
  const t = performance.now();
  if (skip) {
    process.stdout.write(`reclaim measureMemory skipped\n`);
    return Promise.resolve({});
  }
  const p = measureMemory.apply(this, args);
  void p.then(() => process.stdout.write(`reclaim measureMemory ${(performance.now() - t).toFixed(1)}\n`));
  return p;
};
const post = inspector.Session.prototype.post;
inspector.Session.prototype.post = function (method, ...rest) {
  if (method !== 'HeapProfiler.collectGarbage') return post.call(this, method, ...rest);
  const t = performance.now();
  const done = rest[rest.length - 1];
  if (skip) {
    process.stdout.write(`reclaim collectGarbage skipped\n`);
    if (typeof done === 'function') queueMicrotask(() => done(null, {}));
    return;
  }
  return post.call(this, method, ...rest.slice(0, -1), (...a) => {
    process.stdout.write(`reclaim collectGarbage ${(performance.now() - t).toFixed(1)}\n`);
    if (typeof done === 'function') done(...a);
  });
};

// Preloaded (--import) into a server by bench/fanout-probe.ts: reports each event-loop stall over
// 8 ms on stdout with how much of it the main thread ran (CPU) and how much it waited for a CPU
// (the run queue), from /proc/thread-self/schedstat: "stall <ms> cpu <ms> wait <ms>".
import { readFileSync } from 'node:fs';

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

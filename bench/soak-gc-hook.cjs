'use strict';
// Preloaded into the soak bench's server only (`node --expose-gc --require <this>`), never into a
// user's: on SIGUSR2 it writes the process's memory, collects all garbage (twice, a moment apart, so
// that what the first collection's finalizers freed goes too), and writes the memory again, as one
// `soak-gc {...}` line on stderr. What a forced collection gives back was only waiting for V8; what
// stays in the heap or in buffers after it is still referenced; RSS that stays up while both went
// down is the allocator's (glibc keeping freed memory).
const v8 = require('node:v8');
/** V8's spaces as committed (size) and used, MiB, for BENCH_SOAK_DIAG. */
const spaces = () =>
  Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, [s.space_size, s.space_used_size].map((n) => Math.round(n / 1024 / 102.4) / 10)]));
process.on('SIGUSR2', () => {
  const before = process.memoryUsage();
  const spacesBefore = spaces();
  globalThis.gc();
  setTimeout(() => {
    globalThis.gc();
    process.stderr.write(`soak-gc ${JSON.stringify({ before, after: process.memoryUsage(), spacesBefore, spacesAfter: spaces() })}\n`);
  }, 200);
});

'use strict';
// Preloaded into the soak bench's server only (`node --expose-gc --require <this>`), never into a
// user's: on SIGUSR2 it writes the process's memory, collects all garbage (twice, a moment apart, so
// that what the first collection's finalizers freed goes too), and writes the memory again, as one
// `soak-gc {...}` line on stderr. What a forced collection gives back was only waiting for V8; what
// stays in the heap or in buffers after it is still referenced; RSS that stays up while both went
// down is the allocator's (glibc keeping freed memory).
process.on('SIGUSR2', () => {
  const before = process.memoryUsage();
  globalThis.gc();
  setTimeout(() => {
    globalThis.gc();
    process.stderr.write(`soak-gc ${JSON.stringify({ before, after: process.memoryUsage() })}\n`);
  }, 200);
});

/**
 * For memory figures measured in a child process started with --expose-gc:
 * lets pending work finish and collects garbage a few times, then reads the
 * heap and RSS.
 */
const gc = (globalThis as { gc?: () => void }).gc;

/** True when the process can force a collection (started with --expose-gc). */
export const canCollect = gc !== undefined;

/** Heap used and RSS once pending callbacks have run and garbage is collected. */
export async function settle(): Promise<{ heap: number; rss: number }> {
  for (let i = 0; i < 4; i++) {
    await new Promise((r) => setImmediate(r));
    gc?.();
  }
  const m = process.memoryUsage();
  return { heap: m.heapUsed, rss: m.rss };
}

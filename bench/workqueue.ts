/**
 * The work queue (issue 5's benchmark), in this process: @operant/runtime's
 * WorkQueue (dirty and processing sets, priorities, metrics hooks with the
 * no-op provider) against the least a deduplicating async queue must do: a
 * Set of queued keys and an array FIFO, whose `get` returns a promise as ours
 * does (resolved at once when a key is waiting) and whose `done` does nothing.
 * client-node has no work queue.
 *
 * - Adds/s: 100,000 adds cycling over 1,000 distinct keys into an idle queue
 *   (99% of them merge into a waiting key).
 * - Cycles/s: 100,000 keys handed out to 8 async workers (get, then done),
 *   fed in 100 batches of the 1,000 keys, each batch drained before the next.
 */
import { type QueueItem } from '@operant/runtime';
import { WorkQueue } from '@operant/runtime/workqueue';
import { fmt, row, type Row } from './table.js';

type Log = (text: string) => void;

interface Queue {
  add(key: string): void;
  get(): Promise<QueueItem<string>>;
  done(key: string): void;
  len(): number;
  shutDown(): void;
}

const SHUTDOWN: QueueItem<string> = Object.freeze({ key: undefined, shutdown: true });

/** The baseline: a Set-deduplicated array FIFO with an async get. */
class DedupFifo implements Queue {
  private readonly queued = new Set<string>();
  private items: string[] = [];
  private head = 0;
  private readonly getters: Array<(item: QueueItem<string>) => void> = [];
  private stopped = false;

  add(key: string): void {
    if (this.stopped || this.queued.has(key)) return;
    const getter = this.getters.shift();
    if (getter) {
      getter({ key, shutdown: false });
      return;
    }
    this.queued.add(key);
    this.items.push(key);
  }

  get(): Promise<QueueItem<string>> {
    if (this.stopped) return Promise.resolve(SHUTDOWN);
    if (this.head < this.items.length) {
      const key = this.items[this.head++]!;
      if (this.head === this.items.length) {
        this.items = [];
        this.head = 0;
      }
      this.queued.delete(key);
      return Promise.resolve({ key, shutdown: false });
    }
    return new Promise((resolve) => this.getters.push(resolve));
  }

  done(): void {}

  len(): number {
    return this.items.length - this.head;
  }

  shutDown(): void {
    this.stopped = true;
    for (const g of this.getters.splice(0)) g(SHUTDOWN);
  }
}

const distinct = 1000;
const adds = 100_000;
const workers = 8;
const keys = Array.from({ length: distinct }, (_, i) => `default/pod-${String(i).padStart(5, '0')}`);

/** Seconds for `repeats` × 100,000 adds over the keys, a fresh queue each time. */
function timeAdds(make: () => Queue, repeats: number): number {
  const t0 = performance.now();
  let waiting = 0;
  for (let r = 0; r < repeats; r++) {
    const q = make();
    for (let i = 0; i < adds; i++) q.add(keys[i % distinct]!);
    waiting += q.len();
    q.shutDown();
  }
  const seconds = (performance.now() - t0) / 1000;
  if (waiting !== repeats * distinct) throw new Error(`expected ${distinct} waiting keys per queue, found ${waiting / repeats}`);
  return seconds;
}

/** Seconds for `repeats` × 100,000 add → get → done cycles through 8 workers. */
async function timeCycles(make: () => Queue, repeats: number): Promise<number> {
  const t0 = performance.now();
  for (let r = 0; r < repeats; r++) {
    const q = make();
    let handed = 0;
    const running = Array.from({ length: workers }, async () => {
      for (;;) {
        const item = await q.get();
        if (item.shutdown) return;
        handed++;
        q.done(item.key);
      }
    });
    for (let batch = 0; batch < adds / distinct; batch++) {
      for (const key of keys) q.add(key);
      // Let the workers drain the batch (they run on microtasks) before the next one.
      await new Promise((resolve) => setImmediate(resolve));
    }
    q.shutDown();
    await Promise.all(running);
    if (handed !== adds) throw new Error(`workers got ${handed} keys, expected ${adds}`);
  }
  return (performance.now() - t0) / 1000;
}

export async function workqueueSection(rounds: number, log: Log): Promise<Row[]> {
  const samples = Math.max(rounds, 5);
  const repeats = 10;
  log(`workqueue: ${adds.toLocaleString('en-US')} adds over ${distinct} keys, ${samples} samples of ${repeats} queues each`);
  const ours = (): Queue => new WorkQueue<string>();
  const base = (): Queue => new DedupFifo();
  // Warm-up: let the JIT settle both.
  for (let i = 0; i < 3; i++) {
    timeAdds(ours, repeats);
    timeAdds(base, repeats);
  }
  await timeCycles(ours, 2);
  await timeCycles(base, 2);
  const result = { addsOurs: [] as number[], addsBase: [] as number[], cyclesOurs: [] as number[], cyclesBase: [] as number[] };
  for (let s = 0; s < samples; s++) {
    result.addsOurs.push((repeats * adds) / timeAdds(ours, repeats));
    result.addsBase.push((repeats * adds) / timeAdds(base, repeats));
    result.cyclesOurs.push((repeats * adds) / (await timeCycles(ours, repeats)));
    result.cyclesBase.push((repeats * adds) / (await timeCycles(base, repeats)));
  }
  log(`  adds/s: ours ${result.addsOurs.map(fmt.rate).join(', ')}; baseline ${result.addsBase.map(fmt.rate).join(', ')}`);
  log(`  cycles/s: ours ${result.cyclesOurs.map(fmt.rate).join(', ')}; baseline ${result.cyclesBase.map(fmt.rate).join(', ')}`);
  const what = '(Set + array FIFO, async get)';
  return [
    row(`Workqueue adds/s, ${adds.toLocaleString('en-US')} adds over ${distinct.toLocaleString('en-US')} keys`, result.addsOurs, result.addsBase, fmt.rate, what),
    row(`Workqueue add → get → done/s, ${workers} workers`, result.cyclesOurs, result.cyclesBase, fmt.rate, what),
  ];
}

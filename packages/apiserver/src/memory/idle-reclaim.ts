/**
 * Gives memory back to the system once a burst is over (issue 14: after each
 * attack, RSS back within 20% of its level before).
 *
 * After a burst two things keep a process large that no longer needs to be.
 * V8 collects its old generation only when allocation pushes it to, or its
 * memory reducer's timer fires (8 s after a full collection, if there was
 * one): an idle server keeps the garbage of the burst, large strings most of
 * all. And glibc keeps the memory freed in its heap resident until
 * malloc_trim(): 2,000 TLS connections closed left ~70 MiB of it behind (a
 * bare Node HTTPS server does the same). So, checking RSS once a second: when
 * it has grown by more than a sixth over its level after the last reclaim and
 * has stopped growing, and the event loop was idle for most of the last
 * reading's interval, V8 is asked for a full collection (incremental; then,
 * with a small heap, a memory-reducing one that shrinks the young generation),
 * and then glibc to trim its heaps (through koffi, when it is installed and the C
 * library is glibc). The idle condition matters: the memory-reducing
 * collection stops the world (tens of milliseconds at 35 MiB of heap, more
 * with more), which a server still serving must not pay for memory it may
 * need again at once.
 *
 * A reclaim that gives back little means the live data grew: the next waits
 * twice as long, and after three such the new level is the one to compare
 * with. A hint (the history was compacted; most connections closed) asks for a
 * reclaim at once (if RSS is not growing) when RSS is that far over the lowest
 * level any reclaim left (see IdleReclaim.hint). The timer never keeps the
 * process alive.
 */
import { createRequire } from 'node:module';
import { measureMemory } from 'node:vm';

/** Stops the reclaimer this handle started (the shared timer stops with the last one). */
export interface IdleReclaim {
  /**
   * Something large was let go: reclaim at once if RSS is over the lowest level a reclaim left.
   * An urgent hint (most connections closed: their native buffers are free now) does so even
   * after reclaims that gave back little; another (a compaction) only after the spacing they set.
   */
  hint(urgent?: boolean): void;
  stop(): void;
}

export interface IdleReclaimOptions {
  /** How often RSS is read (default 1 s). */
  checkMs?: number;
  /** The least time between two reclaims (default 2 s); doubled after each that gave back little, up to maxSpacingMs. */
  minSpacingMs?: number;
  maxSpacingMs?: number;
  /** The process's resident bytes (default: process.memoryUsage.rss). */
  rss?: () => number;
  /** A full collection (default: V8's, see collectGarbage). */
  collect?: () => Promise<unknown>;
  /** Hands free heap memory back to the system (default: glibc's malloc_trim, if it can be called). */
  trim?: () => void;
  /** The share of time the event loop was busy since the last call, 0 to 1 (default: performance.eventLoopUtilization's). */
  busy?: () => number;
}

const mib = 1024 * 1024;
/** RSS this far over the level after the last reclaim (and at least minGrowth) asks for one. */
const growthRatio = 7 / 6;
const minGrowth = 16 * mib;
/** A reclaim that gives back less than this share of RSS (or 8 MiB) gave back little. */
const littleRatio = 0.05;
const littleBytes = 8 * mib;
/** After this many reclaims in a row that gave back little, the level they left is the new reference. */
const maxFruitless = 3;
/** A reclaim waits for an interval in which the event loop was busy less than this share of the time. */
const idleUtilization = 0.1;
/** Below this much heap in use, the memory-reducing (stop-the-world) collection is short enough to run. */
const lowMemoryCollectionMaxHeap = 64 * mib;

let shared: Reclaimer | undefined;
let users = 0;

/** Starts (or joins) the process's reclaimer. */
export function startIdleReclaim(options: IdleReclaimOptions = {}): IdleReclaim {
  shared ??= new Reclaimer(options);
  users++;
  const reclaimer = shared;
  let stopped = false;
  return {
    // A server closes its connections after stopping its reclaimer: their hints come too late to count.
    hint: (urgent = false) => {
      if (!stopped) reclaimer.hint(urgent);
    },
    stop: () => {
      if (stopped) return;
      stopped = true;
      if (--users === 0) {
        reclaimer.stop();
        shared = undefined;
      }
    },
  };
}

class Reclaimer {
  private readonly timer: NodeJS.Timeout;
  private readonly rss: () => number;
  private readonly collect: () => Promise<unknown>;
  private readonly trim: (() => void) | undefined;
  private readonly busy: () => number;
  private readonly minSpacingMs: number;
  private readonly maxSpacingMs: number;
  /** RSS after the last reclaim that counted (the reference growth is measured from); at first, the first reading's. */
  private level = NaN;
  /** The lowest RSS after a reclaim (none before the first): after a hint, growth is measured from it. */
  private floor = NaN;
  private previous = NaN;
  private spacingMs: number;
  private lastAt = 0;
  private fruitless = 0;
  private hinted: 'no' | 'yes' | 'urgent' = 'no';
  private running = false;
  private stopped = false;

  constructor(options: IdleReclaimOptions) {
    this.rss = options.rss ?? (() => process.memoryUsage.rss());
    this.collect = options.collect ?? collectGarbage;
    this.trim = 'trim' in options ? options.trim : glibcTrim();
    this.busy = options.busy ?? eventLoopBusy();
    this.minSpacingMs = options.minSpacingMs ?? 2_000;
    this.maxSpacingMs = options.maxSpacingMs ?? 60_000;
    this.spacingMs = this.minSpacingMs;
    this.timer = setInterval(() => this.check(), options.checkMs ?? 1_000);
    this.timer.unref();
  }

  hint(urgent: boolean): void {
    if (this.hinted !== 'urgent') this.hinted = urgent ? 'urgent' : 'yes';
    // What was let go is garbage now: no need to wait for the next tick.
    setImmediate(() => this.check());
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  private check(): void {
    // A check a hint scheduled just before stop() (setImmediate) finds the reclaimer stopped.
    if (this.running || this.stopped) return;
    const now = this.rss();
    // The first reading, a check after the start (not during it, while the server is still growing), is the first reference.
    if (Number.isNaN(this.level)) this.level = this.previous = now;
    const growing = now > this.previous * 1.02 + mib;
    this.previous = now;
    const over = (reference: number): boolean => now > reference * growthRatio && now - reference > minGrowth;
    // Read at every check, so that each reading covers the time since the one before.
    const busy = this.busy();
    // Still growing, or still serving: a hint stays pending for the first check that finds the server idle.
    if (growing || busy >= idleUtilization) return;
    const hinted = this.hinted;
    this.hinted = 'no';
    const spaced = Date.now() - this.lastAt >= this.spacingMs;
    const due = over(this.level) && spaced;
    const asked = (hinted === 'urgent' || (hinted === 'yes' && (this.fruitless === 0 || spaced))) && over(this.floor);
    if (!due && !asked) return;
    this.running = true;
    void this.reclaim(now).finally(() => (this.running = false));
  }

  private async reclaim(before: number): Promise<void> {
    try {
      await this.collect();
      // V8 frees the collected buffers' memory on a thread of its own, just after the collection.
      await new Promise((resolve) => setTimeout(resolve, 50).unref());
      this.trim?.();
    } catch (e) {
      console.error(`memory reclaim: ${(e as Error).message}`);
    }
    const after = this.rss();
    this.previous = after;
    this.lastAt = Date.now();
    if (before - after < Math.max(littleBytes, before * littleRatio)) {
      // Little given back: the live data grew. Reclaim less often, and after a few take this level as the reference.
      this.spacingMs = Math.min(this.maxSpacingMs, this.spacingMs * 2);
      if (++this.fruitless >= maxFruitless) {
        // The new level is the reference: growth past it is a new burst, reclaimed as soon as the first.
        this.level = after;
        this.fruitless = 0;
        this.spacingMs = this.minSpacingMs;
      }
    } else {
      this.spacingMs = this.minSpacingMs;
      this.fruitless = 0;
      this.level = Math.min(this.level, after);
    }
    this.floor = Number.isNaN(this.floor) ? after : Math.min(this.floor, after);
  }
}

/**
 * A full collection, as V8 runs it (incremental marking, the rest of the
 * process going on meanwhile). vm.measureMemory with eager execution starts
 * one at once: the one documented way to ask for a collection without
 * --expose-gc. Node marks it experimental and warns at its first use; that
 * warning would tell a server's user nothing, so it is kept quiet.
 */
export async function collectGarbage(): Promise<void> {
  const emitWarning = process.emitWarning;
  process.emitWarning = (() => undefined) as typeof process.emitWarning;
  let measured: Promise<unknown>;
  try {
    measured = measureMemory({ mode: 'summary', execution: 'eager' });
  } finally {
    process.emitWarning = emitWarning;
  }
  await measured;
  // That collection leaves the young generation as large as the burst made it (up to 32 MiB, empty
  // now). With a small heap, a memory-reducing collection (the inspector's collectGarbage, V8's
  // low-memory notification: stop-the-world, ~30 ms at 35 MiB, ~0.3 s of CPU at 100 MiB) shrinks it;
  // with a larger one that pause would cost more than it gives, and V8's memory reducer does it some
  // seconds later.
  const spaces = heapSpaceStatistics();
  const young = spaces.find((s) => s.space_name === 'new_space');
  const used = spaces.reduce((n, s) => n + s.space_used_size, 0);
  if (young && young.space_size >= 8 * mib && used < lowMemoryCollectionMaxHeap) await lowMemoryCollection();
}

/**
 * V8's heap spaces (node:v8's getHeapSpaceStatistics). node:v8 is loaded here, at the first
 * collection, not as the server's modules load: it brings three of Node's modules and five
 * bindings with it (heap snapshots, serialization, promise hooks), ~1% of a start's instructions.
 */
function heapSpaceStatistics(): ReturnType<typeof import('node:v8').getHeapSpaceStatistics> {
  v8 ??= createRequire(import.meta.url)('node:v8') as typeof import('node:v8');
  return v8.getHeapSpaceStatistics();
}
let v8: typeof import('node:v8') | undefined;

/** The event loop's utilization since the last call (the first call: since the process started). */
function eventLoopBusy(): () => number {
  let last: ReturnType<typeof performance.eventLoopUtilization> | undefined;
  return () => {
    const now = performance.eventLoopUtilization();
    const since = last ? performance.eventLoopUtilization(now, last) : now;
    last = now;
    return since.utilization;
  };
}

/** V8's low-memory collection, through an in-process inspector session (no port is opened). */
async function lowMemoryCollection(): Promise<void> {
  let inspector: typeof import('node:inspector');
  try {
    inspector = createRequire(import.meta.url)('node:inspector') as typeof import('node:inspector');
  } catch {
    return; // a Node built without the inspector
  }
  const session = new inspector.Session();
  session.connect();
  try {
    await new Promise<void>((resolve, reject) => session.post('HeapProfiler.collectGarbage', (e) => (e ? reject(e) : resolve())));
  } finally {
    session.disconnect();
  }
}

/** The part of koffi used here. */
interface Koffi {
  load(path: string): { func(signature: string): (...args: unknown[]) => unknown };
}

/**
 * glibc's malloc_trim(0) through koffi (an optional dependency: a prebuilt
 * binary in its npm package, loaded at the first reclaim, not at start), or
 * undefined when koffi is missing or the C library is not glibc.
 */
function glibcTrim(): (() => void) | undefined {
  if (process.platform !== 'linux') return undefined;
  let trim: ((pad: number) => unknown) | undefined;
  let loaded = false;
  return () => {
    if (!loaded) {
      loaded = true;
      try {
        const koffi = createRequire(import.meta.url)('koffi') as Koffi;
        trim = koffi.load('libc.so.6').func('int malloc_trim(size_t)');
      } catch {
        trim = undefined;
      }
    }
    trim?.(0);
  };
}

/**
 * The run loop of the server's level-triggered controllers: any number of
 * change notifications between two passes cause one pass; a pass never runs
 * inside a store commit (notifications come from there) nor twice at once; a
 * pass that reports a failed write is run again later, less and less often.
 */

/** One pass over the state; resolves true when a write failed and the pass should be run again. */
export type SyncPass = () => Promise<boolean>;

const retryMs = 50;
const maxRetryMs = 10_000;

export class CoalescedSync {
  private timer?: NodeJS.Timeout;
  private running = false;
  private again = false;
  private stopped = false;
  private backoffMs = retryMs;
  private current?: Promise<void>;

  /** `name` prefixes what a pass that throws logs. */
  constructor(
    private readonly name: string,
    private readonly pass: SyncPass,
  ) {}

  /** Asks for a pass (soon, or after `delay` ms). */
  schedule(delay = 0): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.run();
    }, delay);
  }

  /** Whether stop() was called: a pass under way should make no more writes. */
  get isStopped(): boolean {
    return this.stopped;
  }

  /** No more passes; resolves once the pass under way, if any, has ended (so that storage may close). */
  stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    return this.current ?? Promise.resolve();
  }

  private run(): Promise<void> {
    this.current = this.runPass().finally(() => (this.current = undefined));
    return this.current;
  }

  private async runPass(): Promise<void> {
    this.running = true;
    this.again = false;
    let failed: boolean;
    try {
      failed = await this.pass();
    } catch (e) {
      // Never allowed to take the server down; tried again shortly.
      console.error(`${this.name}: ${(e as Error).stack ?? String(e)}`);
      failed = true;
    }
    this.running = false;
    if (failed) {
      this.schedule(this.backoffMs);
      this.backoffMs = Math.min(this.backoffMs * 2, maxRetryMs);
      return;
    }
    this.backoffMs = retryMs;
    if (this.again) this.schedule();
  }
}

/**
 * A bounded FIFO of writes with one worker, so that recording never waits on
 * the API server: a full queue refuses work (the caller drops it), and writes
 * go out one at a time in order (an event's create before its series patches).
 */

/** Runs jobs one at a time, in order, holding at most `capacity` waiting jobs. */
export class SendQueue<J> {
  private readonly jobs: J[] = [];
  private running = false;
  private stopped = false;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly capacity: number,
    private readonly process: (job: J) => Promise<void>,
  ) {}

  /** Jobs waiting (not counting one being processed). */
  get length(): number {
    return this.jobs.length;
  }

  /** Whether an offer without `force` would be refused now (full or stopped). */
  get full(): boolean {
    return this.stopped || this.jobs.length >= this.capacity;
  }

  /**
   * Queues a job; false when the queue is full or stopped. `force` skips the
   * capacity check (for work whose count is bounded elsewhere).
   */
  offer(job: J, force = false): boolean {
    if (force ? this.stopped : this.full) return false;
    this.jobs.push(job);
    if (!this.running) {
      this.running = true;
      // Start on a later turn: a burst of synchronous calls all meets the same bound.
      setImmediate(() => void this.run());
    }
    return true;
  }

  /** Resolves once no job is waiting or running. */
  idle(): Promise<void> {
    if (!this.running && this.jobs.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Refuses new jobs; with `dropPending`, forgets the waiting ones. Returns how many were dropped. */
  stop(dropPending: boolean): number {
    this.stopped = true;
    if (!dropPending) return 0;
    return this.jobs.splice(0).length;
  }

  private async run(): Promise<void> {
    for (let job = this.jobs.shift(); job !== undefined; job = this.jobs.shift()) {
      try {
        await this.process(job);
      } catch {
        // process reports its own failures; one bad job must not stop the worker.
      }
    }
    this.running = false;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}

/**
 * What a manager runs, and the groups it runs them in: each group starts its
 * runnables together (and those added later at once), and stops them together
 * by aborting their signal and waiting for them to return.
 */
import { setMaxListeners } from 'node:events';

/**
 * Something the manager starts and stops: a controller, a webhook server, a
 * periodic job. `start` runs until `signal` aborts and then resolves once the
 * work has stopped; rejecting (before the signal aborts) stops the manager
 * with that error.
 *
 * @example
 * ```ts
 * import { setTimeout as delay } from 'node:timers/promises';
 * import type { Runnable } from '@operant/runtime';
 *
 * const ticker: Runnable = {
 *   needLeaderElection: false, // runs on every replica
 *   async start(signal) {
 *     while (!signal.aborted) {
 *       log.info({ heap: process.memoryUsage().heapUsed }, 'still here');
 *       await delay(10_000, undefined, { signal }).catch(() => undefined);
 *     }
 *   },
 * };
 * mgr.add(ticker);
 * ```
 */
export interface Runnable {
  start(signal: AbortSignal): Promise<void>;
  /**
   * Whether this runs only on the elected leader. Default true, as in
   * controller-runtime: controllers must not reconcile on two replicas at once.
   */
  needLeaderElection?: boolean;
}

/** Runnables that start and stop together. Internal. */
export class RunnableGroup {
  private readonly abort = new AbortController();
  private readonly pending: Runnable[] = [];
  private readonly running = new Set<Promise<void>>();
  private state: 'new' | 'started' | 'stopped' = 'new';

  /** `onError` receives a runnable's rejection; `stopping` tells whether the group was already stopping. */
  constructor(private readonly onError: (err: unknown, stopping: boolean) => void) {
    // Every runnable listens for the group's stop; a manager may run many (a simulated cluster runs a dozen controllers).
    setMaxListeners(0, this.abort.signal);
  }

  get started(): boolean {
    return this.state === 'started';
  }

  /** Queues `runnable`, or starts it at once when the group runs; ignored once the group has stopped. */
  add(runnable: Runnable): void {
    if (this.state === 'stopped') return;
    if (this.state === 'started') this.launch(runnable);
    else this.pending.push(runnable);
  }

  /** Starts every queued runnable. Does nothing after {@link stop}. */
  start(): void {
    if (this.state !== 'new') return;
    this.state = 'started';
    for (const runnable of this.pending.splice(0)) this.launch(runnable);
  }

  /** Aborts the group's signal and resolves once every runnable has returned. */
  async stop(): Promise<void> {
    this.state = 'stopped';
    this.pending.length = 0;
    this.abort.abort();
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  private launch(runnable: Runnable): void {
    const signal = this.abort.signal;
    const run = (async () => {
      try {
        await runnable.start(signal);
      } catch (err) {
        this.onError(err, signal.aborted);
      }
    })();
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }
}

/**
 * A leader-only loop that runs a pass, then waits `periodMs` of cluster time
 * after it ends before the next (kube's wait.Until): the shape of the
 * controllers that poll rather than watch (pod GC, the CSR cleaner).
 */
import type { Clock, Manager, Timer } from '@operant/runtime';

/** Options of {@link addPeriodicPass}. */
export interface PeriodicPassOptions {
  clock: Clock;
  periodMs: number;
  /** Run the first pass at start (kube's wait.Until) rather than a period after it. */
  immediately: boolean;
  /** Logged with the error when a pass fails; the next pass still comes. */
  failure: string;
}

/** Adds the loop to `mgr`; it stops with the manager. */
export function addPeriodicPass(mgr: Manager, options: PeriodicPassOptions, pass: () => Promise<void>): void {
  const { clock, periodMs } = options;
  mgr.add({
    needLeaderElection: true,
    start: (signal) =>
      new Promise<void>((resolve) => {
        let timer: Timer | undefined;
        const run = (): void => {
          timer = undefined;
          pass()
            .catch((err: unknown) => mgr.logger.error({ err }, options.failure))
            .finally(() => {
              if (!signal.aborted) timer = clock.setTimer(run, periodMs);
            });
        };
        if (options.immediately) run();
        else timer = clock.setTimer(run, periodMs);
        signal.addEventListener('abort', () => {
          timer?.cancel();
          resolve();
        }, { once: true });
      }),
  });
}

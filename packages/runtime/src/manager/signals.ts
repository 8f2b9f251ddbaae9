/**
 * Graceful shutdown on SIGTERM and SIGINT, as controller-runtime's
 * `SetupSignalHandler`: the first signal aborts, a second one exits at once.
 */

/**
 * Options of {@link handleSignals}.
 *
 * @example
 * ```ts
 * import { handleSignals } from '@operant/runtime';
 *
 * const signal = handleSignals({ signals: ['SIGTERM'], exitOnSecondSignal: false });
 * ```
 */
export interface HandleSignalsOptions {
  /** Default SIGTERM and SIGINT. */
  signals?: readonly NodeJS.Signals[];
  /** A second signal ends the process with exit code 1 (the shutdown is stuck or the user insists); default true. */
  exitOnSecondSignal?: boolean;
}

/**
 * A signal that aborts on the first SIGTERM or SIGINT (its reason names the
 * signal). Call it once per process.
 *
 * @example
 * ```ts
 * import { handleSignals, Manager } from '@operant/runtime';
 *
 * const mgr = await Manager.create({ leaderElection: { id: 'sidecarset' }, metricsPort: 8080, healthPort: 8081 });
 * await mgr.start(handleSignals()); // returns after a graceful shutdown on SIGTERM
 * ```
 */
export function handleSignals(options: HandleSignalsOptions = {}): AbortSignal {
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const exitOnSecond = options.exitOnSecondSignal ?? true;
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals): void => {
    if (!controller.signal.aborted) {
      controller.abort(new Error(`received ${name}`));
      if (!exitOnSecond) for (const s of signals) process.off(s, onSignal);
      return;
    }
    process.exit(1);
  };
  for (const s of signals) process.on(s, onSignal);
  return controller.signal;
}

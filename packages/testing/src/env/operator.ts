/**
 * The operator under test, run the way its main.ts would run it: a Manager
 * made from the given options, set up by the test (controllers, webhooks),
 * started, and awaited until its caches have synced and its controllers run.
 * A manager that cannot start (a kind not served, say) fails the start with
 * the reason; one that fails later fails its `stop()`. Its reconcile errors
 * are kept as they are logged (see reconcile-errors.ts).
 */
import { createLogger, Manager, type ClientConfig, type ManagerOptions } from '@operant/runtime';
import { ReconcileErrorLog, type ReconcileErrorRecord } from './reconcile-errors.js';
import type { TestScope } from './scope.js';

/**
 * The operator under test, running.
 *
 * @example
 * ```ts
 * declare const running: import('@operant/testing').RunningManager;
 * const reconciles = await running.manager.metrics.registry.getSingleMetricAsString('controller_runtime_reconcile_total');
 * await running.stop();
 * ```
 */
export interface RunningManager extends AsyncDisposable {
  readonly manager: Manager;
  /** Settles when the manager has stopped (rejecting with what made it fail). */
  readonly done: Promise<void>;
  /** Stops the manager and waits for it; rejects if it failed. */
  stop(): Promise<void>;
  /** The reconciles that failed (the last 50), oldest first, as its controllers logged them. */
  reconcileErrors(): ReconcileErrorRecord[];
}

/**
 * Options of {@link TestEnv.startManager}.
 *
 * @example
 * ```ts
 * import type { StartManagerOptions } from '@operant/testing';
 *
 * declare const proxy: import('@operant/testing').FaultProxy;
 * const options: StartManagerOptions = { kubeconfig: await proxy.clientConfig(), manager: { cacheSyncTimeoutMs: 30_000 } };
 * ```
 */
export interface StartManagerOptions {
  /** Stops the manager when this test ends. */
  scope?: TestScope;
  /** Where the manager connects instead of the environment's server, e.g. a fault proxy's `clientConfig()`. */
  kubeconfig?: ClientConfig;
  /** Further manager options (the kubeconfig and webhook server are the environment's). */
  manager?: Omit<ManagerOptions, 'kubeconfig' | 'webhook'>;
}

/**
 * Creates a manager from `options`, hands it to `setup`, starts it and
 * resolves once its controllers run. Its reconcile errors go to `errors` too
 * (the manager's logger, or the one it would make, still writes them).
 */
export async function runManager(options: ManagerOptions, setup: (mgr: Manager) => unknown, errors = new ReconcileErrorLog()): Promise<RunningManager> {
  const manager = await Manager.create({ ...options, logger: errors.wrap(options.logger ?? createLogger()) });
  await setup(manager);
  const abort = new AbortController();
  const done = manager.start(abort.signal);
  // Reported through stop(); a test that never stops it must not see an unhandled rejection.
  done.catch(() => undefined);
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      abort.abort();
      await done;
    })();
    return stopping;
  };
  try {
    await Promise.race([
      manager.elected(),
      done.then(() => {
        throw new Error('the manager stopped before its controllers started');
      }),
    ]);
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
  return { manager, done, stop, reconcileErrors: () => errors.list(), [Symbol.asyncDispose]: stop };
}

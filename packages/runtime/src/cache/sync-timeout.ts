/**
 * The error for caches that did not sync in time, worded as controller-runtime
 * words it (`failed to wait for <controller> caches to sync <source>: timed out
 * waiting for cache to be synced for Kind <kind>`), so that what an operator
 * logs when the server keeps failing its lists reads the same in both worlds.
 */
import type { Kind } from '../kind.js';

/**
 * A manager or a controller gave up waiting for its caches after its
 * `cacheSyncTimeoutMs` (the server kept failing the lists, or was unreachable).
 *
 * @example
 * ```ts
 * import { handleSignals } from '@operant/runtime';
 * import { CacheSyncTimeoutError } from '@operant/runtime/cache';
 *
 * await mgr.start(handleSignals()).catch((err: unknown) => {
 *   // failed to wait for manager caches to sync cronjobs.batch: timed out waiting for cache to be synced for Kind CronJob (batch/v1)
 *   if (err instanceof CacheSyncTimeoutError) console.error(`${err.source} did not sync within ${err.timeoutMs} ms`);
 *   throw err;
 * });
 * ```
 */
export class CacheSyncTimeoutError extends Error {
  readonly waiter: string;
  readonly source: string;
  readonly timeoutMs: number;

  /**
   * `waiter`: a controller's name, or `manager`; `source`: what did not sync (a
   * source's description, an informer's name such as `cronjobs.batch@default`);
   * `kind`: the kind it caches, when known.
   */
  constructor(timeout: { waiter: string; source: string; kind?: Pick<Kind, 'group' | 'version' | 'kind'>; timeoutMs: number }) {
    const kind = timeout.kind;
    const forKind = kind ? ` for Kind ${kind.kind} (${kind.group ? `${kind.group}/${kind.version}` : kind.version})` : '';
    super(`failed to wait for ${timeout.waiter} caches to sync ${timeout.source}: timed out waiting for cache to be synced${forKind}`);
    this.name = 'CacheSyncTimeoutError';
    this.waiter = timeout.waiter;
    this.source = timeout.source;
    this.timeoutMs = timeout.timeoutMs;
  }
}

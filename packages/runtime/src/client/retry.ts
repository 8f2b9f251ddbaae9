/**
 * Retrying a read-change-write that lost a race, as client-go's
 * `retry.RetryOnConflict` and `retry.OnError` do: outside a reconcile (in a
 * CLI, a test, a one-off job) there is no workqueue to requeue on a 409, so
 * the caller reads again and retries a few times with a short pause.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { isConflict } from './api-error.js';

/** How often and how long to wait between tries (client-go's `wait.Backoff`). */
export interface RetryBackoff {
  /** How many times `fn` runs at most (at least 1). Default 5. */
  steps?: number;
  /** The first pause between tries, in ms. Default 10. */
  delayMs?: number;
  /** Each pause is the previous one times this. Default 1 (a constant pause). */
  factor?: number;
  /** Each pause is lengthened by up to this fraction of itself, at random, so that racing writers part. Default 0.1. */
  jitter?: number;
  /** Longest pause, in ms, however large `factor` makes it. Default none. */
  capMs?: number;
  /** Stops the waiting: a pending pause rejects with an `AbortError` (its `cause` the signal's reason), as Node's timers do. */
  signal?: AbortSignal;
}

/** client-go's `retry.DefaultRetry`: 5 tries, 10 ms apart with 10% jitter, for writes that race other writers. */
export const defaultRetry: Readonly<Required<Omit<RetryBackoff, 'capMs' | 'signal'>>> = Object.freeze({ steps: 5, delayMs: 10, factor: 1, jitter: 0.1 });

/**
 * Runs `fn` until it succeeds, it throws an error `retriable` rejects, or
 * `backoff.steps` tries have failed; then the last error is thrown.
 *
 * @example
 * ```ts
 * import { Client, Secret, isNotFound, retryOnError } from '@operant/runtime';
 *
 * declare const client: Client;
 * // Another component makes the Secret; wait for it, doubling the pause up to 2 s.
 * const certs = await retryOnError(isNotFound, () => client.get(Secret, 'webhook-certs', { namespace: 'system' }), { steps: 10, delayMs: 100, factor: 2, capMs: 2000 });
 * ```
 */
export async function retryOnError<T>(retriable: (err: unknown) => boolean, fn: () => Promise<T>, backoff: RetryBackoff = {}): Promise<T> {
  const steps = Math.max(1, backoff.steps ?? defaultRetry.steps);
  let pause = backoff.delayMs ?? defaultRetry.delayMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= steps || !retriable(err)) throw err;
    }
    const capped = backoff.capMs === undefined ? pause : Math.min(pause, backoff.capMs);
    await delay(capped * (1 + Math.random() * (backoff.jitter ?? defaultRetry.jitter)), undefined, { signal: backoff.signal });
    pause *= backoff.factor ?? defaultRetry.factor;
  }
}

/**
 * Runs a read-change-write again from its read when the write meets 409
 * Conflict (someone else wrote the object since it was read), with
 * {@link defaultRetry}'s pacing unless `backoff` says otherwise. `fn` must
 * read the object itself, so that each try starts from fresh data.
 *
 * @example
 * ```ts
 * import { Client, ConfigMap, retryOnConflict } from '@operant/runtime';
 *
 * declare const client: Client;
 * await retryOnConflict(async () => {
 *   const cm = await client.get(ConfigMap, 'settings', { namespace: 'default' });
 *   await client.update(ConfigMap, { ...cm, data: { ...cm.data, mode: 'strict' } });
 * });
 * ```
 */
export function retryOnConflict<T>(fn: () => Promise<T>, backoff?: RetryBackoff): Promise<T> {
  return retryOnError(isConflict, fn, backoff);
}

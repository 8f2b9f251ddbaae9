/**
 * Waiting that gives way to an AbortSignal, so that stopping an informer ends
 * every pending sleep and request at once and leaves no timer behind.
 */
import type { Clock } from '../workqueue/clock.js';

/**
 * Resolves after `ms`, or as soon as `signal` aborts (never rejects).
 *
 * @example
 * ```ts
 * import { realClock } from '@operant/runtime/workqueue';
 * import { sleep } from './abort.js';
 *
 * await sleep(1000, signal, realClock); // 1 s, or less if the informer stops meanwhile
 * ```
 */
export function sleep(ms: number, signal: AbortSignal, clock: Clock): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      timer.cancel();
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = clock.setTimer(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Settles like `promise`, or rejects with the signal's reason as soon as it
 * aborts, for sources that ignore their signal. A later rejection of `promise`
 * is absorbed.
 *
 * @example
 * ```ts
 * import { abortable } from './abort.js';
 *
 * declare const slowRequest: Promise<string>; // ignores the signal
 * const answer = await abortable(slowRequest, signal); // rejects with signal.reason on abort
 * ```
 */
export function abortable<R>(promise: Promise<R>, signal: AbortSignal): Promise<R> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<R>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

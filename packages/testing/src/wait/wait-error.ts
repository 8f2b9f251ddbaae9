/**
 * Why a wait failed: the helper, what it last saw, and (as `cause`) the last
 * error the check threw, so that a test report shows the assertion itself.
 */

/**
 * The error of a failed {@link eventually}, {@link consistently} or `converges`.
 *
 * @example
 * ```ts
 * import { eventually, WaitError } from '@operant/testing';
 *
 * await eventually(() => false, { timeout: 100 }).catch((err) => {
 *   if (err instanceof WaitError) console.log(err.helper, err.attempts, err.lastValue); // eventually 5 false
 * });
 * ```
 */
export class WaitError extends Error {
  constructor(
    message: string,
    readonly helper: 'eventually' | 'consistently' | 'converges',
    /** Checks run. */
    readonly attempts: number,
    /** What the last failing check returned (when it returned rather than threw). */
    readonly lastValue?: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'WaitError';
  }
}

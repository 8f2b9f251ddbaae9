/**
 * How a controller classifies what a reconcile throws: a terminal error (not
 * retried), a conflict (requeued quietly), a crash (a "panic": counted), or an
 * ordinary failure (retried with backoff). Wrapped errors are looked through
 * along their `cause` chain, as Go's `errors.Is` unwraps. (`ignoreNotFound`
 * and the `isX` checks of API errors live with the client's errors.)
 */
import { isConflict } from '../client/api-error.js';

/**
 * A failure that retrying cannot fix (invalid user input, say): the controller
 * logs it once, counts it in `terminal_reconcile_errors_total`, and does not
 * requeue the request. The next change to a watched object reconciles it again.
 *
 * @example
 * ```ts
 * import { TerminalError } from '@operant/runtime';
 *
 * declare const cron: { spec: { schedule: string } };
 * if (!/^(\S+\s+){4}\S+$/.test(cron.spec.schedule)) throw new TerminalError(`invalid schedule ${cron.spec.schedule}`);
 * // or wrap: throw new TerminalError(err);
 * ```
 */
export class TerminalError extends Error {
  /** `new TerminalError('message')`, or `new TerminalError(err)` to mark `err` terminal (it becomes the cause). */
  constructor(messageOrCause: unknown, options?: ErrorOptions) {
    if (typeof messageOrCause === 'string') {
      super(messageOrCause, options);
    } else {
      super(messageOrCause instanceof Error ? messageOrCause.message : String(messageOrCause), { cause: messageOrCause, ...options });
    }
    this.name = 'TerminalError';
  }
}

/**
 * Whether `err`, or an error in its `cause` chain, is a {@link TerminalError}.
 *
 * @example
 * ```ts
 * import { isTerminalError, TerminalError } from '@operant/runtime';
 *
 * isTerminalError(new Error('applying', { cause: new TerminalError('bad spec') })); // true
 * ```
 */
export function isTerminalError(err: unknown): boolean {
  return inCauseChain(err, (e) => e instanceof TerminalError);
}

/**
 * Whether `err`, or an error in its `cause` chain, is a 409 Conflict.
 *
 * @deprecated Use {@link isConflict}, which follows the `cause` chain too; this alias goes in the next release.
 *
 * @example
 * ```ts
 * import { isConflict } from '@operant/runtime';
 *
 * declare const err: unknown;
 * if (isConflict(new Error('updating status', { cause: err }))) console.log('stale: requeue quietly');
 * ```
 */
export const isConflictError: (err: unknown) => boolean = isConflict;

const runtimeErrors: ReadonlyArray<new (...args: never[]) => Error> = [TypeError, ReferenceError, RangeError, SyntaxError, EvalError, URIError];

/**
 * Whether a thrown value is a crash (Go's panic) rather than a reported
 * failure: a value that is not an Error, or one of the errors the JavaScript
 * engine throws on a bug (TypeError, ReferenceError, RangeError, SyntaxError,
 * EvalError, URIError), such as reading a property of `undefined`.
 *
 * @example
 * ```ts
 * import { isPanic } from '@operant/runtime';
 *
 * const obj: { spec?: { replicas: number } } = {};
 * try { obj.spec!.replicas; } catch (e) { isPanic(e); } // true: a TypeError
 * isPanic(new Error('backend down')); // false
 * ```
 */
export function isPanic(err: unknown): boolean {
  if (!(err instanceof Error)) return true;
  return runtimeErrors.some((type) => err instanceof type);
}

function inCauseChain(err: unknown, test: (e: unknown) => boolean): boolean {
  const seen = new Set<unknown>();
  for (let e: unknown = err; e !== undefined && e !== null && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    if (test(e)) return true;
    seen.add(e);
    if (typeof e !== 'object') return false;
  }
  return false;
}

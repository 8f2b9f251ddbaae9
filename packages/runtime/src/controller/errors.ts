/**
 * How a controller classifies what a reconcile throws: a terminal error (not
 * retried), a conflict (requeued quietly), a crash (a "panic": counted), or an
 * ordinary failure (retried with backoff). Wrapped errors are looked through
 * along their `cause` chain, as Go's `errors.Is` unwraps.
 */
import { isConflict } from '../client/index.js';

/**
 * A failure that retrying cannot fix (invalid user input, say): the controller
 * logs it once, counts it in `terminal_reconcile_errors_total`, and does not
 * requeue the request. The next change to a watched object reconciles it again.
 *
 * @example
 * ```ts
 * if (!isValidCron(cron.spec.schedule)) throw new TerminalError(`invalid schedule ${cron.spec.schedule}`);
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
 * isTerminalError(new Error('applying', { cause: new TerminalError('bad spec') })); // true
 * ```
 */
export function isTerminalError(err: unknown): boolean {
  return inCauseChain(err, (e) => e instanceof TerminalError);
}

/**
 * Whether `err`, or an error in its `cause` chain, is a 409 Conflict from the
 * API server (a stale resourceVersion): the controller requeues these quietly.
 *
 * @example
 * ```ts
 * isConflictError(new Error('updating status', { cause: apiError409 })); // true
 * ```
 */
export function isConflictError(err: unknown): boolean {
  return inCauseChain(err, isConflict);
}

const runtimeErrors: ReadonlyArray<new (...args: never[]) => Error> = [TypeError, ReferenceError, RangeError, SyntaxError, EvalError, URIError];

/**
 * Whether a thrown value is a crash (Go's panic) rather than a reported
 * failure: a value that is not an Error, or one of the errors the JavaScript
 * engine throws on a bug (TypeError, ReferenceError, RangeError, SyntaxError,
 * EvalError, URIError), such as reading a property of `undefined`.
 *
 * @example
 * ```ts
 * try { obj.spec.replicas; } catch (e) { isPanic(e); } // true: a TypeError
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

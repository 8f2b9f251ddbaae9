/**
 * How a controller classifies what a reconcile throws: a terminal error (not
 * retried), a conflict (requeued quietly), a crash (a "panic": counted), or an
 * ordinary failure (retried with backoff); and `ignoreNotFound`, for the
 * failure a reconcile usually expects (the object is gone). Wrapped errors are
 * looked through along their `cause` chain, as Go's `errors.Is` unwraps.
 */
import { isConflict, isNotFound } from '../client/index.js';

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
 * Whether `err`, or an error in its `cause` chain, is a 409 Conflict from the
 * API server (a stale resourceVersion): the controller requeues these quietly.
 *
 * @example
 * ```ts
 * import { ConfigMap, isConflictError } from '@operant/runtime';
 *
 * const cm = await client.get(ConfigMap, 'settings', { namespace: 'default' });
 * try {
 *   await client.updateStatus(ConfigMap, cm);
 * } catch (err) {
 *   if (isConflictError(new Error('updating status', { cause: err }))) console.log('stale: requeue quietly');
 * }
 * ```
 */
export function isConflictError(err: unknown): boolean {
  return inCauseChain(err, isConflict);
}

/**
 * Ignores a 404 NotFound from the API server, also wrapped in other errors'
 * `cause` (controller-runtime's `client.IgnoreNotFound`): returns undefined
 * for it, and rethrows anything else. As a `.catch` handler it turns a read
 * of an object that may be gone into `T | undefined`; in a `catch` block it
 * keeps "already deleted" from failing the reconcile.
 *
 * @example
 * ```ts
 * import { ConfigMap, ignoreNotFound, type ReconcileFunc } from '@operant/runtime';
 *
 * const reconcile: ReconcileFunc = async (req, { client }) => {
 *   const cm = await client.get(ConfigMap, req.name, { namespace: req.namespace }).catch(ignoreNotFound);
 *   if (!cm) return; // deleted since the event: nothing to do
 *   try {
 *     await client.delete(ConfigMap, `${req.name}-draft`, { namespace: req.namespace });
 *   } catch (err) {
 *     ignoreNotFound(err); // gone already is fine; any other error fails the reconcile
 *   }
 * };
 * ```
 */
export function ignoreNotFound(err: unknown): undefined {
  if (inCauseChain(err, isNotFound)) return undefined;
  throw err;
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

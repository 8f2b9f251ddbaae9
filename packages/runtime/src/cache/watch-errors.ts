/**
 * Classifying list and watch failures: a 410 (the requested resourceVersion is
 * older than the server keeps) means relist; anything else means retry later.
 * Works on the client's typed errors and on anything ApiError-like carrying a
 * numeric `code`, `statusCode` or `status.code`.
 */

/** The Status an ERROR watch event carries, as far as the reflector reads it. */
interface StatusLike {
  code?: unknown;
  reason?: unknown;
  message?: unknown;
}

/**
 * A watch ended with an ERROR event; `status` is the metav1.Status it carried.
 *
 * @example
 * ```ts
 * import { WatchStatusError } from '@operant/runtime/cache';
 *
 * declare const err: unknown;
 * if (err instanceof WatchStatusError && err.code === 410) console.log('relist: the history is gone');
 * ```
 */
export class WatchStatusError extends Error {
  readonly code: number | undefined;
  readonly reason: string | undefined;
  constructor(readonly status: unknown) {
    const s = (typeof status === 'object' && status !== null ? status : {}) as StatusLike;
    super(typeof s.message === 'string' ? s.message : `watch ERROR event: ${JSON.stringify(status)}`);
    this.name = 'WatchStatusError';
    this.code = typeof s.code === 'number' ? s.code : undefined;
    this.reason = typeof s.reason === 'string' ? s.reason : undefined;
  }
}

/**
 * A watch was not ended by the server well past the timeout it asked for: the
 * connection is presumed dead and is replaced.
 *
 * @example
 * ```ts
 * import { WatchStalledError } from '@operant/runtime/cache';
 *
 * declare const err: unknown;
 * if (err instanceof WatchStalledError) log.warn({}, 'watch stalled');
 * ```
 */
export class WatchStalledError extends Error {
  constructor(afterMs: number) {
    super(`the server did not end the watch within ${afterMs} ms`);
    this.name = 'WatchStalledError';
  }
}

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
}

/**
 * The HTTP status code an error carries, if any.
 *
 * @example
 * ```ts
 * import { StatusError } from '@operant/apimachinery';
 * import { statusCodeOf } from './watch-errors.js';
 *
 * statusCodeOf(new StatusError(404, 'NotFound', 'pods "x" not found')); // 404
 * ```
 */
export function statusCodeOf(err: unknown): number | undefined {
  for (const candidate of [field(err, 'code'), field(err, 'statusCode'), field(field(err, 'status'), 'code'), field(field(err, 'body'), 'code')]) {
    if (typeof candidate === 'number') return candidate;
  }
  return undefined;
}

/**
 * True when a list or watch failure means "your resourceVersion is too old"
 * (410 Gone or Expired, on any error-like value): the reflector relists. The
 * client's {@link isResourceExpired} is narrower (the Expired reason only).
 *
 * @example
 * ```ts
 * import { needsRelist } from './watch-errors.js';
 *
 * needsRelist({ code: 410 }); // true
 * ```
 */
export function needsRelist(err: unknown): boolean {
  if (statusCodeOf(err) === 410) return true;
  const reason = field(err, 'reason') ?? field(field(err, 'status'), 'reason');
  return reason === 'Expired' || reason === 'Gone';
}

/**
 * A short, low-cardinality reason for metrics: the Status reason, a transport
 * error code, `HTTP<code>`, or the error's name.
 *
 * @example
 * ```ts
 * import { failureReason } from './watch-errors.js';
 *
 * failureReason(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })); // 'ECONNREFUSED'
 * ```
 */
export function failureReason(err: unknown): string {
  const reason = field(err, 'reason') ?? field(field(err, 'status'), 'reason');
  if (typeof reason === 'string' && reason) return reason;
  if (err instanceof WatchStalledError) return 'WatchStalled';
  const code = field(err, 'code');
  if (typeof code === 'string' && code) return code;
  const status = statusCodeOf(err);
  if (status !== undefined) return `HTTP${status}`;
  return err instanceof Error ? err.name : 'Error';
}

/**
 * The connection codes of a server out of reach or going away: a stream it
 * broke (reset, closed pipe), nobody listening on its port, or no socket
 * file at its Unix socket path (a restarting server's, between the old
 * socket's removal and the new one's).
 */
const connectionCodes = new Set(['ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'ENOENT']);

/**
 * True when a failure is the connection's, not an answer of the server's:
 * a server restarting or briefly out of reach. client-go's reflector logs
 * these at a low verbosity (a watch stream's probable EOF, a watch refused a
 * connection) and simply tries again after its back-off.
 *
 * @example
 * ```ts
 * import { isConnectionFailure } from './watch-errors.js';
 *
 * isConnectionFailure(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' })); // true
 * isConnectionFailure({ code: 500, reason: 'InternalError' }); // false
 * ```
 */
export function isConnectionFailure(err: unknown): boolean {
  const code = field(err, 'code');
  return typeof code === 'string' && connectionCodes.has(code);
}

/**
 * A readable message for any thrown value.
 *
 * @example
 * ```ts
 * import { errorMessage } from './watch-errors.js';
 *
 * errorMessage({ code: 410, message: 'gone' }); // 'gone'
 * ```
 */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  const message = field(err, 'message');
  if (typeof message === 'string') return message;
  try {
    return JSON.stringify(err) ?? String(err);
  } catch {
    return String(err);
  }
}

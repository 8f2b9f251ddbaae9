/**
 * Errors the API server answers with, as typed values: a metav1.Status turned
 * into an {@link ApiError} (apimachinery's `StatusError` with the request it
 * answered), and one family of predicates in the manner of client-go's
 * `apierrors.IsNotFound` and friends. Every predicate accepts any
 * `StatusError` and looks through wrapped errors' `cause`, as Go's
 * `errors.As` unwraps. Transport failures (connection refused, TLS) stay
 * ordinary Errors.
 */
import { StatusError, type Status, type StatusDetails, type StatusReason } from '@operant/apimachinery';

/**
 * A request the server refused, with its metav1.Status.
 *
 * @example
 * ```ts
 * import { ApiError, ConfigMap } from '@operant/runtime';
 *
 * try {
 *   await client.get(ConfigMap, 'missing', { namespace: 'default' });
 * } catch (e) {
 *   if (e instanceof ApiError) console.log(e.code, e.reason, e.message); // 404 NotFound configmaps "missing" not found
 * }
 * ```
 */
export class ApiError extends StatusError {
  /** `GET https://host/api/v1/...`, for messages. */
  readonly request: string;

  /**
   * `status` is the Status as sent, or one built from a non-Status answer;
   * `code` and `reason` (derived from the code when the server sent no
   * Status) are read from it.
   */
  constructor(status: Status, request: string) {
    const message = status.message || `the server responded with ${status.code}${status.reason ? ` (${status.reason})` : ''}`;
    // StatusError builds a Status of its own; an ApiError keeps the one the server sent, as sent.
    super(status.code, status.reason as StatusReason, message, status.details);
    Object.defineProperty(this, 'status', { value: status, enumerable: true });
    this.name = 'ApiError';
    this.request = request;
  }

  /** The Status's details: the object's name and kind, field causes, `retryAfterSeconds`. */
  get details(): StatusDetails | undefined {
    return this.status.details;
  }
}

/** The reason client-go assumes for a code when the answer was not a Status (`newUnstructuredResponseError`). */
function reasonForCode(code: number): StatusReason | undefined {
  switch (code) {
    case 400:
      return 'BadRequest';
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'NotFound';
    case 405:
      return 'MethodNotAllowed';
    case 406:
      return 'NotAcceptable';
    case 409:
      return 'Conflict';
    case 410:
      return 'Gone';
    case 413:
      return 'RequestEntityTooLarge';
    case 415:
      return 'UnsupportedMediaType';
    case 422:
      return 'Invalid';
    case 429:
      return 'TooManyRequests';
    case 500:
      return 'InternalError';
    case 503:
      return 'ServiceUnavailable';
    case 504:
      return 'ServerTimeout';
    default:
      return undefined;
  }
}

/**
 * Whether a decoded body is a metav1.Status (e.g. what a delete answers when the object is gone at once).
 *
 * @example
 * ```ts
 * import { ConfigMap, isStatus } from '@operant/runtime';
 *
 * const res = await client.delete(ConfigMap, 'settings');
 * if (isStatus(res)) console.log(res.status); // Success
 * ```
 */
export function isStatus(body: unknown): body is Status {
  return typeof body === 'object' && body !== null && (body as { kind?: unknown }).kind === 'Status' && typeof (body as { code?: unknown }).code === 'number';
}

/**
 * The error for an unsuccessful answer: its Status when it sent one, else a
 * Status made from the code and the body's text (as client-go does).
 */
export function apiErrorFromResponse(code: number, body: string, request: string): ApiError {
  let decoded: unknown;
  try {
    decoded = JSON.parse(body);
  } catch {
    decoded = undefined;
  }
  if (isStatus(decoded) && decoded.status !== 'Success') {
    // Some servers put 0 or the wrong code in the body; the HTTP code is authoritative.
    return new ApiError({ ...decoded, code: decoded.code || code }, request);
  }
  const text = body.trim();
  const message = text ? `the server responded with ${code}: ${text.slice(0, 500)}` : `the server responded with ${code}`;
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code, message };
  const reason = reasonForCode(code);
  if (reason) status.reason = reason;
  return new ApiError(status, request);
}

/**
 * The first StatusError (an ApiError is one) in `err`'s `cause` chain, `err`
 * itself first: what client-go's `errors.As(err, &APIStatus)` finds.
 */
export function statusErrorOf(err: unknown): StatusError | undefined {
  const seen = new Set<unknown>();
  for (let e: unknown = err; typeof e === 'object' && e !== null && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    if (e instanceof StatusError) return e;
    seen.add(e);
  }
  return undefined;
}

/**
 * True when `err` (or its `cause` chain) holds a StatusError with `reason`, or
 * with no known reason and the code that reason goes with (client-go's
 * `ReasonForError` fallback). Without `code`, only the reason counts.
 */
function is(err: unknown, reason: StatusReason, code?: number): boolean {
  const status = statusErrorOf(err);
  if (!status) return false;
  if (status.reason === reason) return true;
  return code !== undefined && !knownReasons.has(status.reason ?? '') && status.code === code;
}

const knownReasons = new Set<string>([
  'BadRequest', 'Unauthorized', 'Forbidden', 'NotFound', 'AlreadyExists', 'Conflict', 'Gone', 'Invalid', 'ServerTimeout', 'Timeout',
  'TooManyRequests', 'MethodNotAllowed', 'NotAcceptable', 'RequestEntityTooLarge', 'UnsupportedMediaType', 'InternalError', 'Expired',
  'ServiceUnavailable',
]);

/**
 * 404: the object (or the resource) does not exist.
 *
 * @example
 * ```ts
 * import { ConfigMap, isNotFound } from '@operant/runtime';
 *
 * const cm = await client.get(ConfigMap, 'settings').catch((e) => (isNotFound(e) ? undefined : Promise.reject(e)));
 * ```
 */
export function isNotFound(err: unknown): boolean {
  return is(err, 'NotFound', 404);
}

/**
 * 409 Conflict: a stale resourceVersion ("the object has been modified"); requeue and retry on fresh data.
 *
 * @example
 * ```ts
 * import { ConfigMap, isConflict, type ReconcileFunc } from '@operant/runtime';
 *
 * const reconcile: ReconcileFunc = async (req, { client }) => {
 *   const cm = await client.get(ConfigMap, req.name, { namespace: req.namespace });
 *   try {
 *     await client.update(ConfigMap, { ...cm, data: { ...cm.data, seen: 'true' } });
 *   } catch (e) {
 *     if (isConflict(e)) return { requeue: true }; // quietly: someone else wrote first
 *     throw e;
 *   }
 * };
 * ```
 */
export function isConflict(err: unknown): boolean {
  return is(err, 'Conflict', 409);
}

/**
 * 409 AlreadyExists: a create of a name that is taken.
 *
 * @example
 * ```ts
 * import { ConfigMap, isAlreadyExists } from '@operant/runtime';
 *
 * const cm = { metadata: { name: 'settings', namespace: 'default' } };
 * await client.create(ConfigMap, cm).catch((e: unknown) => { if (!isAlreadyExists(e)) throw e; });
 * ```
 */
export function isAlreadyExists(err: unknown): boolean {
  return is(err, 'AlreadyExists');
}

/**
 * 403 Forbidden: RBAC refused, or a namespace is terminating.
 *
 * @example
 * ```ts
 * import { isForbidden, Secret } from '@operant/runtime';
 *
 * await client.list(Secret, { namespace: 'kube-system', live: true }).catch((e: unknown) => {
 *   if (isForbidden(e)) log.error({ err: e }, 'missing RBAC permission');
 *   throw e;
 * });
 * ```
 */
export function isForbidden(err: unknown): boolean {
  return is(err, 'Forbidden', 403);
}

/**
 * 401 Unauthorized: the credentials were not accepted.
 *
 * @example
 * ```ts
 * import { isUnauthorized, Namespace } from '@operant/runtime';
 *
 * await client.list(Namespace, { live: true }).catch((e: unknown) => {
 *   if (isUnauthorized(e)) console.error('the kubeconfig credentials were refused');
 *   throw e;
 * });
 * ```
 */
export function isUnauthorized(err: unknown): boolean {
  return is(err, 'Unauthorized', 401);
}

/**
 * 422 Invalid: validation failed; `err.details.causes` lists each field error.
 *
 * @example
 * ```ts
 * import { ApiError, ConfigMap, isInvalid } from '@operant/runtime';
 *
 * await client.create(ConfigMap, { metadata: { name: 'Not_A_Name', namespace: 'default' } }).catch((e: unknown) => {
 *   if (isInvalid(e)) for (const c of (e as ApiError).details?.causes ?? []) console.log(c.field, c.message);
 * });
 * ```
 */
export function isInvalid(err: unknown): boolean {
  return is(err, 'Invalid', 422);
}

/**
 * 400 BadRequest.
 *
 * @example
 * ```ts
 * import { isBadRequest, Pod } from '@operant/runtime';
 *
 * await client.list(Pod, { live: true, fieldSelector: 'spec.unknownField=x' }).catch((e: unknown) => {
 *   if (isBadRequest(e)) console.error(e); // e.g. a malformed selector or strict field validation
 * });
 * ```
 */
export function isBadRequest(err: unknown): boolean {
  return is(err, 'BadRequest', 400);
}

/**
 * 410 Gone: a watch's resourceVersion is older than the server keeps (relist).
 *
 * @example
 * ```ts
 * import { isGone } from '@operant/runtime';
 *
 * declare const err: unknown; // what a list or a watch rejected with
 * if (isGone(err)) console.log('the resourceVersion is older than the server keeps: list again');
 * ```
 */
export function isGone(err: unknown): boolean {
  return is(err, 'Gone', 410);
}

/**
 * 410 Expired: a too-old resourceVersion or an expired continue token (relist).
 *
 * @example
 * ```ts
 * import { isResourceExpired, Pod } from '@operant/runtime';
 *
 * declare const token: string; // a continue token from an earlier page
 * const page = await client.list(Pod, { live: true, limit: 500, continue: token }).catch((e: unknown) => {
 *   if (isResourceExpired(e)) return client.list(Pod, { live: true, limit: 500 }); // start over
 *   throw e;
 * });
 * ```
 */
export function isResourceExpired(err: unknown): boolean {
  return is(err, 'Expired');
}

/**
 * 429 TooManyRequests; `err.details.retryAfterSeconds` says when to retry, if the server said.
 *
 * @example
 * ```ts
 * import { ConfigMap, isTooManyRequests, type ApiError, type ReconcileFunc } from '@operant/runtime';
 *
 * const reconcile: ReconcileFunc = async (req, { client }) => {
 *   try {
 *     await client.get(ConfigMap, req.name, { namespace: req.namespace, live: true });
 *   } catch (e) {
 *     if (isTooManyRequests(e)) return { requeueAfter: ((e as ApiError).details?.retryAfterSeconds ?? 1) * 1000 };
 *     throw e;
 *   }
 * };
 * ```
 */
export function isTooManyRequests(err: unknown): boolean {
  return is(err, 'TooManyRequests', 429);
}

/**
 * True when `err` (or its `cause` chain) holds a StatusError whose details
 * list a cause of type `type` (apimachinery's `HasStatusCause`), such as
 * `NamespaceTerminating`: a write refused because its namespace is being deleted.
 *
 * @example
 * ```ts
 * import { ConfigMap, hasStatusCause, type ReconcileFunc } from '@operant/runtime';
 *
 * const reconcile: ReconcileFunc = async (req, { client }) => {
 *   await client.create(ConfigMap, { metadata: { name: `${req.name}-settings`, namespace: req.namespace } }).catch((e: unknown) => {
 *     if (hasStatusCause(e, 'NamespaceTerminating')) return; // the namespace, and this object with it, are on their way out
 *     throw e;
 *   });
 * };
 * ```
 */
export function hasStatusCause(err: unknown, type: string): boolean {
  return statusErrorOf(err)?.status.details?.causes?.some((c) => c.reason === type) ?? false;
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
  if (isNotFound(err)) return undefined;
  throw err;
}

/**
 * Ignores a 409 AlreadyExists (a create of a name that is taken), also
 * wrapped in `cause`: returns undefined for it, and rethrows anything else.
 *
 * @example
 * ```ts
 * import { ConfigMap, ignoreAlreadyExists } from '@operant/runtime';
 *
 * // made by us on an earlier run, or by someone else first: either way it exists
 * await client.create(ConfigMap, { metadata: { name: 'settings', namespace: 'default' } }).catch(ignoreAlreadyExists);
 * ```
 */
export function ignoreAlreadyExists(err: unknown): undefined {
  if (isAlreadyExists(err)) return undefined;
  throw err;
}

/**
 * Ignores a 409 Conflict (a stale resourceVersion), also wrapped in `cause`:
 * returns undefined for it, and rethrows anything else. For a write that the
 * next reconcile will redo on fresh data.
 *
 * @example
 * ```ts
 * import { ConfigMap, ignoreConflict } from '@operant/runtime';
 *
 * const cm = await client.get(ConfigMap, 'settings', { namespace: 'default' });
 * await client.update(ConfigMap, { ...cm, data: { seen: 'true' } }).catch(ignoreConflict);
 * ```
 */
export function ignoreConflict(err: unknown): undefined {
  if (isConflict(err)) return undefined;
  throw err;
}

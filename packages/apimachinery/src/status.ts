/**
 * metav1.Status errors with kube-apiserver's reasons, codes and wording.
 * Every error the server answers with is one of these; anything else is a bug
 * and is reported as an InternalError.
 */
import { fieldErrorBody, fieldErrorMessage, type FieldError } from './field-errors.js';
import { groupResourceString, type GroupResource } from './object.js';

export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Invalid'
  | 'ServerTimeout'
  | 'Timeout'
  | 'TooManyRequests'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'InternalError'
  | 'Expired'
  | 'ServiceUnavailable';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** The metav1.Status object sent on the wire. */
export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: StatusReason;
  details?: StatusDetails;
  code: number;
}

/** An error carrying the metav1.Status the server answers with. */
export class StatusError extends Error {
  readonly status: Status;
  /** `reason` undefined is kube's StatusReasonUnknown, which the Status leaves out. */
  constructor(code: number, reason: StatusReason | undefined, message: string, details?: StatusDetails) {
    super(message);
    this.name = 'StatusError';
    // Fields in metav1.Status's order (details before code), as kube serializes it.
    this.status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, ...(reason ? { reason } : {}), ...(details ? { details } : {}), code };
  }
  get code(): number {
    return this.status.code;
  }
  get reason(): StatusReason | undefined {
    return this.status.reason;
  }
}

/** True when `err` is a StatusError with the given reason. */
export function hasReason(err: unknown, reason: StatusReason): boolean {
  return err instanceof StatusError && err.status.reason === reason;
}

function grDetails(gr: GroupResource, name: string): StatusDetails {
  const d: StatusDetails = { name, kind: gr.resource };
  if (gr.group) d.group = gr.group;
  return d;
}

/** `pods "web" not found` (404). */
export function notFound(gr: GroupResource, name: string): StatusError {
  return new StatusError(404, 'NotFound', `${groupResourceString(gr)} ${JSON.stringify(name)} not found`, grDetails(gr, name));
}

/** `pods "web" already exists` (409). */
export function alreadyExists(gr: GroupResource, name: string): StatusError {
  return new StatusError(409, 'AlreadyExists', `${groupResourceString(gr)} ${JSON.stringify(name)} already exists`, grDetails(gr, name));
}

/** `Operation cannot be fulfilled on pods "web": <why>` (409). */
export function conflict(gr: GroupResource, name: string, why: string): StatusError {
  return new StatusError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${groupResourceString(gr)} ${JSON.stringify(name)}: ${why}`,
    grDetails(gr, name),
  );
}

/** The optimistic-concurrency failure kube reports for a stale resourceVersion. */
export const objectModifiedMessage =
  'the object has been modified; please apply your changes to the latest version and try again';

/**
 * `Pod "web" is invalid: [a: Required value, b: Invalid value: ...]` (422), one cause per field error.
 * `kind` is the Kind (e.g. `Pod`), as kube's NewInvalid uses the GroupKind.
 */
export function invalid(group: string, kind: string, name: string, errs: FieldError[]): StatusError {
  const causes: StatusCause[] = errs.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field }));
  const list = aggregateMessages(errs.map(fieldErrorMessage));
  const qualified = group ? `${kind}.${group}` : kind;
  const details: StatusDetails = { name, kind, causes };
  if (group) details.group = group;
  return new StatusError(422, 'Invalid', `${qualified} ${JSON.stringify(name)} is invalid: ${list}`, details);
}

/**
 * The text of Go's utilerrors aggregate: one message as it is, several as
 * `[a, b]`, each repeated message once.
 *
 * @example
 * ```ts
 * import { aggregateMessages } from '@operant/apimachinery';
 *
 * aggregateMessages(['a', 'b', 'a']); // '[a, b]'
 * aggregateMessages(['only']); // 'only'
 * ```
 */
export function aggregateMessages(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

/** A 400 with the message as given. */
export function badRequest(message: string, causes?: StatusCause[]): StatusError {
  return new StatusError(400, 'BadRequest', message, causes ? { causes } : undefined);
}

/** `pods "web" is forbidden: <why>` (403). An empty name gives `pods is forbidden: ...`. */
export function forbidden(gr: GroupResource, name: string, why: string, causes?: StatusCause[]): StatusError {
  const subject = name ? `${groupResourceString(gr)} ${JSON.stringify(name)}` : groupResourceString(gr);
  const details = grDetails(gr, name);
  if (causes) details.causes = causes;
  return new StatusError(403, 'Forbidden', `${subject} is forbidden: ${why}`, details);
}

/** Creating in a namespace being deleted, in kube's words. */
export function namespaceTerminating(gr: GroupResource, name: string, namespace: string): StatusError {
  const why = `unable to create new content in namespace ${namespace} because it is being terminated`;
  return forbidden(gr, name, why, [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }]);
}

/** 410 Expired, used for too-old resourceVersions and continue tokens. */
export function expired(message: string): StatusError {
  return new StatusError(410, 'Expired', message);
}

/** 410 Gone, used by watch for a resourceVersion older than the retained history. */
export function gone(message: string): StatusError {
  return new StatusError(410, 'Gone', message);
}

/** go-restful's 405 as kube sends it (NewGenericServerResponse), with empty details. */
export function methodNotAllowed(): StatusError {
  return new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}

export function unsupportedMediaType(contentType: string, accepted: string[]): StatusError {
  const what = contentType ? `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}` : 'unsupported media type';
  return new StatusError(415, 'UnsupportedMediaType', what);
}

export function notAcceptable(accepted: string[]): StatusError {
  return new StatusError(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`);
}

export function requestEntityTooLarge(limit: number): StatusError {
  return new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`);
}

export function unauthorized(): StatusError {
  return new StatusError(401, 'Unauthorized', 'Unauthorized');
}

export function tooManyRequests(message: string, retryAfterSeconds: number): StatusError {
  return new StatusError(429, 'TooManyRequests', message, { retryAfterSeconds });
}

export function timeout(message: string): StatusError {
  return new StatusError(504, 'Timeout', message);
}

/**
 * What kube-apiserver answers for an error its storage did not turn into a
 * Status (responsewriters.ErrorToAPIStatus): 500, no reason, no details, the
 * error's own text as the message.
 */
export function unknownError(message: string): StatusError {
  return new StatusError(500, undefined, message);
}

/** `Internal error occurred: <why>` (500). */
export function internalError(why: string): StatusError {
  return new StatusError(500, 'InternalError', `Internal error occurred: ${why}`, { causes: [{ message: why }] });
}

/** The Status kube sends for a successful delete of an object that is gone at once (when not returning the object). */
export function successStatus(gr: GroupResource, name: string, uid?: string): Status {
  const details = grDetails(gr, name);
  if (uid) details.uid = uid;
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details, code: 200 };
}

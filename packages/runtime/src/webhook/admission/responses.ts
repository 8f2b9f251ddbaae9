/**
 * Building admission responses, with controller-runtime's codes and reasons
 * (`Allowed`, `Denied`, `Errored`, `PatchResponseFromRaw`).
 */
import fastJsonPatch from 'fast-json-patch';
import type { JsonPatchOperation, Status } from '@operant/apimachinery';
import type { AdmissionResponse, AdmissionStatus } from './types.js';
import { markEncodedPatch } from './encoded-patch.js';
import { jsonPatchText } from './patch-text.js';

const reasonsByCode: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

function withWarnings(response: AdmissionResponse, warnings: readonly string[] | undefined): AdmissionResponse {
  if (warnings && warnings.length > 0) response.warnings = [...warnings];
  return response;
}

/**
 * Admits the request unchanged (`status.code` 200), with optional warnings for the user.
 *
 * @example
 * ```ts
 * import { allowed, type AdmissionHandler } from '@operant/runtime';
 *
 * const handler: AdmissionHandler = async () => allowed(['spec.legacyField is deprecated; use spec.field']);
 * ```
 */
export function allowed(warnings?: readonly string[]): AdmissionResponse {
  return withWarnings({ allowed: true, status: { code: 200 } }, warnings);
}

/**
 * Refuses the request; the user reads `admission webhook "<name>" denied the request: <message>`.
 * The code defaults to 403 (reason Forbidden), as controller-runtime's `Denied`.
 *
 * @example
 * ```ts
 * import { allowed, decodeObject, denied, Pod, type AdmissionHandler } from '@operant/runtime';
 *
 * const handler: AdmissionHandler = async (req) => {
 *   const pod = decodeObject(req, Pod);
 *   if (!pod.metadata.labels?.['app']) return denied('pods need an app label');
 *   return allowed();
 * };
 * ```
 */
export function denied(message: string, code = 403, warnings?: readonly string[]): AdmissionResponse {
  const status: AdmissionStatus = { code, message };
  const reason = reasonsByCode[code];
  if (reason) status.reason = reason;
  return withWarnings({ allowed: false, status }, warnings);
}

/**
 * Refuses the request because the webhook could not decide (a bad request, a
 * failed lookup): `status.code` is `code`, the message the error's.
 *
 * @example
 * ```ts
 * import { allowed, errored, Namespace, type AdmissionHandler } from '@operant/runtime';
 *
 * const handler: AdmissionHandler = async (req, ctx) => {
 *   try {
 *     await ctx.client.get(Namespace, req.namespace!);
 *   } catch (err) {
 *     return errored(500, err);
 *   }
 *   return allowed();
 * };
 * ```
 */
export function errored(code: number, err: unknown): AdmissionResponse {
  return { allowed: false, status: { code, message: err instanceof Error ? err.message : String(err) } };
}

/**
 * Refuses the request with a whole metav1.Status (e.g. an Invalid error with
 * its causes), as controller-runtime does with an `APIStatus` error.
 *
 * @example
 * ```ts
 * import { fieldErrors, invalid } from '@operant/apimachinery';
 * import { allowed, deniedWithStatus, type AdmissionHandler } from '@operant/runtime';
 *
 * const handler: AdmissionHandler = async (req) => {
 *   const errs = req.name?.startsWith('tmp-') ? [fieldErrors.invalid('metadata.name', req.name, 'temporary names are reserved')] : [];
 *   return errs.length > 0 ? deniedWithStatus(invalid('apps.kruise.io', 'SidecarSet', req.name ?? '', errs).status) : allowed();
 * };
 * ```
 */
export function deniedWithStatus(status: Status | AdmissionStatus, warnings?: readonly string[]): AdmissionResponse {
  const { kind: _kind, apiVersion: _apiVersion, ...rest } = status as Status;
  return withWarnings({ allowed: false, status: { ...rest, metadata: {} } }, warnings);
}

/**
 * Admits the request with the JSON Patch that turns `original` into `mutated`
 * (base64, `patchType: 'JSONPatch'`); no patch when they are equal.
 *
 * @example
 * ```ts
 * import { decodeObject, patched, Pod, type AdmissionHandler } from '@operant/runtime';
 *
 * const handler: AdmissionHandler = async (req) => {
 *   const pod = decodeObject(req, Pod);
 *   const mutated = structuredClone(pod);
 *   mutated.spec?.containers.push({ name: 'sidecar', image: 'busybox' });
 *   return patched(pod, mutated);
 * };
 * ```
 */
export function patched(original: unknown, mutated: unknown, warnings?: readonly string[]): AdmissionResponse {
  if (!isContainer(original) || !isContainer(mutated)) {
    throw new TypeError('a JSON Patch is computed between two objects');
  }
  // The same operations as jsonPatchBetween, serialized without copying their values first.
  const text = jsonPatchText(original, mutated);
  const response: AdmissionResponse = { allowed: true, status: { code: 200 } };
  if (text !== undefined) {
    const patch = base64(text);
    response.patch = patch;
    response.patchType = 'JSONPatch';
    markEncodedPatch(response, patch);
  }
  return withWarnings(response, warnings);
}

/**
 * The JSON Patch (RFC 6902) operations that turn `original` into `mutated`.
 *
 * @example
 * ```ts
 * import { jsonPatchBetween } from '@operant/runtime';
 *
 * jsonPatchBetween({ a: 1 }, { a: 2 }); // [{ op: 'replace', path: '/a', value: 2 }]
 * ```
 */
export function jsonPatchBetween(original: unknown, mutated: unknown): JsonPatchOperation[] {
  if (!isContainer(original) || !isContainer(mutated)) {
    throw new TypeError('a JSON Patch is computed between two objects');
  }
  return fastJsonPatch.compare(original, mutated) as JsonPatchOperation[];
}

/**
 * The base64 of `text`'s UTF-8 bytes. ASCII text (a byte per character, the usual patch) is its own
 * Latin-1, which `btoa` encodes without making a Buffer first.
 */
function base64(text: string): string {
  return Buffer.byteLength(text) === text.length ? btoa(text) : Buffer.from(text).toString('base64');
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

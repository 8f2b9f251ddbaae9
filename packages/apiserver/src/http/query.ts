/** Parses the query parameters of API requests, refusing malformed values with 400s in kube's words. */
import { badRequest, fieldErrors, invalid, type FieldError } from '@operant/apimachinery';
import type { DeleteOptions, FieldValidation, ListOptions, PropagationPolicy, WatchOptions, WriteOptions } from '../registry/options.js';
import type { UserInfo } from '../auth/authn/user-info.js';

/**
 * What a write's options take from the request besides its query: who makes it, its
 * User-Agent, whether its body is the request's own parse. The options are made as one
 * object literal with these fields: Node 20's V8 defines a key added after an object
 * spread (`{ ...writeOptions(q), user }`) on a slow path, about 2.5 us a key (measured:
 * 6.8 us of each create's server CPU went to three such keys).
 */
export interface WriteRequest {
  user?: UserInfo;
  userAgent?: string;
  ownsBody?: boolean;
}

function parseBool(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw badRequest(`${name}: Invalid value: ${JSON.stringify(v)}: must be a boolean`);
}

function parseInt64(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^-?\d+$/.test(v)) throw badRequest(`${name}: Invalid value: ${JSON.stringify(v)}: must be an integer`);
  return Number(v);
}

function parseDryRun(values: string[]): boolean {
  for (const v of values) {
    if (v !== 'All') throw badRequest(`Invalid dryRun option: ${JSON.stringify(v)}: supported values: "All"`);
  }
  return values.length > 0;
}

export function writeOptions(q: URLSearchParams, request: WriteRequest = {}): WriteOptions {
  const fv = q.get('fieldValidation') ?? '';
  let fieldValidation: FieldValidation;
  if (fv === '' || fv === 'Warn') fieldValidation = 'Warn';
  else if (fv === 'Strict' || fv === 'Ignore') fieldValidation = fv;
  else throw badRequest(`fieldValidation: Unsupported value: ${JSON.stringify(fv)}: supported values: "Ignore", "Strict", "Warn"`);
  const fieldManager = q.get('fieldManager') ?? undefined;
  if (fieldManager !== undefined && fieldManager.length > 128) {
    throw badRequest(`fieldManager: Too long: may not be more than 128 bytes`);
  }
  const { user, userAgent, ownsBody } = request;
  return { dryRun: parseDryRun(q.getAll('dryRun')), fieldValidation, fieldManager, force: parseBool(q, 'force'), user, userAgent, ownsBody };
}

/** A list's options, refused as kube's ValidateListOptions refuses them. */
export function listOptions(q: URLSearchParams): ListOptions {
  const opts = parseListOptions(q);
  refuseInvalid(listOptionErrors(opts));
  return opts;
}

/** A watch's options, refused as kube's ValidateListOptions refuses them for a watch. */
export function watchOptions(q: URLSearchParams): WatchOptions {
  const opts = parseListOptions(q);
  refuseInvalid(watchOptionErrors(opts));
  const timeoutSeconds = parseInt64(q, 'timeoutSeconds');
  if (timeoutSeconds !== undefined && timeoutSeconds < 0) throw badRequest(`timeoutSeconds: Invalid value: ${timeoutSeconds}: must be greater than or equal to 0`);
  return { ...opts, allowWatchBookmarks: parseBool(q, 'allowWatchBookmarks'), timeoutSeconds };
}

function parseListOptions(q: URLSearchParams): ListOptions {
  const limit = parseInt64(q, 'limit');
  if (limit !== undefined && limit < 0) throw badRequest(`limit: Invalid value: ${limit}: must be greater than or equal to 0`);
  return {
    labelSelector: q.get('labelSelector') ?? undefined,
    fieldSelector: q.get('fieldSelector') ?? undefined,
    limit,
    continue: q.get('continue') || undefined,
    resourceVersion: q.get('resourceVersion') ?? undefined,
    resourceVersionMatch: q.get('resourceVersionMatch') || undefined,
    sendInitialEvents: parseBool(q, 'sendInitialEvents'),
  };
}

/** kube's ListResource: `ListOptions.meta.k8s.io "" is invalid: ...`, a 422 whose details name no object. */
function refuseInvalid(errs: FieldError[]): void {
  if (errs.length === 0) return;
  const err = invalid('meta.k8s.io', 'ListOptions', '', errs);
  delete err.status.details?.name;
  throw err;
}

/** kube's ValidateListOptions for a list. */
function listOptionErrors(opts: ListOptions): FieldError[] {
  const errs: FieldError[] = [];
  const match = opts.resourceVersionMatch;
  if (match) {
    if (!opts.resourceVersion) errs.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (opts.continue) errs.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan') errs.push(fieldErrors.notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    if (match === 'Exact' && opts.resourceVersion === '0') errs.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
  }
  if (opts.sendInitialEvents !== undefined) errs.push(fieldErrors.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  return errs;
}

/**
 * kube's validateWatchOptions with the WatchList feature on (kube 1.32's
 * default): sendInitialEvents needs resourceVersionMatch=NotOlderThan, and a
 * watch takes resourceVersionMatch only with sendInitialEvents. Bookmarks are
 * not required (kube sends no end bookmark to a client that did not allow them).
 */
function watchOptionErrors(opts: ListOptions): FieldError[] {
  const errs: FieldError[] = [];
  const match = opts.resourceVersionMatch;
  if (opts.sendInitialEvents !== undefined && match !== 'NotOlderThan') {
    errs.push(fieldErrors.forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
  }
  if (match) {
    if (opts.sendInitialEvents === undefined) errs.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    if (match !== 'NotOlderThan') errs.push(fieldErrors.notSupported('resourceVersionMatch', match, ['NotOlderThan']));
    if (opts.continue) errs.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
  }
  return errs;
}

const policies: PropagationPolicy[] = ['Background', 'Foreground', 'Orphan'];

/** DeleteOptions from the query, overridden by a DeleteOptions body when one is sent (kubectl sends a body). */
export function deleteOptions(q: URLSearchParams, body: unknown, user?: UserInfo): DeleteOptions {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const policy = (b.propagationPolicy as string | undefined) ?? q.get('propagationPolicy') ?? undefined;
  if (policy !== undefined && !policies.includes(policy as PropagationPolicy)) {
    throw badRequest(`propagationPolicy: Unsupported value: ${JSON.stringify(policy)}: supported values: "Foreground", "Background", "Orphan"`);
  }
  const dryRunValues = Array.isArray(b.dryRun) ? (b.dryRun as string[]) : q.getAll('dryRun');
  const grace = (b.gracePeriodSeconds as number | undefined) ?? parseInt64(q, 'gracePeriodSeconds');
  const orphan = (b.orphanDependents as boolean | undefined) ?? parseBool(q, 'orphanDependents');
  if (policy !== undefined && orphan !== undefined) {
    throw badRequest('orphanDependents: Invalid value: ' + String(orphan) + ': orphanDependents and deletionPropagation cannot be both set');
  }
  const pre = b.preconditions as { uid?: string; resourceVersion?: string } | undefined;
  return {
    dryRun: parseDryRun(dryRunValues),
    propagationPolicy: policy as PropagationPolicy | undefined,
    orphanDependents: orphan,
    gracePeriodSeconds: grace,
    preconditions: pre,
    // Here, not spread onto the result by the caller (see WriteRequest).
    user,
  };
}

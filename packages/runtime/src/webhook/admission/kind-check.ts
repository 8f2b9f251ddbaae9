/** The check typed handlers make before decoding: the request is for their kind. Internal. */
import type { Kind } from '../../kind.js';
import { formatGroupVersionKind } from './handler.js';
import { errored } from './responses.js';
import type { AdmissionRequest, AdmissionResponse } from './types.js';

/** An error answer (400) naming both kinds when `req` is not for `kind`; undefined when it is. */
export function kindMismatch(kind: Kind, req: AdmissionRequest): AdmissionResponse | undefined {
  const got = req.kind;
  if (got.group === kind.group && got.version === kind.version && got.kind === kind.kind) return undefined;
  return errored(400, new Error(`the webhook for ${formatGroupVersionKind(kind)} cannot handle a request for ${formatGroupVersionKind(got)}`));
}

/** Group, kind and name for the Invalid wording. */
export function subjectOf(kind: Kind, obj: { metadata?: { name?: string } }): { group: string; kind: string; name: string } {
  return { group: kind.group, kind: kind.kind, name: obj.metadata?.name ?? '' };
}

/**
 * The two Status shapes kube-apiserver's patch handler produces besides plain
 * BadRequests. Internal to the patch folder.
 */
import { StatusError } from '../status.js';

/**
 * What kube sends when a patch cannot be applied (a failing JSON patch operation, a
 * list of lists in a strategic merge patch): `NewGenericServerResponse(422, ...)` without
 * the "unexpected response" flag, so the Status carries only this fixed message and an
 * empty `details`. The library's own words are kept on `cause` for logs.
 */
export function patchRejected(detail: string): StatusError {
  const err = new StatusError(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
  err.cause = detail;
  return err;
}

/**
 * A plain Go error that reached kube's error writer unconverted: code 500, no reason,
 * the error text as the message (`kubectl` prints `Error from server: <message>`).
 */
export function unconvertedError(message: string): StatusError {
  const err = new StatusError(500, 'InternalError', message);
  // kube's StatusReasonUnknown is the empty string, which the wire form omits.
  delete err.status.reason;
  return err;
}

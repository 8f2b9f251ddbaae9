/**
 * The base64 patch `patched` made last, and the response carrying it, so that
 * the server can write that patch into its answer as it is: base64 needs no JSON
 * escaping, and `JSON.stringify` reads a long string character by character
 * (about 2 µs for a patch of ten operations, a tenth of what the defaulting
 * itself costs). A response whose `patch` was changed since is serialized as
 * any other.
 *
 * Only the latest patch is remembered (a WeakMap entry per response costs
 * about as much as it saves): a handler answers within the task that made its
 * patch unless it awaits I/O after `patched`, and then its answer is simply
 * serialized whole. Internal.
 */

/** The response `patched` made last, its copy by completeReview, and the patch both carry. */
let lastResponse: object | undefined;
let lastPatch: string | undefined;

/** Records that `response.patch` is `patch`, base64 made here; it replaces the record before. */
export function markEncodedPatch(response: object, patch: string): void {
  lastResponse = response;
  lastPatch = patch;
}

/** The base64 patch recorded for `response`, if it is the latest record and `response` still carries it. */
export function encodedPatchOf(response: object): string | undefined {
  return response === lastResponse && (response as { patch?: unknown }).patch === lastPatch ? lastPatch : undefined;
}

const marker = '"patch":""';

/**
 * `JSON.stringify(review)` for an AdmissionReview whose response carries a patch
 * recorded by {@link markEncodedPatch}: the review is serialized with an empty
 * patch, and the patch put in its place. Undefined when that does not apply (no
 * such patch, a `toJSON` on the way, or the empty patch's text is not found
 * exactly once), for the caller to serialize the review whole.
 */
export function reviewWithEncodedPatch(review: object): string | undefined {
  const response = (review as { response?: unknown }).response;
  if (typeof response !== 'object' || response === null) return undefined;
  const patch = encodedPatchOf(response);
  if (patch === undefined) return undefined;
  if (typeof (review as { toJSON?: unknown }).toJSON === 'function' || typeof (response as { toJSON?: unknown }).toJSON === 'function') return undefined;
  const carrier = response as { patch: string };
  carrier.patch = '';
  let text: string;
  try {
    text = JSON.stringify(review);
  } finally {
    carrier.patch = patch;
  }
  const at = text.indexOf(marker);
  // Another member spelled the same (an empty "patch" nested elsewhere) would make the place ambiguous.
  if (at < 0 || text.indexOf(marker, at + marker.length) >= 0) return undefined;
  const end = at + marker.length - 1;
  return text.slice(0, end) + patch + text.slice(end);
}

/**
 * Splitting a request target (`/validate-x?timeout=10s`) into its path and
 * query without building a URL, which costs more than the rest of routing.
 * The server falls back to WHATWG URL parsing when the raw path matches no
 * webhook, so unusual spellings are still resolved the same way. Internal.
 */

/** The raw path and query (without `?`) of `target`; a fragment, which clients do not send, is dropped. */
export function splitTarget(target: string): { path: string; query: string } {
  const hash = target.indexOf('#');
  const text = hash < 0 ? target : target.slice(0, hash);
  const q = text.indexOf('?');
  return q < 0 ? { path: text, query: '' } : { path: text.slice(0, q), query: text.slice(q + 1) };
}

/** The `timeout` query parameter kube-apiserver adds to webhook calls, or null. */
export function timeoutParam(query: string): string | null {
  if (query === '') return null;
  return new URLSearchParams(query).get('timeout');
}

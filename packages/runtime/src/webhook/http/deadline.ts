/**
 * How long a request may take: the server's own limit, shortened to finish
 * before the caller gives up when the API server says how long it waits
 * (`?timeout=10s`, which kube-apiserver adds to every webhook call). Internal.
 */

const goDuration = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;
const unitMs: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds of a simple Go duration (`10s`, `1.5s`, `500ms`), or undefined. */
export function parseGoDuration(text: string | null): number | undefined {
  if (!text) return undefined;
  const m = goDuration.exec(text.trim());
  if (!m) return undefined;
  return Number(m[1]) * unitMs[m[2]!]!;
}

/**
 * The time budget of a request: `limitMs`, or less when the caller's `timeout`
 * leaves less; a tenth of the caller's timeout (at most one second) is kept to
 * send the answer back in time.
 */
export function requestBudgetMs(limitMs: number, callerTimeout: string | null): number {
  const caller = parseGoDuration(callerTimeout);
  if (caller === undefined || caller <= 0) return limitMs;
  const margin = Math.min(1000, caller / 10);
  return Math.max(1, Math.min(limitMs, caller - margin));
}

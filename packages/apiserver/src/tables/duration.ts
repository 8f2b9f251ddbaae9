/**
 * kube's human-readable durations (k8s.io/apimachinery/pkg/util/duration), as
 * the AGE and RESTARTS columns print them. Durations are in milliseconds and may
 * be fractional; Go's integer truncation is reproduced with Math.trunc.
 */

const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;

/**
 * A tolerance check shared by both formatters: more than 2 seconds (exclusive)
 * in the future is `<invalid>`, anything else below zero counts as now.
 */
function belowZero(ms: number): string | undefined {
  const seconds = Math.trunc(ms / second);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  return undefined;
}

/**
 * kube's `duration.HumanDuration`: about two or three significant figures,
 * e.g. `45s`, `119s`, `4m3s`, `70m`, `3h4m`, `47h`, `2d3h`, `45d`, `2y100d`, `8y`.
 */
export function humanDuration(ms: number): string {
  const early = belowZero(ms);
  if (early !== undefined) return early;
  const seconds = Math.trunc(ms / second);
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / minute);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / hour);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const dy = days % 365;
    return dy === 0 ? `${years}y` : `${years}y${dy}d`;
  }
  return `${years}y`;
}

/**
 * kube's `duration.ShortHumanDuration`: a single unit, e.g. `59s`, `1m`, `23h`,
 * `364d`, `2y`.
 */
export function shortHumanDuration(ms: number): string {
  const early = belowZero(ms);
  if (early !== undefined) return early;
  const seconds = Math.trunc(ms / second);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.trunc(ms / minute);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.trunc(ms / hour);
  if (hours < 24) return `${hours}h`;
  if (hours < 24 * 365) return `${Math.trunc(hours / 24)}d`;
  return `${Math.trunc(ms / hour / 24 / 365)}y`;
}

/**
 * Parses a Kubernetes timestamp (RFC 3339 `Time`, or `MicroTime` with up to
 * nanosecond fractions) to epoch milliseconds; undefined when absent or not a
 * timestamp (Go's zero time).
 */
export function parseTimestamp(value: unknown): number | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  // JavaScript dates keep milliseconds only: cut longer fractions down to three digits.
  const normalized = value.replace(/(\.\d{3})\d+/, '$1');
  const ms = Date.parse(normalized);
  if (Number.isNaN(ms)) return undefined;
  // Go's zero time (0001-01-01T00:00:00Z) counts as unset, as metav1.Time.IsZero does.
  if (/^0001-01-01T00:00:00(\.0+)?Z$/.test(value)) return undefined;
  return ms;
}

/**
 * kube printers' `translateTimestampSince`: the human duration from a timestamp
 * until `now`, or `<unknown>` when the timestamp is unset.
 */
export function translateTimestampSince(timestamp: unknown, now: Date): string {
  const ms = parseTimestamp(timestamp);
  if (ms === undefined) return '<unknown>';
  return humanDuration(now.getTime() - ms);
}

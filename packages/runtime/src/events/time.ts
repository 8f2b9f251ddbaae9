/**
 * Event timestamps in kube's wire formats (metav1.MicroTime and metav1.Time)
 * and event names as client-go makes them: `<object name>.<hex nanoseconds>`.
 */

/** metav1.MicroTime: RFC 3339 in UTC with six fractional digits. */
export function microTime(epochMs: number): string {
  const seconds = Math.floor(epochMs / 1000);
  const micros = Math.min(999_999, Math.floor((epochMs - seconds * 1000) * 1000));
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, `.${String(micros).padStart(6, '0')}Z`);
}

/** metav1.Time: RFC 3339 in UTC, whole seconds. */
export function secondsTime(epochMs: number): string {
  return new Date(Math.floor(epochMs / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Names events `<name>.<hex of the time in nanoseconds>`. Within one process
 * names never repeat: a time not later than the last one used is bumped by 1 ns.
 */
export class EventNamer {
  private last = 0n;

  name(objectName: string, epochMs: number): string {
    const wholeMs = Math.floor(epochMs);
    let ns = BigInt(wholeMs) * 1_000_000n + BigInt(Math.floor((epochMs - wholeMs) * 1_000_000));
    if (ns <= this.last) ns = this.last + 1n;
    this.last = ns;
    return `${objectName}.${ns.toString(16)}`;
  }
}

/**
 * Times in kube's wire formats: metav1.Time (RFC 3339, UTC, whole seconds;
 * conditions, core events) and metav1.MicroTime (six fractional digits;
 * leases, events.k8s.io events).
 */

/**
 * metav1.Time: RFC 3339 in UTC, whole seconds.
 *
 * @example
 * ```ts
 * import { rfc3339 } from '@operant/runtime';
 *
 * rfc3339(new Date('2024-01-01T00:00:00.750Z')); // '2024-01-01T00:00:00Z'
 * ```
 */
export function rfc3339(time: Date | number): string {
  const ms = typeof time === 'number' ? time : time.getTime();
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * metav1.MicroTime: RFC 3339 in UTC with six fractional digits. A number is
 * epoch milliseconds, whose fraction (from `performance.timeOrigin + performance.now()`) gives the microseconds.
 *
 * @example
 * ```ts
 * import { microTime } from '@operant/runtime';
 *
 * microTime(new Date('2025-01-01T00:00:00.123Z')); // '2025-01-01T00:00:00.123000Z'
 * ```
 */
export function microTime(time: Date | number): string {
  const ms = typeof time === 'number' ? time : time.getTime();
  const seconds = Math.floor(ms / 1000);
  const micros = Math.min(999_999, Math.floor((ms - seconds * 1000) * 1000));
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, `.${String(micros).padStart(6, '0')}Z`);
}

/**
 * A Deployment's size and its fenceposts: maxSurge and maxUnavailable,
 * resolved against the desired replicas as kube's deployment util does: a
 * percentage rounds up for surge and down for unavailability, and when both
 * come to zero, one pod may be unavailable (surge could be blocked by quota,
 * so progress must come from somewhere).
 */
import type { DeploymentObject, ReplicaSetObject } from '../objects.js';

/** An IntOrString value of a rolling update. */
export type IntOrPercent = number | string | undefined | null;

/**
 * kube's intstr.GetScaledValueFromIntOrPercent: an integer as it is, `N%` of
 * `total` rounded up or down. Throws for a string that is no percentage.
 */
export function valueFromIntOrPercent(value: IntOrPercent, total: number, roundUp: boolean): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number') return value;
  if (!value.endsWith('%')) throw new Error(`invalid value for IntOrString: invalid type: string is not a percentage`);
  const digits = value.slice(0, -1);
  if (!/^[+-]?\d+$/.test(digits)) throw new Error(`invalid value ${JSON.stringify(value)}: strconv.Atoi: parsing ${JSON.stringify(digits)}: invalid syntax`);
  const scaled = (Number(digits) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}

/**
 * kube's ResolveFenceposts: the surge (rounded up) and the unavailability
 * (rounded down) allowed for `desired` replicas; both zero becomes 0 and 1.
 */
export function resolveFenceposts(maxSurge: IntOrPercent, maxUnavailable: IntOrPercent, desired: number): { surge: number; unavailable: number } {
  const surge = valueFromIntOrPercent(maxSurge ?? 0, desired, true);
  let unavailable = valueFromIntOrPercent(maxUnavailable ?? 0, desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

/** spec.replicas (the server defaults it to 1). */
export function replicasOf(obj: DeploymentObject | ReplicaSetObject | undefined): number {
  return obj?.spec?.replicas ?? 1;
}

export function isRollingUpdate(d: DeploymentObject): boolean {
  return d.spec?.strategy?.type === 'RollingUpdate';
}

/** kube's MaxSurge; an unreadable value counts as 0, as kube ignores the error (validation refuses it). */
export function maxSurge(d: DeploymentObject): number {
  if (!isRollingUpdate(d)) return 0;
  const ru = d.spec?.strategy?.rollingUpdate;
  try {
    return resolveFenceposts(ru?.maxSurge, ru?.maxUnavailable, replicasOf(d)).surge;
  } catch {
    return 0;
  }
}

/** kube's MaxUnavailable: never more than the replicas. */
export function maxUnavailable(d: DeploymentObject): number {
  const replicas = replicasOf(d);
  if (!isRollingUpdate(d) || replicas === 0) return 0;
  const ru = d.spec?.strategy?.rollingUpdate;
  let unavailable: number;
  try {
    unavailable = resolveFenceposts(ru?.maxSurge, ru?.maxUnavailable, replicas).unavailable;
  } catch {
    return 0;
  }
  return Math.min(unavailable, replicas);
}

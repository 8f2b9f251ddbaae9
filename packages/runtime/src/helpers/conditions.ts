/**
 * Status conditions as k8s.io/apimachinery/pkg/api/meta handles them: set one
 * by type (its lastTransitionTime moves only when its status changes), find,
 * remove and test conditions in a `status.conditions` list.
 */
import { rfc3339 } from '../time.js';

/**
 * A condition's status: kube's ConditionStatus.
 *
 * @example
 * ```ts
 * import type { ConditionStatus } from '@operant/runtime';
 *
 * const s: ConditionStatus = 'True';
 * ```
 */
export type ConditionStatus = 'True' | 'False' | 'Unknown';

/**
 * A metav1.Condition: one aspect of an object's current state.
 *
 * @example
 * ```ts
 * import type { Condition } from '@operant/runtime';
 *
 * const ready: Condition = {
 *   type: 'Ready', status: 'True', observedGeneration: 3,
 *   lastTransitionTime: '2024-01-01T00:00:00Z', reason: 'AllReplicasReady', message: '3/3 replicas ready',
 * };
 * ```
 */
export interface Condition {
  /** CamelCase type, e.g. `Ready` or `Available`; unique in a list. */
  type: string;
  status: ConditionStatus;
  /** The `metadata.generation` the condition was set for. */
  observedGeneration?: number;
  /** When the status last changed, RFC 3339 in seconds (`2024-01-01T00:00:00Z`). */
  lastTransitionTime: string;
  /** CamelCase machine-readable reason for the last transition. */
  reason: string;
  /** Human-readable details; may be empty. */
  message: string;
}

/**
 * What {@link setStatusCondition} takes: a condition whose lastTransitionTime
 * may be left out (it is then set from the clock when the status changes).
 *
 * @example
 * ```ts
 * import type { NewCondition } from '@operant/runtime';
 *
 * const c: NewCondition = { type: 'Ready', status: 'False', reason: 'Pending', message: 'waiting for pods' };
 * ```
 */
export type NewCondition = Omit<Condition, 'lastTransitionTime'> & { lastTransitionTime?: string };

/**
 * Options of {@link setStatusCondition}.
 *
 * @example
 * ```ts
 * import type { ConditionOptions } from '@operant/runtime';
 *
 * const fixed: ConditionOptions = { now: () => new Date('2024-01-01T00:00:00Z') };
 * ```
 */
export interface ConditionOptions {
  /** The clock for transition times; default `new Date()`. */
  now?: () => Date;
}

/**
 * Sets `newCondition` in `conditions` (in place), keyed by type. A new type is
 * appended. For an existing one, lastTransitionTime changes only when the
 * status does (to the given time, else now); reason, message and
 * observedGeneration are overwritten. Returns whether anything changed.
 *
 * @example
 * ```ts
 * import { defineKind, setStatusCondition, type Condition, type Typed } from '@operant/runtime';
 *
 * type BucketObject = Typed<{ status?: { conditions?: Condition[] } }>;
 * const Bucket = defineKind<BucketObject>({ group: 'example.com', version: 'v1', kind: 'Bucket', plural: 'buckets', namespaced: true });
 * const bucket = await client.get(Bucket, 'photos', { namespace: 'default' });
 * const status = (bucket.status ??= {});
 * status.conditions ??= [];
 * if (setStatusCondition(status.conditions, { type: 'Ready', status: 'True', reason: 'Synced', message: '', observedGeneration: bucket.metadata.generation })) {
 *   await client.updateStatus(Bucket, bucket);
 * }
 * ```
 */
export function setStatusCondition(conditions: Condition[], newCondition: NewCondition, options: ConditionOptions = {}): boolean {
  const now = (): string => rfc3339((options.now ?? (() => new Date()))());
  const existing = findStatusCondition(conditions, newCondition.type);
  if (!existing) {
    const added: Condition = { ...newCondition, lastTransitionTime: newCondition.lastTransitionTime || now() };
    if (added.observedGeneration === undefined) delete added.observedGeneration;
    conditions.push(added);
    return true;
  }
  let changed = false;
  if (existing.status !== newCondition.status) {
    existing.status = newCondition.status;
    existing.lastTransitionTime = newCondition.lastTransitionTime || now();
    changed = true;
  }
  if (existing.reason !== newCondition.reason) {
    existing.reason = newCondition.reason;
    changed = true;
  }
  if (existing.message !== newCondition.message) {
    existing.message = newCondition.message;
    changed = true;
  }
  // Go compares int64 values where absent means 0.
  if ((existing.observedGeneration ?? 0) !== (newCondition.observedGeneration ?? 0)) {
    if (newCondition.observedGeneration === undefined) delete existing.observedGeneration;
    else existing.observedGeneration = newCondition.observedGeneration;
    changed = true;
  }
  return changed;
}

/**
 * Removes the condition of `conditionType` (in place); returns whether there was one.
 *
 * @example
 * ```ts
 * import { removeStatusCondition, type Condition } from '@operant/runtime';
 *
 * declare const conditions: Condition[]; // an object's status.conditions
 * removeStatusCondition(conditions, 'Progressing');
 * ```
 */
export function removeStatusCondition(conditions: Condition[], conditionType: string): boolean {
  const index = conditions.findIndex((c) => c.type === conditionType);
  if (index < 0) return false;
  conditions.splice(index, 1);
  return true;
}

/**
 * The condition of `conditionType`, or undefined. The returned object is the
 * list's own (changing it changes the list), as Go's pointer is.
 *
 * @example
 * ```ts
 * import { findStatusCondition, type Condition } from '@operant/runtime';
 *
 * declare const bucket: { status?: { conditions?: Condition[] } };
 * const ready = findStatusCondition(bucket.status?.conditions, 'Ready');
 * console.log(ready?.reason);
 * ```
 */
export function findStatusCondition(conditions: readonly Condition[] | undefined, conditionType: string): Condition | undefined {
  return conditions?.find((c) => c.type === conditionType);
}

/**
 * Whether the condition of `conditionType` is present with status `True`.
 *
 * @example
 * ```ts
 * import { isStatusConditionTrue, type Condition, type ReconcileResult } from '@operant/runtime';
 *
 * function requeueUntilReady(bucket: { status?: { conditions?: Condition[] } }): ReconcileResult | undefined {
 *   if (!isStatusConditionTrue(bucket.status?.conditions, 'Ready')) return { requeueAfter: 5000 };
 * }
 * ```
 */
export function isStatusConditionTrue(conditions: readonly Condition[] | undefined, conditionType: string): boolean {
  return isStatusConditionPresentAndEqual(conditions, conditionType, 'True');
}

/**
 * Whether the condition of `conditionType` is present with status `False`.
 *
 * @example
 * ```ts
 * import { isStatusConditionFalse, type Condition } from '@operant/runtime';
 *
 * declare const bucket: { status?: { conditions?: Condition[] } };
 * if (isStatusConditionFalse(bucket.status?.conditions, 'Degraded')) log.info({}, 'healthy');
 * ```
 */
export function isStatusConditionFalse(conditions: readonly Condition[] | undefined, conditionType: string): boolean {
  return isStatusConditionPresentAndEqual(conditions, conditionType, 'False');
}

/**
 * Whether the condition of `conditionType` is present with the given status.
 *
 * @example
 * ```ts
 * import { isStatusConditionPresentAndEqual, type Condition } from '@operant/runtime';
 *
 * declare const conditions: Condition[]; // an object's status.conditions
 * isStatusConditionPresentAndEqual(conditions, 'Ready', 'Unknown');
 * ```
 */
export function isStatusConditionPresentAndEqual(
  conditions: readonly Condition[] | undefined,
  conditionType: string,
  status: ConditionStatus,
): boolean {
  return findStatusCondition(conditions, conditionType)?.status === status;
}

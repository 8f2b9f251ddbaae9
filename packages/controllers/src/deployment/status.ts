/**
 * A Deployment's status, computed from its ReplicaSets (kube's calculateStatus
 * and syncRolloutStatus): the replica counts, the Available condition, and
 * during a rollout the Progressing condition with kube's reasons and
 * messages, plus when to look again for a progress deadline.
 */
import type { DeploymentObject, DeploymentStatus, ReplicaSetObject } from '../objects.js';
import { canonicalJson } from '../json.js';
import { deploymentComplete, deploymentCondition, deploymentProgressing, deploymentTimedOut, hasProgressDeadline, newDeploymentCondition, reasons, removeDeploymentCondition, setDeploymentCondition } from './conditions.js';
import { maxUnavailable, replicasOf } from './fenceposts.js';
import { actualReplicaCount, availableReplicaCount, readyReplicaCount, replicaCount } from './replica-sets.js';

type Writable = { -readonly [K in keyof DeploymentStatus]: DeploymentStatus[K] };

/** Go's `omitempty` on the status counters: a zero is not sent. */
function setCount(status: Writable, key: 'replicas' | 'updatedReplicas' | 'readyReplicas' | 'availableReplicas' | 'unavailableReplicas', n: number): void {
  if (n !== 0) status[key] = n;
}

/** kube's calculateStatus: the counts over all ReplicaSets, and the Available condition. */
export function calculateStatus(allRSs: readonly (ReplicaSetObject | undefined)[], newRS: ReplicaSetObject | undefined, d: DeploymentObject, nowMs: number): DeploymentStatus {
  const available = availableReplicaCount(allRSs);
  const unavailable = Math.max(0, replicaCount(allRSs) - available);
  const status: Writable = {};
  if (d.metadata.generation) status.observedGeneration = d.metadata.generation;
  setCount(status, 'replicas', actualReplicaCount(allRSs));
  setCount(status, 'updatedReplicas', actualReplicaCount([newRS]));
  setCount(status, 'readyReplicas', readyReplicaCount(allRSs));
  setCount(status, 'availableReplicas', available);
  setCount(status, 'unavailableReplicas', unavailable);
  if (d.status?.collisionCount !== undefined) status.collisionCount = d.status.collisionCount;
  if (d.status?.conditions?.length) status.conditions = d.status.conditions.map((c) => ({ ...c }));
  if (available >= replicasOf(d) - maxUnavailable(d)) {
    setDeploymentCondition(status, newDeploymentCondition('Available', 'True', reasons.minimumReplicasAvailable, 'Deployment has minimum availability.', nowMs));
  } else {
    setDeploymentCondition(status, newDeploymentCondition('Available', 'False', reasons.minimumReplicasUnavailable, 'Deployment does not have minimum availability.', nowMs));
  }
  return status;
}

/** Whether two statuses are the same (kube's reflect.DeepEqual, key order aside). */
export function sameStatus(a: DeploymentStatus | undefined, b: DeploymentStatus | undefined): boolean {
  return canonicalJson(a ?? {}) === canonicalJson(b ?? {});
}

/** Go's %q of a name. */
const q = (s: string | undefined): string => JSON.stringify(s ?? '');

/**
 * kube's syncRolloutStatus, without the write: the status a rollout step
 * leaves, with the Progressing condition moved on (complete, progressing, or
 * timed out) and ReplicaFailure conditions raised from the ReplicaSets.
 */
export function rolloutStatus(allRSs: readonly (ReplicaSetObject | undefined)[], newRS: ReplicaSetObject | undefined, d: DeploymentObject, nowMs: number): DeploymentStatus {
  const status = calculateStatus(allRSs, newRS, d, nowMs);
  if (!hasProgressDeadline(d)) removeDeploymentCondition(status, 'Progressing');
  const current = deploymentCondition(d.status, 'Progressing');
  const isComplete = (status.replicas ?? 0) === (status.updatedReplicas ?? 0) && current?.reason === reasons.newRSAvailable;
  if (hasProgressDeadline(d) && !isComplete) {
    const subject = newRS ? `ReplicaSet ${q(newRS.metadata.name)}` : `Deployment ${q(d.metadata.name)}`;
    if (deploymentComplete(d, status)) {
      setDeploymentCondition(status, newDeploymentCondition('Progressing', 'True', reasons.newRSAvailable, `${subject} has successfully progressed.`, nowMs));
    } else if (deploymentProgressing(d, status)) {
      // Progress moves lastUpdateTime even when the reason stays: replace the condition, keeping a True one's transition time.
      const condition = newDeploymentCondition('Progressing', 'True', reasons.replicaSetUpdated, `${subject} is progressing.`, nowMs);
      if (current) {
        if (current.status === 'True') condition.lastTransitionTime = current.lastTransitionTime;
        removeDeploymentCondition(status, 'Progressing');
      }
      setDeploymentCondition(status, condition);
    } else if (deploymentTimedOut(d, status, nowMs)) {
      setDeploymentCondition(status, newDeploymentCondition('Progressing', 'False', reasons.timedOut, `${subject} has timed out progressing.`, nowMs));
    }
  }
  const failures = replicaFailures(allRSs, newRS);
  if (failures.length > 0) setDeploymentCondition(status, failures[0]!);
  else removeDeploymentCondition(status, 'ReplicaFailure');
  return status;
}

/** kube's getReplicaFailures: the new ReplicaSet's ReplicaFailure conditions, else any old one's. */
function replicaFailures(allRSs: readonly (ReplicaSetObject | undefined)[], newRS: ReplicaSetObject | undefined) {
  const from = (rs: ReplicaSetObject | undefined) =>
    (rs?.status?.conditions ?? [])
      .filter((c) => c.type === 'ReplicaFailure')
      .map((c) => ({ type: c.type, status: c.status, lastTransitionTime: c.lastTransitionTime, lastUpdateTime: c.lastTransitionTime, reason: c.reason, message: c.message }));
  const own = from(newRS);
  return own.length > 0 ? own : allRSs.flatMap(from);
}

/**
 * kube's requeueStuckDeployment: when to look again for a progress deadline
 * (ms from now; 0 for at once), or undefined when no deadline is pending.
 */
export function progressCheckDelay(d: DeploymentObject, status: DeploymentStatus, nowMs: number): number | undefined {
  const current = deploymentCondition(d.status, 'Progressing');
  if (!hasProgressDeadline(d) || !current) return undefined;
  if (deploymentComplete(d, status) || current.reason === reasons.timedOut) return undefined;
  const updated = Date.parse(current.lastUpdateTime ?? '');
  if (Number.isNaN(updated)) return undefined;
  const after = updated + d.spec!.progressDeadlineSeconds! * 1000 - nowMs;
  // A second more, as kube adds, against millisecond skew in the delay.
  return after < 1000 ? 0 : after + 1000;
}

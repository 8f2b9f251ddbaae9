/**
 * A Deployment's Available and Progressing conditions (kube's deployment
 * util): kube's reasons, how a condition replaces another (the transition
 * time kept while the status holds), and the tests a rollout's status is put
 * to: complete, progressing, timed out against progressDeadlineSeconds.
 */
import { rfc3339, timeOf } from '../clock.js';
import type { DeploymentCondition, DeploymentObject, DeploymentStatus } from '../objects.js';
import { replicasOf } from './fenceposts.js';

/** Condition reasons, as kube words them. */
export const reasons = {
  replicaSetUpdated: 'ReplicaSetUpdated',
  failedRSCreate: 'ReplicaSetCreateError',
  newReplicaSet: 'NewReplicaSetCreated',
  foundNewRS: 'FoundNewReplicaSet',
  newRSAvailable: 'NewReplicaSetAvailable',
  timedOut: 'ProgressDeadlineExceeded',
  paused: 'DeploymentPaused',
  resumed: 'DeploymentResumed',
  minimumReplicasAvailable: 'MinimumReplicasAvailable',
  minimumReplicasUnavailable: 'MinimumReplicasUnavailable',
} as const;

const maxInt32 = 2147483647;

export function hasProgressDeadline(d: DeploymentObject): boolean {
  const p = d.spec?.progressDeadlineSeconds;
  return p !== undefined && p !== null && p !== maxInt32;
}

export function newDeploymentCondition(type: string, status: 'True' | 'False' | 'Unknown', reason: string, message: string, nowMs: number): DeploymentCondition {
  const t = rfc3339(nowMs);
  return { type, status, lastUpdateTime: t, lastTransitionTime: t, reason, message };
}

export function deploymentCondition(status: DeploymentStatus | undefined, type: string): DeploymentCondition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

/**
 * kube's SetDeploymentCondition: nothing changes when a condition of the type
 * has the same status and reason; the transition time is kept when only the
 * reason changes.
 */
export function setDeploymentCondition(status: DeploymentStatus, condition: DeploymentCondition): void {
  const current = deploymentCondition(status, condition.type);
  if (current && current.status === condition.status && current.reason === condition.reason) return;
  const c = current && current.status === condition.status ? { ...condition, lastTransitionTime: current.lastTransitionTime } : condition;
  (status as { conditions?: DeploymentCondition[] }).conditions = [...(status.conditions ?? []).filter((x) => x.type !== condition.type), c];
}

export function removeDeploymentCondition(status: DeploymentStatus, type: string): void {
  const kept = (status.conditions ?? []).filter((c) => c.type !== type);
  if (kept.length) (status as { conditions?: DeploymentCondition[] }).conditions = kept;
  else delete (status as { conditions?: DeploymentCondition[] }).conditions;
}

/** kube's DeploymentComplete: every desired replica updated and available, no old ones, the latest spec observed. */
export function deploymentComplete(d: DeploymentObject, s: DeploymentStatus): boolean {
  const r = replicasOf(d);
  return (s.updatedReplicas ?? 0) === r && (s.replicas ?? 0) === r && (s.availableReplicas ?? 0) === r && (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 0);
}

/** kube's DeploymentProgressing: new pods updated, ready or available, or old ones gone, since the stored status. */
export function deploymentProgressing(d: DeploymentObject, s: DeploymentStatus): boolean {
  const old = d.status ?? {};
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (s.replicas ?? 0) - (s.updatedReplicas ?? 0);
  return (
    (s.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) ||
    newOld < oldOld ||
    (s.readyReplicas ?? 0) > (old.readyReplicas ?? 0) ||
    (s.availableReplicas ?? 0) > (old.availableReplicas ?? 0)
  );
}

/** kube's DeploymentTimedOut: no progress reported for progressDeadlineSeconds. */
export function deploymentTimedOut(d: DeploymentObject, s: DeploymentStatus, nowMs: number): boolean {
  if (!hasProgressDeadline(d)) return false;
  const c = deploymentCondition(s, 'Progressing');
  if (!c) return false;
  if (c.reason === reasons.newRSAvailable) return false;
  if (c.reason === reasons.timedOut) return true;
  const from = timeOf(c.lastUpdateTime);
  return from !== undefined && from + (d.spec!.progressDeadlineSeconds! * 1000) < nowMs;
}

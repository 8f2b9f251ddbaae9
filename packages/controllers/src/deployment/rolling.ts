/**
 * The RollingUpdate strategy (kube's rolling.go). Each sync makes one move:
 * scale the new ReplicaSet up as far as maxSurge allows, or else scale old
 * ones down as far as maxUnavailable allows, unhealthy replicas first; the
 * next move waits for the ReplicaSets' statuses to show the last one.
 * Availability is counted from the ReplicaSets' statuses and sizes from
 * their specs, so a step never removes an available pod that the
 * Deployment still needs.
 */
import type { ReconcileResult } from '@operant/runtime';
import type { DeploymentObject, ReplicaSetObject } from '../objects.js';
import { allReplicaSetsAndSyncRevision } from './new-replica-set.js';
import { syncRolloutStatus } from './progress.js';
import { cleanupDeployment } from './scale.js';
import { deploymentComplete } from './conditions.js';
import { maxUnavailable, replicasOf } from './fenceposts.js';
import { activeReplicaSets, availableReplicaCount, byCreation, newRSNewReplicas, replicaCount } from './replica-sets.js';
import { scaleReplicaSetAndRecordEvent, type DeploymentContext } from './writes.js';

/** kube's rolloutRolling. */
export async function rolloutRolling(ctx: DeploymentContext, d: DeploymentObject, rsList: ReplicaSetObject[]): Promise<ReconcileResult | void> {
  const { newRS, oldRSs } = await allReplicaSetsAndSyncRevision(ctx, d, rsList, true);
  const allRSs = [...oldRSs, newRS!];
  if (await reconcileNewReplicaSet(ctx, allRSs, newRS!, d)) return syncRolloutStatus(ctx, allRSs, newRS, d);
  if (await reconcileOldReplicaSets(ctx, allRSs, activeReplicaSets(oldRSs), newRS!, d)) return syncRolloutStatus(ctx, allRSs, newRS, d);
  if (d.status && deploymentComplete(d, d.status)) await cleanupDeployment(ctx, oldRSs, d);
  return syncRolloutStatus(ctx, allRSs, newRS, d);
}

/** Scales the new ReplicaSet toward the desired count, within maxSurge; true when it did. */
async function reconcileNewReplicaSet(ctx: DeploymentContext, allRSs: ReplicaSetObject[], newRS: ReplicaSetObject, d: DeploymentObject): Promise<boolean> {
  const desired = replicasOf(d);
  if (replicasOf(newRS) === desired) return false;
  if (replicasOf(newRS) > desired) return (await scaleReplicaSetAndRecordEvent(ctx, newRS, desired, d)).scaled;
  return (await scaleReplicaSetAndRecordEvent(ctx, newRS, newRSNewReplicas(d, allRSs, newRS), d)).scaled;
}

/**
 * Scales old ReplicaSets down, within maxUnavailable; true when it did. The
 * room is what all ReplicaSets' sizes exceed the minimum available by, less
 * the new ReplicaSet's unavailable pods (so a crash-looping new template
 * cannot eat the old, healthy pods).
 */
async function reconcileOldReplicaSets(
  ctx: DeploymentContext,
  allRSs: ReplicaSetObject[],
  oldRSs: ReplicaSetObject[],
  newRS: ReplicaSetObject,
  d: DeploymentObject,
): Promise<boolean> {
  if (replicaCount(oldRSs) === 0) return false;
  const minAvailable = replicasOf(d) - maxUnavailable(d);
  const newRSUnavailable = replicasOf(newRS) - (newRS.status?.availableReplicas ?? 0);
  const maxScaledDown = replicaCount(allRSs) - minAvailable - newRSUnavailable;
  if (maxScaledDown <= 0) return false;
  let cleaned: { oldRSs: ReplicaSetObject[]; scaledDown: number };
  let scaledDown: number;
  try {
    cleaned = await cleanupUnhealthyReplicas(ctx, oldRSs, d, maxScaledDown);
    scaledDown = await scaleDownOldReplicaSetsForRollingUpdate(ctx, [...cleaned.oldRSs, newRS], cleaned.oldRSs, d);
  } catch {
    // kube drops these errors here: the next sync, with fresher statuses, tries again.
    return false;
  }
  return cleaned.scaledDown + scaledDown > 0;
}

/** Scales old ReplicaSets down by their unavailable replicas, up to `maxCleanup`, oldest first. */
async function cleanupUnhealthyReplicas(
  ctx: DeploymentContext,
  oldRSs: ReplicaSetObject[],
  d: DeploymentObject,
  maxCleanup: number,
): Promise<{ oldRSs: ReplicaSetObject[]; scaledDown: number }> {
  const sorted = [...oldRSs].sort(byCreation);
  let total = 0;
  for (let i = 0; i < sorted.length; i++) {
    const rs = sorted[i]!;
    if (total >= maxCleanup) break;
    const available = rs.status?.availableReplicas ?? 0;
    if (replicasOf(rs) === 0 || replicasOf(rs) === available) continue;
    const down = Math.min(maxCleanup - total, replicasOf(rs) - available);
    const target = replicasOf(rs) - down;
    if (target > replicasOf(rs)) {
      throw new Error(`when cleaning up unhealthy replicas, got invalid request to scale down ${rs.metadata.namespace}/${rs.metadata.name} ${replicasOf(rs)} -> ${target}`);
    }
    sorted[i] = (await scaleReplicaSetAndRecordEvent(ctx, rs, target, d)).rs;
    total += down;
  }
  return { oldRSs: sorted, scaledDown: total };
}

/** Scales old ReplicaSets down by the available pods beyond the minimum, oldest first. */
async function scaleDownOldReplicaSetsForRollingUpdate(ctx: DeploymentContext, allRSs: ReplicaSetObject[], oldRSs: ReplicaSetObject[], d: DeploymentObject): Promise<number> {
  const minAvailable = replicasOf(d) - maxUnavailable(d);
  const available = availableReplicaCount(allRSs);
  if (available <= minAvailable) return 0;
  const totalToScaleDown = available - minAvailable;
  let total = 0;
  for (const rs of [...oldRSs].sort(byCreation)) {
    if (total >= totalToScaleDown) break;
    if (replicasOf(rs) === 0) continue;
    const down = Math.min(replicasOf(rs), totalToScaleDown - total);
    const target = replicasOf(rs) - down;
    if (target > replicasOf(rs)) {
      throw new Error(`when scaling down old RS, got invalid request to scale down ${rs.metadata.namespace}/${rs.metadata.name} ${replicasOf(rs)} -> ${target}`);
    }
    await scaleReplicaSetAndRecordEvent(ctx, rs, target, d);
    total += down;
  }
  return total;
}

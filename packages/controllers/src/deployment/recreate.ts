/**
 * The Recreate strategy (kube's recreate.go): every old ReplicaSet goes to
 * zero, then nothing happens until no old pod is left running (terminating
 * ones included), and only then is the new ReplicaSet created and scaled up.
 */
import type { ReconcileResult } from '@operant/runtime';
import type { DeploymentObject, PodObject, ReplicaSetObject } from '../objects.js';
import { allReplicaSetsAndSyncRevision } from './new-replica-set.js';
import { syncRolloutStatus } from './progress.js';
import { cleanupDeployment } from './scale.js';
import { deploymentComplete } from './conditions.js';
import { replicasOf } from './fenceposts.js';
import { activeReplicaSets, actualReplicaCount } from './replica-sets.js';
import { scaleReplicaSetAndRecordEvent, type DeploymentContext } from './writes.js';

/** kube's rolloutRecreate; `podMap` holds the Deployment's pods by the uid of their ReplicaSet. */
export async function rolloutRecreate(
  ctx: DeploymentContext,
  d: DeploymentObject,
  rsList: ReplicaSetObject[],
  podMap: Map<string, PodObject[]>,
): Promise<ReconcileResult | void> {
  let { newRS, oldRSs } = await allReplicaSetsAndSyncRevision(ctx, d, rsList, false);
  let allRSs = [...oldRSs, newRS];
  let scaledDown = false;
  for (const rs of activeReplicaSets(oldRSs)) {
    if ((await scaleReplicaSetAndRecordEvent(ctx, rs, 0, d)).scaled) scaledDown = true;
  }
  if (scaledDown) return syncRolloutStatus(ctx, allRSs, newRS, d);
  if (oldPodsRunning(newRS, oldRSs, podMap)) return syncRolloutStatus(ctx, allRSs, newRS, d);
  if (!newRS) {
    ({ newRS, oldRSs } = await allReplicaSetsAndSyncRevision(ctx, d, rsList, true));
    allRSs = [...oldRSs, newRS];
  }
  await scaleReplicaSetAndRecordEvent(ctx, newRS!, replicasOf(d), d);
  if (d.status && deploymentComplete(d, d.status)) await cleanupDeployment(ctx, oldRSs, d);
  return syncRolloutStatus(ctx, allRSs, newRS, d);
}

/** kube's oldPodsRunning: an old ReplicaSet still counts pods, or an old pod is not yet Succeeded or Failed. */
export function oldPodsRunning(newRS: ReplicaSetObject | undefined, oldRSs: ReplicaSetObject[], podMap: Map<string, PodObject[]>): boolean {
  if (actualReplicaCount(oldRSs) > 0) return true;
  for (const [rsUid, pods] of podMap) {
    if (newRS && newRS.metadata.uid === rsUid) continue;
    if (pods.some((p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed')) return true;
  }
  return false;
}

/**
 * Resizes that are not rollouts (kube's sync.go): a scaling event or a paused
 * Deployment spreads the change over the active ReplicaSets in proportion to
 * their size, so a resize in the middle of a rollout neither hastens nor
 * stalls it; old ReplicaSets beyond revisionHistoryLimit are deleted; and the
 * status is written when it changed.
 */
import { ReplicaSet, isNotFound } from '@operant/runtime';
import type { DeploymentObject, ReplicaSetObject } from '../objects.js';
import { allReplicaSetsAndSyncRevision } from './new-replica-set.js';
import { calculateStatus, sameStatus } from './status.js';
import { desiredReplicasAnnotationOf } from './annotations.js';
import { isRollingUpdate, maxSurge, replicasOf } from './fenceposts.js';
import { activeReplicaSets, byRevision, bySizeNewer, bySizeOlder, findActiveOrLatest, hasRevisionHistoryLimit, isSaturated, proportion, replicaCount } from './replica-sets.js';
import { scaleReplicaSet, scaleReplicaSetAndRecordEvent, writeDeploymentStatus, type DeploymentContext } from './writes.js';

/** kube's sync: for scaling events and paused Deployments. */
export async function sync(ctx: DeploymentContext, d: DeploymentObject, rsList: ReplicaSetObject[]): Promise<void> {
  const { newRS, oldRSs } = await allReplicaSetsAndSyncRevision(ctx, d, rsList, false);
  await scale(ctx, d, newRS, oldRSs);
  if (d.spec?.paused) await cleanupDeployment(ctx, oldRSs, d);
  await syncDeploymentStatus(ctx, [...oldRSs, newRS], newRS, d);
}

/** kube's syncStatusOnly: for a Deployment being deleted. */
export async function syncStatusOnly(ctx: DeploymentContext, d: DeploymentObject, rsList: ReplicaSetObject[]): Promise<void> {
  const { newRS, oldRSs } = await allReplicaSetsAndSyncRevision(ctx, d, rsList, false);
  await syncDeploymentStatus(ctx, [...oldRSs, newRS], newRS, d);
}

/** kube's isScalingEvent: an active ReplicaSet's desired-replicas annotation differs from spec.replicas. */
export async function isScalingEvent(ctx: DeploymentContext, d: DeploymentObject, rsList: ReplicaSetObject[]): Promise<boolean> {
  const { newRS, oldRSs } = await allReplicaSetsAndSyncRevision(ctx, d, rsList, false);
  return activeReplicaSets([...oldRSs, newRS]).some((rs) => {
    const desired = desiredReplicasAnnotationOf(rs);
    return desired !== undefined && desired !== replicasOf(d);
  });
}

/** kube's scale: the whole change to the only active ReplicaSet, else proportionally (rolling updates). */
async function scale(ctx: DeploymentContext, d: DeploymentObject, newRS: ReplicaSetObject | undefined, oldRSs: ReplicaSetObject[]): Promise<void> {
  const activeOrLatest = findActiveOrLatest(newRS, oldRSs);
  if (activeOrLatest) {
    if (replicasOf(activeOrLatest) === replicasOf(d)) return;
    await scaleReplicaSetAndRecordEvent(ctx, activeOrLatest, replicasOf(d), d);
    return;
  }
  // A saturated new ReplicaSet: the old ones go to zero.
  if (isSaturated(d, newRS)) {
    for (const old of activeReplicaSets(oldRSs)) await scaleReplicaSetAndRecordEvent(ctx, old, 0, d);
    return;
  }
  if (!isRollingUpdate(d)) return;
  const all = activeReplicaSets([...oldRSs, newRS]);
  const allowed = replicasOf(d) > 0 ? replicasOf(d) + maxSurge(d) : 0;
  const toAdd = allowed - replicaCount(all);
  // Scaling up favours newer ReplicaSets among equals, scaling down older ones.
  let operation: 'up' | 'down' | '' = '';
  if (toAdd > 0) {
    all.sort(bySizeNewer);
    operation = 'up';
  } else if (toAdd < 0) {
    all.sort(bySizeOlder);
    operation = 'down';
  }
  let added = 0;
  const sizes = new Map<string, number>();
  for (const rs of all) {
    const p = toAdd !== 0 ? proportion(rs, d, toAdd, added) : 0;
    sizes.set(rs.metadata.name!, replicasOf(rs) + p);
    added += p;
  }
  for (let i = 0; i < all.length; i++) {
    const rs = all[i]!;
    // Leftovers go to the largest ReplicaSet.
    if (i === 0 && toAdd !== 0) sizes.set(rs.metadata.name!, Math.max(0, sizes.get(rs.metadata.name!)! + toAdd - added));
    await scaleReplicaSet(ctx, rs, sizes.get(rs.metadata.name!)!, d, operation);
  }
}

/**
 * kube's cleanupDeployment: deletes the oldest old ReplicaSets beyond
 * revisionHistoryLimit, only those fully scaled down and observed as such.
 */
export async function cleanupDeployment(ctx: DeploymentContext, oldRSs: ReplicaSetObject[], d: DeploymentObject): Promise<void> {
  if (!hasRevisionHistoryLimit(d)) return;
  const cleanable = oldRSs.filter((rs) => !rs.metadata.deletionTimestamp);
  const diff = cleanable.length - d.spec!.revisionHistoryLimit!;
  if (diff <= 0) return;
  cleanable.sort(byRevision);
  for (const rs of cleanable.slice(0, diff)) {
    if ((rs.status?.replicas ?? 0) !== 0 || replicasOf(rs) !== 0 || (rs.metadata.generation ?? 0) > (rs.status?.observedGeneration ?? 0)) continue;
    try {
      await ctx.client.delete(ReplicaSet, rs.metadata.name!, { namespace: rs.metadata.namespace });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

/** kube's syncDeploymentStatus: writes the calculated status when it differs. */
export async function syncDeploymentStatus(
  ctx: DeploymentContext,
  allRSs: (ReplicaSetObject | undefined)[],
  newRS: ReplicaSetObject | undefined,
  d: DeploymentObject,
): Promise<void> {
  const status = calculateStatus(allRSs, newRS, d, ctx.now());
  if (sameStatus(d.status, status)) return;
  d.status = status;
  await writeDeploymentStatus(ctx, d);
}

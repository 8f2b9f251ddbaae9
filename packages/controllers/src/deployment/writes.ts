/**
 * What the deployment controller writes, shared by its sync steps: the
 * Deployment's status (with its revision annotation), ReplicaSet resizes
 * with their ScalingReplicaSet events, and the context every step gets.
 */
import { deepCopy } from '@operant/apimachinery';
import { Deployment, objectReference, ReplicaSet } from '@operant/runtime';
import type { ControllerContext } from '../context.js';
import type { DeploymentObject, ReplicaSetObject } from '../objects.js';
import { replicasAnnotationsNeedUpdate, revisionAnnotation, setReplicasAnnotations } from './annotations.js';
import { maxSurge, replicasOf } from './fenceposts.js';

/** What each step of a Deployment's sync works with. */
export type DeploymentContext = ControllerContext;

/**
 * Writes the Deployment's status (kube's UpdateStatus) and keeps `d`'s
 * resourceVersion current, so later steps of the same sync do not conflict.
 * kube's status strategy also stores annotation changes (that is how the
 * revision annotation reaches a Deployment); a server that keeps only the
 * status gets the revision in a patch of its own.
 */
export async function writeDeploymentStatus(ctx: DeploymentContext, d: DeploymentObject): Promise<void> {
  const meta = d.metadata as { resourceVersion?: string };
  const stored = await ctx.client.updateStatus(Deployment, d);
  meta.resourceVersion = stored.metadata.resourceVersion;
  const revision = d.metadata.annotations?.[revisionAnnotation];
  if (revision !== undefined && stored.metadata.annotations?.[revisionAnnotation] !== revision) {
    const patch = { metadata: { annotations: { [revisionAnnotation]: revision } } };
    const patched = await ctx.client.patch(Deployment, d.metadata.name!, patch, { namespace: d.metadata.namespace, patchType: 'merge' });
    meta.resourceVersion = patched.metadata.resourceVersion;
  }
}

/** A Normal event about the Deployment. */
export function deploymentEvent(ctx: DeploymentContext, d: DeploymentObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
  ctx.recorder.event(objectReference(d, Deployment), type, reason, message);
}

/**
 * kube's scaleReplicaSet: sets the ReplicaSet's replicas and its
 * desired/max-replicas annotations; a resize is reported as
 * `Scaled up replica set web-7c5ddbdf54 to 3 from 1`.
 */
export async function scaleReplicaSet(
  ctx: DeploymentContext,
  rs: ReplicaSetObject,
  newScale: number,
  d: DeploymentObject,
  operation: 'up' | 'down' | '',
): Promise<{ scaled: boolean; rs: ReplicaSetObject }> {
  const desired = replicasOf(d);
  const max = desired + maxSurge(d);
  const sizeNeedsUpdate = replicasOf(rs) !== newScale;
  if (!sizeNeedsUpdate && !replicasAnnotationsNeedUpdate(rs, desired, max)) return { scaled: false, rs };
  const oldScale = replicasOf(rs);
  const copy = deepCopy(rs);
  copy.spec = { ...copy.spec!, replicas: newScale };
  setReplicasAnnotations(copy, desired, max);
  const updated = await ctx.client.update(ReplicaSet, copy);
  if (sizeNeedsUpdate) {
    deploymentEvent(ctx, d, 'Normal', 'ScalingReplicaSet', `Scaled ${operation} replica set ${updated.metadata.name} to ${newScale} from ${oldScale}`);
  }
  return { scaled: sizeNeedsUpdate, rs: updated };
}

/** kube's scaleReplicaSetAndRecordEvent: a resize in the direction it goes, nothing when the size is right. */
export async function scaleReplicaSetAndRecordEvent(
  ctx: DeploymentContext,
  rs: ReplicaSetObject,
  newScale: number,
  d: DeploymentObject,
): Promise<{ scaled: boolean; rs: ReplicaSetObject }> {
  if (replicasOf(rs) === newScale) return { scaled: false, rs };
  return scaleReplicaSet(ctx, rs, newScale, d, replicasOf(rs) < newScale ? 'up' : 'down');
}

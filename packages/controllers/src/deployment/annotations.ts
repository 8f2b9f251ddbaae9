/**
 * The annotations a Deployment and its ReplicaSets carry (kube's deployment
 * util): the revision, the revisions a rolled-back ReplicaSet served before
 * (revision-history), and the desired and maximum replicas that let a resize
 * be told from a rollout and shared in proportion; and the Deployment's own
 * annotations, passed on to its new ReplicaSet.
 */
import type { DeploymentObject, ReplicaSetObject } from '../objects.js';
import { maxSurge, replicasOf } from './fenceposts.js';

export const revisionAnnotation = 'deployment.kubernetes.io/revision';
export const revisionHistoryAnnotation = 'deployment.kubernetes.io/revision-history';
export const desiredReplicasAnnotation = 'deployment.kubernetes.io/desired-replicas';
export const maxReplicasAnnotation = 'deployment.kubernetes.io/max-replicas';

/** Annotations a Deployment does not pass on to its ReplicaSets. */
const annotationsToSkip = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  revisionAnnotation,
  revisionHistoryAnnotation,
  desiredReplicasAnnotation,
  maxReplicasAnnotation,
  'deprecated.deployment.rollback.to',
]);

/** The revision annotation as a number (0 when absent, NaN when unreadable). */
export function revisionOf(obj: { metadata: { annotations?: Record<string, string> } }): number {
  const v = obj.metadata.annotations?.[revisionAnnotation];
  if (v === undefined) return 0;
  return /^\d+$/.test(v) ? Number(v) : NaN;
}

export function maxRevision(rsList: readonly ReplicaSetObject[]): number {
  let max = 0;
  for (const rs of rsList) {
    const v = revisionOf(rs);
    if (!Number.isNaN(v) && v > max) max = v;
  }
  return max;
}

/** kube's copyDeploymentAnnotationsToReplicaSet; true when the ReplicaSet's annotations changed. */
function copyDeploymentAnnotations(d: DeploymentObject, rs: ReplicaSetObject): boolean {
  let changed = false;
  rs.metadata.annotations ??= {};
  for (const [k, v] of Object.entries(d.metadata.annotations ?? {})) {
    if (annotationsToSkip.has(k) || rs.metadata.annotations[k] === v) continue;
    rs.metadata.annotations[k] = v;
    changed = true;
  }
  return changed;
}

/** kube's SetReplicasAnnotations; true when changed. */
export function setReplicasAnnotations(rs: ReplicaSetObject, desired: number, max: number): boolean {
  const a = (rs.metadata.annotations ??= {});
  let changed = false;
  if (a[desiredReplicasAnnotation] !== String(desired)) {
    a[desiredReplicasAnnotation] = String(desired);
    changed = true;
  }
  if (a[maxReplicasAnnotation] !== String(max)) {
    a[maxReplicasAnnotation] = String(max);
    changed = true;
  }
  return changed;
}

export function replicasAnnotationsNeedUpdate(rs: ReplicaSetObject, desired: number, max: number): boolean {
  const a = rs.metadata.annotations ?? {};
  return a[desiredReplicasAnnotation] !== String(desired) || a[maxReplicasAnnotation] !== String(max);
}

/**
 * kube's SetNewReplicaSetAnnotations: copies the Deployment's annotations,
 * raises the revision to `newRevision` (keeping the old one in
 * revision-history when rolling back to this ReplicaSet), and on a ReplicaSet
 * about to be created sets desired-replicas and max-replicas. True when changed.
 */
export function setNewReplicaSetAnnotations(d: DeploymentObject, rs: ReplicaSetObject, newRevision: string, exists: boolean, historyLimitChars = 2000): boolean {
  let changed = copyDeploymentAnnotations(d, rs);
  const a = (rs.metadata.annotations ??= {});
  const oldRevision = a[revisionAnnotation];
  const had = oldRevision !== undefined;
  let oldRevisionInt = 0;
  if (had && oldRevision !== '') {
    if (!/^\d+$/.test(oldRevision)) return false;
    oldRevisionInt = Number(oldRevision);
  }
  const newRevisionInt = Number(newRevision);
  if (oldRevisionInt < newRevisionInt) {
    a[revisionAnnotation] = newRevision;
    changed = true;
  }
  if (had && oldRevisionInt < newRevisionInt) {
    const history = a[revisionHistoryAnnotation] ?? '';
    const old = history.split(',');
    if (old[0]!.length === 0) a[revisionHistoryAnnotation] = oldRevision!;
    else {
      let total = history.length + oldRevision!.length + 1;
      let start = 0;
      while (total > historyLimitChars && start < old.length) total -= old[start++]!.length + 1;
      if (total <= historyLimitChars) a[revisionHistoryAnnotation] = [...old.slice(start), oldRevision!].join(',');
    }
  }
  if (!exists && setReplicasAnnotations(rs, replicasOf(d), replicasOf(d) + maxSurge(d))) changed = true;
  return changed;
}

/** kube's SetDeploymentRevision; true when changed. */
export function setDeploymentRevision(d: DeploymentObject, revision: string | undefined): boolean {
  d.metadata.annotations ??= {};
  if (revision === undefined || d.metadata.annotations[revisionAnnotation] === revision) return false;
  d.metadata.annotations[revisionAnnotation] = revision;
  return true;
}

export function desiredReplicasAnnotationOf(rs: ReplicaSetObject): number | undefined {
  return intAnnotation(rs, desiredReplicasAnnotation);
}

export function intAnnotation(rs: ReplicaSetObject, key: string): number | undefined {
  const v = rs.metadata.annotations?.[key];
  return v !== undefined && /^-?\d+$/.test(v) ? Number(v) : undefined;
}

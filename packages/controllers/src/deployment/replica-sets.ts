/**
 * A Deployment's ReplicaSets (kube's deployment util): which is new (its
 * template is the Deployment's, the hash label aside) and which are old, the
 * orders they are scaled in, their replica counts, how far the new one may
 * grow, and each one's share of a proportional resize.
 */
import { timeOf } from '../clock.js';
import { canonicalJson } from '../json.js';
import type { DeploymentObject, PodTemplateSpec, ReplicaSetObject } from '../objects.js';
import { desiredReplicasAnnotationOf, intAnnotation, maxReplicasAnnotation, revisionOf } from './annotations.js';
import { maxSurge, replicasOf, valueFromIntOrPercent } from './fenceposts.js';

/** apps/v1 DefaultDeploymentUniqueLabelKey. */
export const podTemplateHashLabel = 'pod-template-hash';

// ------------------------------------------------------------- orderings

function created(obj: { metadata: { creationTimestamp?: string } }): number {
  return timeOf(obj.metadata.creationTimestamp) ?? 0;
}

/** kube's ReplicaSetsByCreationTimestamp: oldest first, then by name. */
export function byCreation(a: ReplicaSetObject, b: ReplicaSetObject): number {
  return created(a) - created(b) || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');
}

/** kube's ReplicaSetsBySizeOlder: largest first, older first among equals (scaling down). */
export function bySizeOlder(a: ReplicaSetObject, b: ReplicaSetObject): number {
  return replicasOf(b) - replicasOf(a) || byCreation(a, b);
}

/** kube's ReplicaSetsBySizeNewer: largest first, newer first among equals (scaling up). */
export function bySizeNewer(a: ReplicaSetObject, b: ReplicaSetObject): number {
  return replicasOf(b) - replicasOf(a) || byCreation(b, a);
}

/** kube's ReplicaSetsByRevision: lowest revision first, then oldest. */
export function byRevision(a: ReplicaSetObject, b: ReplicaSetObject): number {
  const ra = revisionOf(a);
  const rb = revisionOf(b);
  if (ra === rb || Number.isNaN(ra) || Number.isNaN(rb)) return byCreation(a, b);
  return ra - rb;
}

// ------------------------------------------------------------- finding replica sets

/** A template compared as kube's Semantic.DeepEqual sees it: absent and empty alike, the hash label ignored. */
function comparable(t: PodTemplateSpec | undefined): string {
  const copy = JSON.parse(JSON.stringify(t ?? {})) as { metadata?: { labels?: Record<string, string> } };
  if (copy.metadata?.labels) delete copy.metadata.labels[podTemplateHashLabel];
  return canonicalJson(dropEmpty(copy));
}

function dropEmpty(v: unknown): unknown {
  if (Array.isArray(v)) return v.length === 0 ? undefined : v.map(dropEmpty);
  if (v === null || typeof v !== 'object') return v === null ? undefined : v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const d = dropEmpty(x);
    if (d !== undefined) out[k] = d;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/** kube's EqualIgnoreHash. */
export function equalIgnoreHash(a: PodTemplateSpec | undefined, b: PodTemplateSpec | undefined): boolean {
  return comparable(a) === comparable(b);
}

/** kube's FindNewReplicaSet: the oldest ReplicaSet whose template is the Deployment's. */
export function findNewReplicaSet(d: DeploymentObject, rsList: readonly ReplicaSetObject[]): ReplicaSetObject | undefined {
  const wanted = comparable(d.spec?.template);
  return [...rsList].sort(byCreation).find((rs) => comparable(rs.spec?.template) === wanted);
}

/** kube's FindOldReplicaSets: every other ReplicaSet (`all`), and those of them with replicas (`required`). */
export function findOldReplicaSets(d: DeploymentObject, rsList: readonly ReplicaSetObject[]): { required: ReplicaSetObject[]; all: ReplicaSetObject[] } {
  const newRS = findNewReplicaSet(d, rsList);
  const all = rsList.filter((rs) => !newRS || rs.metadata.uid !== newRS.metadata.uid);
  return { required: all.filter((rs) => replicasOf(rs) !== 0), all };
}

/** kube's FilterActiveReplicaSets: those with replicas. */
export function activeReplicaSets(rsList: readonly (ReplicaSetObject | undefined)[]): ReplicaSetObject[] {
  return rsList.filter((rs): rs is ReplicaSetObject => rs !== undefined && replicasOf(rs) > 0);
}

/** kube's FindActiveOrLatest: the only active ReplicaSet, the newest when none is, undefined when several are. */
export function findActiveOrLatest(newRS: ReplicaSetObject | undefined, oldRSs: readonly ReplicaSetObject[]): ReplicaSetObject | undefined {
  if (!newRS && oldRSs.length === 0) return undefined;
  const newestFirst = [...oldRSs].sort((a, b) => byCreation(b, a));
  const active = activeReplicaSets([...newestFirst, newRS]);
  if (active.length === 0) return newRS ?? newestFirst[0];
  return active.length === 1 ? active[0] : undefined;
}

// ------------------------------------------------------------- counts

type MaybeRS = ReplicaSetObject | undefined;
const sum = (rsList: readonly MaybeRS[], f: (rs: ReplicaSetObject) => number): number => rsList.reduce((n, rs) => n + (rs ? f(rs) : 0), 0);

/** Sum of spec.replicas. */
export const replicaCount = (rsList: readonly MaybeRS[]): number => sum(rsList, replicasOf);
/** Sum of status.replicas. */
export const actualReplicaCount = (rsList: readonly MaybeRS[]): number => sum(rsList, (rs) => rs.status?.replicas ?? 0);
export const readyReplicaCount = (rsList: readonly MaybeRS[]): number => sum(rsList, (rs) => rs.status?.readyReplicas ?? 0);
export const availableReplicaCount = (rsList: readonly MaybeRS[]): number => sum(rsList, (rs) => rs.status?.availableReplicas ?? 0);

/**
 * kube's NewRSNewReplicas: how big the new ReplicaSet may be now. Rolling:
 * up to the surge over the desired total, never past the desired count.
 * Recreate: the desired count.
 */
export function newRSNewReplicas(d: DeploymentObject, allRSs: readonly MaybeRS[], newRS: ReplicaSetObject): number {
  const type = d.spec?.strategy?.type;
  if (type === 'RollingUpdate') {
    const surge = valueFromIntOrPercent(d.spec?.strategy?.rollingUpdate?.maxSurge ?? 0, replicasOf(d), true);
    const current = replicaCount(allRSs);
    const maxTotal = replicasOf(d) + surge;
    if (current >= maxTotal) return replicasOf(newRS);
    const scaleUp = Math.min(maxTotal - current, replicasOf(d) - replicasOf(newRS));
    return replicasOf(newRS) + scaleUp;
  }
  if (type === 'Recreate') return replicasOf(d);
  throw new Error(`deployment type ${type} isn't supported`);
}

/** kube's IsSaturated: the new ReplicaSet holds (and believes it holds) every desired replica, all available. */
export function isSaturated(d: DeploymentObject, rs: ReplicaSetObject | undefined): boolean {
  if (!rs) return false;
  const desired = desiredReplicasAnnotationOf(rs);
  return desired !== undefined && replicasOf(rs) === replicasOf(d) && desired === replicasOf(d) && (rs.status?.availableReplicas ?? 0) === replicasOf(d);
}

/** kube's getReplicaSetFraction: this ReplicaSet's share of a resize, from its max-replicas annotation. */
function replicaSetFraction(rs: ReplicaSetObject, d: DeploymentObject): number {
  if (replicasOf(d) === 0) return -replicasOf(rs);
  const deploymentReplicas = replicasOf(d) + maxSurge(d);
  const annotated = intAnnotation(rs, maxReplicasAnnotation) ?? d.status?.replicas ?? 0;
  const newSize = (replicasOf(rs) * deploymentReplicas) / annotated;
  // Go's math.Round: halves away from zero.
  return Math.sign(newSize) * Math.round(Math.abs(newSize)) - replicasOf(rs);
}

/** kube's GetProportion: how many replicas this ReplicaSet gains (or loses) in a proportional resize. */
export function proportion(rs: ReplicaSetObject | undefined, d: DeploymentObject, toAdd: number, added: number): number {
  if (!rs || replicasOf(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(rs, d);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

/** Unlimited history is MaxInt32, as in kube. */
export function hasRevisionHistoryLimit(d: DeploymentObject): boolean {
  const l = d.spec?.revisionHistoryLimit;
  return l !== undefined && l !== null && l !== 2147483647;
}

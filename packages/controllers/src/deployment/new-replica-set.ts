/**
 * The new ReplicaSet of a Deployment (kube's getNewReplicaSet): the one whose
 * template is the Deployment's, its revision raised above every old one's and
 * copied to the Deployment; or, when there is none and the rollout needs it,
 * a new one named `<deployment>-<pod-template-hash>`, with the hash in its
 * labels, selector and template. A name taken by another template is a hash
 * collision: collisionCount goes up and the next sync hashes anew.
 */
import { deepCopy } from '@operant/apimachinery';
import { Deployment, ReplicaSet, isAlreadyExists, isControlledBy, setControllerReference } from '@operant/runtime';
import type { DeploymentObject, ReplicaSetObject } from '../objects.js';
import { computeHash } from './hash.js';
import { maxRevision, revisionAnnotation, setDeploymentRevision, setNewReplicaSetAnnotations } from './annotations.js';
import { deploymentCondition, hasProgressDeadline, newDeploymentCondition, reasons, setDeploymentCondition } from './conditions.js';
import { equalIgnoreHash, findNewReplicaSet, findOldReplicaSets, newRSNewReplicas, podTemplateHashLabel } from './replica-sets.js';
import { namespaceTerminating } from '../context.js';
import { deploymentEvent, writeDeploymentStatus, type DeploymentContext } from './writes.js';

/** kube's getAllReplicaSetsAndSyncRevision: the new ReplicaSet (created when asked and missing) and every old one. */
export async function allReplicaSetsAndSyncRevision(
  ctx: DeploymentContext,
  d: DeploymentObject,
  rsList: ReplicaSetObject[],
  createIfMissing: boolean,
): Promise<{ newRS: ReplicaSetObject | undefined; oldRSs: ReplicaSetObject[] }> {
  const oldRSs = findOldReplicaSets(d, rsList).all;
  const newRS = await newReplicaSet(ctx, d, rsList, oldRSs, createIfMissing);
  return { newRS, oldRSs };
}

async function newReplicaSet(
  ctx: DeploymentContext,
  d: DeploymentObject,
  rsList: ReplicaSetObject[],
  oldRSs: ReplicaSetObject[],
  createIfMissing: boolean,
): Promise<ReplicaSetObject | undefined> {
  const existing = findNewReplicaSet(d, rsList);
  const newRevision = String(maxRevision(oldRSs) + 1);
  if (existing) {
    const rs = deepCopy(existing);
    const annotationsUpdated = setNewReplicaSetAnnotations(d, rs, newRevision, true);
    const minReadySeconds = d.spec?.minReadySeconds ?? 0;
    if (annotationsUpdated || (rs.spec?.minReadySeconds ?? 0) !== minReadySeconds) {
      rs.spec = { ...rs.spec!, minReadySeconds };
      return ctx.client.update(ReplicaSet, rs);
    }
    // The revision the ReplicaSet carries (set before), not newRevision.
    let needsUpdate = setDeploymentRevision(d, rs.metadata.annotations?.[revisionAnnotation]);
    if (hasProgressDeadline(d) && !deploymentCondition(d.status, 'Progressing')) {
      d.status ??= {};
      setDeploymentCondition(d.status, newDeploymentCondition('Progressing', 'True', reasons.foundNewRS, `Found new replica set ${JSON.stringify(rs.metadata.name)}`, ctx.now()));
      needsUpdate = true;
    }
    if (needsUpdate) await writeDeploymentStatus(ctx, d);
    return rs;
  }
  if (!createIfMissing) return undefined;

  const template = deepCopy(d.spec!.template);
  const hash = computeHash(template, d.status?.collisionCount);
  template.metadata = { ...template.metadata, labels: { ...template.metadata?.labels, [podTemplateHashLabel]: hash } };
  const selector = deepCopy(d.spec!.selector);
  selector.matchLabels = { ...selector.matchLabels, [podTemplateHashLabel]: hash };
  const created: ReplicaSetObject = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    // A deterministic name keeps the create idempotent.
    metadata: { name: `${d.metadata.name}-${hash}`, namespace: d.metadata.namespace, labels: template.metadata.labels },
    spec: { replicas: 0, minReadySeconds: d.spec?.minReadySeconds ?? 0, selector, template },
  };
  setControllerReference(d, created, Deployment);
  created.spec!.replicas = newRSNewReplicas(d, [...oldRSs, created], created);
  setNewReplicaSetAnnotations(d, created, newRevision, false);

  let rs: ReplicaSetObject;
  let alreadyExisted = false;
  try {
    rs = await ctx.client.create(ReplicaSet, created);
  } catch (err) {
    if (isAlreadyExists(err)) {
      // A slow cache, or a hash collision: it is ours only if we control it and it has our template.
      const found = await ctx.client.get(ReplicaSet, created.metadata.name!, { namespace: d.metadata.namespace, live: true });
      if (isControlledBy(found, d) && equalIgnoreHash(d.spec!.template, found.spec?.template)) {
        rs = found;
        alreadyExisted = true;
      } else {
        d.status = { ...d.status, collisionCount: (d.status?.collisionCount ?? 0) + 1 };
        await writeDeploymentStatus(ctx, d);
        throw err;
      }
    } else {
      if (namespaceTerminating(err)) throw err;
      const msg = `Failed to create new replica set ${JSON.stringify(created.metadata.name)}: ${(err as Error).message}`;
      if (hasProgressDeadline(d)) {
        d.status ??= {};
        setDeploymentCondition(d.status, newDeploymentCondition('Progressing', 'False', reasons.failedRSCreate, msg, ctx.now()));
        await writeDeploymentStatus(ctx, d).catch(() => undefined);
      }
      deploymentEvent(ctx, d, 'Warning', reasons.failedRSCreate, msg);
      throw err;
    }
  }
  const replicas = created.spec!.replicas!;
  if (!alreadyExisted && replicas > 0) deploymentEvent(ctx, d, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${rs.metadata.name} to ${replicas}`);
  let needsUpdate = setDeploymentRevision(d, newRevision);
  if (!alreadyExisted && hasProgressDeadline(d)) {
    d.status ??= {};
    setDeploymentCondition(d.status, newDeploymentCondition('Progressing', 'True', reasons.newReplicaSet, `Created new replica set ${JSON.stringify(rs.metadata.name)}`, ctx.now()));
    needsUpdate = true;
  }
  if (needsUpdate) await writeDeploymentStatus(ctx, d);
  return rs;
}

/**
 * The status writes of a rollout step (kube's progress.go and
 * checkPausedConditions): the new status when it changed, otherwise how long
 * until the progress deadline should be looked at again.
 */
import type { ReconcileResult } from '@operant/runtime';
import type { DeploymentObject, ReplicaSetObject } from '../objects.js';
import { progressCheckDelay, rolloutStatus, sameStatus } from './status.js';
import { deploymentCondition, hasProgressDeadline, newDeploymentCondition, reasons, setDeploymentCondition } from './conditions.js';
import { writeDeploymentStatus, type DeploymentContext } from './writes.js';

/** kube's syncRolloutStatus: writes the rollout's status, or asks to be requeued for a deadline. */
export async function syncRolloutStatus(
  ctx: DeploymentContext,
  allRSs: (ReplicaSetObject | undefined)[],
  newRS: ReplicaSetObject | undefined,
  d: DeploymentObject,
): Promise<ReconcileResult | void> {
  const now = ctx.now();
  const status = rolloutStatus(allRSs, newRS, d, now);
  if (sameStatus(d.status, status)) {
    const delay = progressCheckDelay(d, status, now);
    if (delay === undefined) return;
    return delay === 0 ? { requeue: true } : { requeueAfter: delay };
  }
  d.status = status;
  await writeDeploymentStatus(ctx, d);
}

/**
 * kube's checkPausedConditions: Progressing becomes Unknown/DeploymentPaused
 * while paused and Unknown/DeploymentResumed after, so that a pause never
 * counts against the progress deadline. A timed-out Deployment is left as it is.
 */
export async function checkPausedConditions(ctx: DeploymentContext, d: DeploymentObject): Promise<void> {
  if (!hasProgressDeadline(d)) return;
  const cond = deploymentCondition(d.status, 'Progressing');
  if (cond?.reason === reasons.timedOut) return;
  const pausedCondExists = cond?.reason === reasons.paused;
  d.status ??= {};
  if (d.spec?.paused && !pausedCondExists) {
    setDeploymentCondition(d.status, newDeploymentCondition('Progressing', 'Unknown', reasons.paused, 'Deployment is paused', ctx.now()));
  } else if (!d.spec?.paused && pausedCondExists) {
    setDeploymentCondition(d.status, newDeploymentCondition('Progressing', 'Unknown', reasons.resumed, 'Deployment is resumed', ctx.now()));
  } else return;
  await writeDeploymentStatus(ctx, d);
}

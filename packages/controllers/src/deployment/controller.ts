/**
 * The deployment controller (kube's deployment_controller.go syncDeployment),
 * built with the runtime's builder: it reconciles Deployments, is woken by
 * the ReplicaSets they control and by the deletion of their pods (which a
 * Recreate rollout waits for). Each sync takes one step, in kube's order of
 * priority: a Deployment being deleted only gets its status; a paused one
 * or a scaling event is resized proportionally; otherwise the strategy rolls
 * out (RollingUpdate or Recreate).
 */
import { deepCopy, labelSelectorFromObject } from '@operant/apimachinery';
import {
  Deployment,
  getControllerOf,
  ignoreNotFound,
  isControlledBy,
  objectReference,
  Pod,
  ReplicaSet,
  type Manager,
  type ReconcileResult,
  type Request,
} from '@operant/runtime';
import { namespaceTerminating, type WorkloadControllerOptions } from '../context.js';
import type { DeploymentObject, PodObject, ReplicaSetObject } from '../objects.js';
import { checkPausedConditions } from './progress.js';
import { rolloutRecreate } from './recreate.js';
import { rolloutRolling } from './rolling.js';
import { isScalingEvent, sync, syncStatusOnly } from './scale.js';
import { writeDeploymentStatus, type DeploymentContext } from './writes.js';

/**
 * Adds kube's deployment controller to a manager: Deployments get
 * ReplicaSets named `<deployment>-<pod-template-hash>`, rolled by their
 * strategy, with kube's status, conditions, revision annotations and events.
 * Pair it with {@link addReplicaSetController}, which makes the pods.
 *
 * @example
 * ```ts
 * import { addDeploymentController, addReplicaSetController } from '@operant/controllers';
 * import { handleSignals, Manager } from '@operant/runtime';
 *
 * const mgr = await Manager.create({ client: { readYourWrites: true } });
 * addDeploymentController(mgr);
 * addReplicaSetController(mgr);
 * await mgr.start(handleSignals());
 * ```
 */
export function addDeploymentController(mgr: Manager, options: WorkloadControllerOptions = {}): void {
  const clock = options.clock;
  const ctx: DeploymentContext = {
    client: mgr.client,
    recorder: mgr.eventRecorderFor('deployment-controller'),
    now: () => (clock ?? Date).now(),
  };
  const replicaSets = mgr.informers.informerFor(ReplicaSet);
  mgr
    .controller('deployment', clock ? { clock } : {})
    .for(Deployment)
    .owns(ReplicaSet)
    // kube wakes a Deployment on its pods' deletion only (a Recreate rollout waits for the last one).
    .watches(
      Pod,
      (pod) => {
        const rsRef = getControllerOf(pod);
        if (rsRef?.kind !== 'ReplicaSet') return [];
        const rs = replicaSets.store.get(`${pod.metadata.namespace}/${rsRef.name}`);
        const dRef = rs && getControllerOf(rs);
        return dRef?.kind === 'Deployment' ? [{ namespace: pod.metadata.namespace ?? '', name: dRef.name }] : [];
      },
      { predicates: [{ create: () => false, update: () => false, generic: () => false }] },
    )
    .maxConcurrentReconciles(options.workers ?? 5)
    .reconcile((req) =>
      syncDeployment(ctx, req).catch((err: unknown) => {
        // kube's handleErr forgets a sync refused because the namespace is terminating: no log, no retry;
        // the Deployment goes with its namespace.
        if (namespaceTerminating(err)) return;
        throw err;
      }),
    );
}

/** kube's syncDeployment. */
async function syncDeployment(ctx: DeploymentContext, req: Request): Promise<ReconcileResult | void> {
  const found = await ctx.client.get(Deployment, req.name, { namespace: req.namespace }).catch(ignoreNotFound);
  if (!found) return;
  const d = deepCopy(found) as DeploymentObject;
  const selector = d.spec?.selector;
  if (selector && Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0) {
    ctx.recorder.event(objectReference(d, Deployment), 'Warning', 'SelectingAll', 'This deployment is selecting all pods. A non-empty selector is required.');
    if ((d.status?.observedGeneration ?? 0) < (d.metadata.generation ?? 0)) {
      d.status = { ...d.status, observedGeneration: d.metadata.generation };
      await writeDeploymentStatus(ctx, d);
    }
    return;
  }
  const rsList = await replicaSetsOf(ctx, d);
  if (d.metadata.deletionTimestamp) return syncStatusOnly(ctx, d, rsList);
  await checkPausedConditions(ctx, d);
  if (d.spec?.paused) return sync(ctx, d, rsList);
  if (await isScalingEvent(ctx, d, rsList)) return sync(ctx, d, rsList);
  switch (d.spec?.strategy?.type) {
    case 'Recreate':
      return rolloutRecreate(ctx, d, rsList, await podsByReplicaSet(ctx, d, rsList));
    case 'RollingUpdate':
      return rolloutRolling(ctx, d, rsList);
    default:
      throw new Error(`unexpected deployment strategy type: ${d.spec?.strategy?.type}`);
  }
}

/** The ReplicaSets the Deployment controls (copies: the sync changes them). */
async function replicaSetsOf(ctx: DeploymentContext, d: DeploymentObject): Promise<ReplicaSetObject[]> {
  const list = await ctx.client.list(ReplicaSet, { namespace: d.metadata.namespace });
  return list.items.filter((rs) => isControlledBy(rs, d)) as ReplicaSetObject[];
}

/** kube's getPodMapForDeployment: the pods the selector matches, by the uid of their (listed) ReplicaSet. */
async function podsByReplicaSet(ctx: DeploymentContext, d: DeploymentObject, rsList: ReplicaSetObject[]): Promise<Map<string, PodObject[]>> {
  const map = new Map<string, PodObject[]>(rsList.map((rs) => [rs.metadata.uid!, []]));
  const selector = labelSelectorFromObject(d.spec?.selector).toString();
  const pods = await ctx.client.list(Pod, { namespace: d.metadata.namespace, labelSelector: selector });
  for (const pod of pods.items) {
    const uid = getControllerOf(pod)?.uid;
    if (uid && map.has(uid)) map.get(uid)!.push(pod as PodObject);
  }
  return map;
}

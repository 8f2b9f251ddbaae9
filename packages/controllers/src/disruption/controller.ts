/**
 * The disruption controller (kube's pkg/controller/disruption): keeps each
 * PodDisruptionBudget's status, which the server's eviction subresource
 * reads to allow or refuse an eviction.
 *
 * - expectedPods: the pods the budget's selector matches, or, for a
 *   percentage or maxUnavailable, the replicas their controllers ask for
 *   (a ReplicaSet, its Deployment, a StatefulSet);
 * - desiredHealthy: minAvailable, or expectedPods - maxUnavailable, scaled
 *   and rounded up as kube rounds them;
 * - currentHealthy: ready pods that are not being deleted and not recorded
 *   in `status.disruptedPods` by an eviction in the last two minutes;
 * - disruptionsAllowed: currentHealthy - desiredHealthy, never below 0;
 * - the DisruptionAllowed condition (SufficientPods, InsufficientPods, or
 *   SyncFailed with disruptionsAllowed 0 when the count cannot be made).
 */
import { deepCopy, labelSelectorFromObject, type LabelSelector } from '@operant/apimachinery';
import {
  Deployment,
  getControllerOf,
  ignoreNotFound,
  objectReference,
  Pod,
  PodDisruptionBudget,
  ReplicaSet,
  setStatusCondition,
  StatefulSet,
  type Condition,
  type Manager,
  type OwnerReference,
  type ReconcileResult,
  type Request,
  type Typed,
} from '@operant/runtime';
import type * as policyv1 from 'kubernetes-types/policy/v1.js';
import { timeOf } from '../clock.js';
import type { ControllerContext as Context, WorkloadControllerOptions } from '../context.js';
import { valueFromIntOrPercent } from '../deployment/fenceposts.js';
import { canonicalJson } from '../json.js';
import type { PodObject } from '../objects.js';
import { isPodReady } from '../pod/pod-util.js';

type BudgetObject = Typed<policyv1.PodDisruptionBudget>;
type BudgetStatus = { -readonly [K in keyof policyv1.PodDisruptionBudgetStatus]: policyv1.PodDisruptionBudgetStatus[K] };

/** kube's DeletionTimeout: how long an eviction's entry in disruptedPods keeps the pod out of the healthy count. */
export const disruptionDeletionTimeoutMs = 2 * 60 * 1000;

/**
 * Adds kube's disruption controller to a manager.
 *
 * @example
 * ```ts
 * import { addDisruptionController } from '@operant/controllers';
 * import { handleSignals, Manager } from '@operant/runtime';
 *
 * const mgr = await Manager.create({ client: { readYourWrites: true } });
 * addDisruptionController(mgr);
 * await mgr.start(handleSignals());
 * ```
 */
export function addDisruptionController(mgr: Manager, options: WorkloadControllerOptions = {}): void {
  const clock = options.clock;
  const ctx: Context = { client: mgr.client, recorder: mgr.eventRecorderFor('controllermanager'), now: () => (clock ?? Date).now() };
  // The budgets seen so far, with their selectors, so that a pod's change reaches the budgets covering it.
  const budgets = new Map<string, { request: Request; selector: LabelSelector }>();
  const budgetsOf = (pod: PodObject): Request[] => {
    const out: Request[] = [];
    for (const b of budgets.values()) {
      if (b.request.namespace === pod.metadata.namespace && b.selector.matches(pod.metadata.labels)) out.push(b.request);
    }
    return out;
  };
  mgr
    .controller('disruption', clock ? { clock } : {})
    .for(PodDisruptionBudget)
    .watches(Pod, (pod) => budgetsOf(pod as PodObject))
    .maxConcurrentReconciles(options.workers ?? 2)
    .reconcile(async (req) => {
      const key = `${req.namespace}/${req.name}`;
      const found = (await ctx.client.get(PodDisruptionBudget, req.name, { namespace: req.namespace }).catch(ignoreNotFound)) as BudgetObject | undefined;
      if (!found) {
        budgets.delete(key);
        return;
      }
      budgets.set(key, { request: req, selector: selectorOf(found) });
      return syncBudget(ctx, deepCopy(found) as BudgetObject);
    });
}

/** policy/v1: an absent selector matches no pod, an empty one every pod of the namespace; an invalid one none. */
function selectorOf(pdb: BudgetObject): LabelSelector {
  try {
    return labelSelectorFromObject(pdb.spec?.selector as Parameters<typeof labelSelectorFromObject>[0]);
  } catch {
    return labelSelectorFromObject(undefined);
  }
}

async function syncBudget(ctx: Context, pdb: BudgetObject): Promise<ReconcileResult | void> {
  if (pdb.metadata.deletionTimestamp) return;
  try {
    return await trySync(ctx, pdb);
  } catch (err) {
    if (!(err instanceof SyncError)) throw err;
    await failSafe(ctx, pdb, err.message);
  }
}

/** A failure kube reports on the budget itself (its failSafe), rather than retries. */
class SyncError extends Error {}

async function trySync(ctx: Context, pdb: BudgetObject): Promise<ReconcileResult | void> {
  const regarding = objectReference(pdb, PodDisruptionBudget);
  const selector = selectorOf(pdb);
  const pods = ((await ctx.client.list(Pod, { namespace: pdb.metadata.namespace })).items as PodObject[]).filter((p) => selector.matches(p.metadata.labels));
  if (pods.length === 0) ctx.recorder.event(regarding, 'Normal', 'NoPods', 'No matching pods found');

  const { expected, desiredHealthy, unmanaged } = await expectedCounts(ctx, pdb, pods);
  if (unmanaged.length > 0) {
    ctx.recorder.event(
      regarding,
      'Warning',
      'UnmanagedPods',
      `Pods selected by this PodDisruptionBudget (selector: ${selector.toString()}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set ".spec.minAvailable" field of the PDB to an integer value.`,
    );
  }

  const now = ctx.now();
  const { disrupted, recheckAt } = disruptedPodMap(ctx, pdb, pods, now);
  const currentHealthy = pods.filter((p) => !p.metadata.deletionTimestamp && !(p.metadata.name! in disrupted) && isPodReady(p)).length;
  await updateStatus(ctx, pdb, { currentHealthy, desiredHealthy, expected, disrupted });
  if (recheckAt !== undefined) return { requeueAfter: Math.max(1, recheckAt - now) };
}

/**
 * kube's getExpectedPodCount: the pods the budget expects and how many of
 * them must stay healthy. A percentage or maxUnavailable is taken of the
 * replicas the pods' controllers ask for; pods without a controller are
 * reported, not counted.
 */
async function expectedCounts(ctx: Context, pdb: BudgetObject, pods: PodObject[]): Promise<{ expected: number; desiredHealthy: number; unmanaged: string[] }> {
  const spec = pdb.spec ?? {};
  if (spec.maxUnavailable !== undefined) {
    const { expected, unmanaged } = await expectedScale(ctx, pdb, pods);
    const maxUnavailable = scaled(spec.maxUnavailable, expected);
    return { expected, desiredHealthy: Math.max(0, expected - maxUnavailable), unmanaged };
  }
  if (spec.minAvailable !== undefined) {
    if (typeof spec.minAvailable === 'number') return { expected: pods.length, desiredHealthy: spec.minAvailable, unmanaged: [] };
    const { expected, unmanaged } = await expectedScale(ctx, pdb, pods);
    return { expected, desiredHealthy: scaled(spec.minAvailable, expected), unmanaged };
  }
  return { expected: 0, desiredHealthy: 0, unmanaged: [] };
}

function scaled(value: number | string, total: number): number {
  try {
    return valueFromIntOrPercent(value, total, true);
  } catch (err) {
    throw new SyncError((err as Error).message);
  }
}

/** kube's getExpectedScale: the sum of the replicas of each distinct controller of the pods. */
async function expectedScale(ctx: Context, pdb: BudgetObject, pods: PodObject[]): Promise<{ expected: number; unmanaged: string[] }> {
  const unmanaged: string[] = [];
  const scales = new Map<string, number>();
  for (const pod of pods) {
    const ref = getControllerOf(pod);
    if (!ref) {
      unmanaged.push(pod.metadata.name!);
      continue;
    }
    if (scales.has(ref.uid)) continue;
    const found = await controllerScale(ctx, ref, pod.metadata.namespace ?? '');
    if (!found) {
      const message = `found no controllers for pod ${JSON.stringify(pod.metadata.name)}`;
      ctx.recorder.event(objectReference(pdb, PodDisruptionBudget), 'Warning', 'NoControllers', message);
      throw new SyncError(message);
    }
    scales.set(found.uid, found.replicas);
  }
  let expected = 0;
  for (const replicas of scales.values()) expected += replicas;
  return { expected, unmanaged };
}

/** kube's finders: a ReplicaSet's Deployment (or the ReplicaSet itself when it has none), a StatefulSet. */
async function controllerScale(ctx: Context, ref: OwnerReference, namespace: string): Promise<{ uid: string; replicas: number } | undefined> {
  if (ref.kind === 'ReplicaSet' && ref.apiVersion?.startsWith('apps/')) {
    const rs = await ctx.client.get(ReplicaSet, ref.name, { namespace }).catch(ignoreNotFound);
    if (!rs || rs.metadata.uid !== ref.uid) return undefined;
    const owner = getControllerOf(rs);
    if (owner?.kind === 'Deployment') {
      const d = await ctx.client.get(Deployment, owner.name, { namespace }).catch(ignoreNotFound);
      if (!d || d.metadata.uid !== owner.uid) return undefined;
      return { uid: d.metadata.uid!, replicas: d.spec?.replicas ?? 1 };
    }
    return { uid: rs.metadata.uid!, replicas: rs.spec?.replicas ?? 1 };
  }
  if (ref.kind === 'StatefulSet' && ref.apiVersion?.startsWith('apps/')) {
    const sts = await ctx.client.get(StatefulSet, ref.name, { namespace }).catch(ignoreNotFound);
    if (!sts || sts.metadata.uid !== ref.uid) return undefined;
    return { uid: sts.metadata.uid!, replicas: sts.spec?.replicas ?? 1 };
  }
  return undefined;
}

/**
 * kube's buildDisruptedPodMap: the evictions still under way. An entry older
 * than the deletion timeout is dropped (the pod was not deleted after all);
 * the earliest expiry of the rest is when to look again.
 */
function disruptedPodMap(ctx: Context, pdb: BudgetObject, pods: PodObject[], now: number): { disrupted: Record<string, string>; recheckAt?: number } {
  const recorded = pdb.status?.disruptedPods ?? {};
  const disrupted: Record<string, string> = {};
  let recheckAt: number | undefined;
  for (const pod of pods) {
    if (pod.metadata.deletionTimestamp) continue;
    const stamp = recorded[pod.metadata.name!];
    const at = timeOf(stamp);
    if (at === undefined) continue;
    const expires = at + disruptionDeletionTimeoutMs;
    if (expires < now) {
      ctx.recorder.event(objectReference(pod, Pod), 'Warning', 'NotDeleted', `Pod was expected by PDB ${pdb.metadata.namespace}/${pdb.metadata.name} to be deleted but it wasn't`);
      continue;
    }
    disrupted[pod.metadata.name!] = stamp!;
    if (recheckAt === undefined || expires < recheckAt) recheckAt = expires;
  }
  return { disrupted, recheckAt };
}

/** component-helpers' UpdateDisruptionAllowedCondition. */
function setDisruptionAllowed(status: BudgetStatus, now: number): void {
  const conditions = [...((status.conditions ?? []) as Condition[])];
  const allowed = status.disruptionsAllowed > 0;
  setStatusCondition(
    conditions,
    {
      type: 'DisruptionAllowed',
      status: allowed ? 'True' : 'False',
      reason: allowed ? 'SufficientPods' : 'InsufficientPods',
      message: '',
      observedGeneration: status.observedGeneration,
    },
    { now: () => new Date(now) },
  );
  status.conditions = conditions;
}

/** kube's updatePdbStatus: writes the counts only when something changed. */
async function updateStatus(
  ctx: Context,
  pdb: BudgetObject,
  counts: { currentHealthy: number; desiredHealthy: number; expected: number; disrupted: Record<string, string> },
): Promise<void> {
  let disruptionsAllowed = counts.currentHealthy - counts.desiredHealthy;
  if (counts.expected <= 0 || disruptionsAllowed <= 0) disruptionsAllowed = 0;
  const old = pdb.status;
  const status: BudgetStatus = {
    ...(deepCopy(old ?? {}) as BudgetStatus),
    currentHealthy: counts.currentHealthy,
    desiredHealthy: counts.desiredHealthy,
    expectedPods: counts.expected,
    disruptionsAllowed,
    disruptedPods: Object.keys(counts.disrupted).length ? counts.disrupted : undefined,
    observedGeneration: pdb.metadata.generation,
  };
  setDisruptionAllowed(status, ctx.now());
  if (status.disruptedPods === undefined) delete status.disruptedPods;
  if (canonicalJson(status) === canonicalJson(old ?? {})) return;
  await ctx.client.updateStatus(PodDisruptionBudget, { ...pdb, status } as BudgetObject);
}

/** kube's failSafe: no disruption allowed while the budget cannot be computed, and why. */
async function failSafe(ctx: Context, pdb: BudgetObject, message: string): Promise<void> {
  const status = deepCopy(pdb.status ?? { currentHealthy: 0, desiredHealthy: 0, expectedPods: 0, disruptionsAllowed: 0 }) as BudgetStatus;
  status.disruptionsAllowed = 0;
  const conditions = [...((status.conditions ?? []) as Condition[])];
  setStatusCondition(
    conditions,
    { type: 'DisruptionAllowed', status: 'False', reason: 'SyncFailed', message, observedGeneration: status.observedGeneration },
    { now: () => new Date(ctx.now()) },
  );
  status.conditions = conditions;
  if (canonicalJson(status) === canonicalJson(pdb.status ?? {})) return;
  await ctx.client.updateStatus(PodDisruptionBudget, { ...pdb, status } as BudgetObject);
}

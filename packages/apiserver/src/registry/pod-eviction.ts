/**
 * Evicting a pod (kube's EvictionREST in pkg/registry/core/pod/storage):
 * `POST pods/<name>/eviction` with a policy/v1 Eviction deletes the pod only
 * if the PodDisruptionBudget covering it allows one more disruption. The
 * budget is checked and decremented in one conditional write of its status,
 * which also records the pod in `status.disruptedPods` so that the
 * disruption controller does not count it as healthy while it goes away.
 */
import {
  StatusError,
  badRequest,
  conflict,
  deepCopy,
  forbidden,
  isJsonObject,
  labelSelectorFromObject,
  type KubeObject,
  type Status,
} from '@operant/apimachinery';
import type { UserInfo } from '../auth/authn/user-info.js';
import { StoreError } from '../storage/types.js';
import { nowTimestamp } from './object-meta.js';
import { setPodCondition } from './pod-conditions.js';
import type { DeleteOptions } from './options.js';
import type { ResourceStore } from './resource-store.js';

type Json = Record<string, unknown>;
const asObj = (v: unknown): Json => (isJsonObject(v) ? (v as Json) : {});

/** kube's MaxDisruptedPodSize: evictions the disruption controller has yet to confirm, per budget. */
export const maxDisruptedPods = 2000;

/** A policy/v1 Eviction as clients send it. */
export interface Eviction {
  metadata?: { name?: string; namespace?: string };
  deleteOptions?: {
    dryRun?: string[];
    gracePeriodSeconds?: number;
    propagationPolicy?: DeleteOptions['propagationPolicy'];
    preconditions?: { uid?: string; resourceVersion?: string };
  };
}

/** Where an eviction reads and writes. */
export interface EvictionStores {
  pods: ResourceStore;
  podDisruptionBudgets: ResourceStore;
}

const violationMessage = "Cannot evict pod as it would violate the pod's disruption budget.";

/** kube's 429 for a budget that allows no disruption now; `retryAfterSeconds` 0 is left out of the details. */
function budgetViolation(cause: string, retryAfterSeconds: number): StatusError {
  const details = { causes: [{ reason: 'DisruptionBudget', message: cause }], ...(retryAfterSeconds > 0 ? { retryAfterSeconds } : {}) };
  return new StatusError(429, 'TooManyRequests', violationMessage, details);
}

function stillProcessing(pdbName: string): StatusError {
  return budgetViolation(`The disruption budget ${pdbName} is still being processed by the server.`, 10);
}

function isPodReady(pod: KubeObject): boolean {
  const conditions = asObj(pod.status).conditions;
  return Array.isArray(conditions) && conditions.some((c) => asObj(c).type === 'Ready' && asObj(c).status === 'True');
}

/** Terminal, pending and terminating pods are deleted without consulting any budget. */
function canIgnoreBudget(pod: KubeObject): boolean {
  const phase = asObj(pod.status).phase;
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || !!pod.metadata.deletionTimestamp;
}

/** Whether the delete must be conditional on the pod not having changed (it might have become ready meanwhile). */
function enforcesResourceVersion(pod: KubeObject): boolean {
  const phase = asObj(pod.status).phase;
  return !(phase === 'Succeeded' || phase === 'Failed' || pod.metadata.deletionTimestamp);
}

/** The budgets in the pod's namespace whose selector matches the pod (policy/v1: an empty selector matches every pod, an absent one none). */
async function budgetsCovering(pdbs: ResourceStore, pod: KubeObject): Promise<KubeObject[]> {
  const list = await pdbs.list(pod.metadata.namespace ?? '', {});
  return (list.items as KubeObject[]).filter((pdb) => {
    try {
      return labelSelectorFromObject(asObj(pdb.spec).selector as Parameters<typeof labelSelectorFromObject>[0]).matches(pod.metadata.labels);
    } catch {
      // An invalid selector matches no pod.
      return false;
    }
  });
}

/**
 * kube's addConditionAndDeletePod: the pod gets `DisruptionTarget=True`
 * (EvictionByEvictionAPI) in the write just before its deletion, checked
 * against the delete's preconditions; returns the options for the delete,
 * whose pinned resourceVersion moves to the one this write made.
 */
function markDisruptionTarget(pods: ResourceStore, namespace: string, name: string, options: DeleteOptions): DeleteOptions {
  if (options.dryRun) return options;
  const key = pods.key(namespace, name);
  const current = pods.mvcc.get(key);
  if (!current) return options;
  const meta = current.value.metadata;
  const gr = { group: '', resource: 'Pod' };
  const pre = options.preconditions;
  if (pre?.uid && pre.uid !== meta.uid) {
    throw conflict(gr, name, `the UID in the precondition (${pre.uid}) does not match the UID in record (${meta.uid}). The object might have been deleted and then recreated`);
  }
  if (pre?.resourceVersion && pre.resourceVersion !== meta.resourceVersion) {
    throw conflict(gr, name, `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${meta.resourceVersion}). The object might have been modified`);
  }
  const pod = deepCopy(current.value) as KubeObject;
  setPodCondition(pod, { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' });
  const stored = pods.mvcc.update(key, current.rev, pod);
  if (pre?.resourceVersion === undefined) return options;
  return { ...options, preconditions: { ...pre, resourceVersion: stored.value.metadata.resourceVersion } };
}

/** Deletes the evicted pod as kube does, through the pod registry, after marking it. */
async function deleteEvicted(pods: ResourceStore, namespace: string, name: string, options: DeleteOptions): Promise<void> {
  await pods.delete(namespace, name, markDisruptionTarget(pods, namespace, name, options));
}

/** component-helpers' UpdateDisruptionAllowedCondition, applied to a wire PDB status. */
export function setDisruptionAllowedCondition(status: Json, now = nowTimestamp()): void {
  const allowed = typeof status.disruptionsAllowed === 'number' && status.disruptionsAllowed > 0;
  const conditions = Array.isArray(status.conditions) ? (status.conditions as Json[]) : [];
  const next: Json = {
    type: 'DisruptionAllowed',
    status: allowed ? 'True' : 'False',
    reason: allowed ? 'SufficientPods' : 'InsufficientPods',
    message: '',
    ...(status.observedGeneration ? { observedGeneration: status.observedGeneration } : {}),
  };
  const i = conditions.findIndex((c) => c.type === 'DisruptionAllowed');
  const old = i >= 0 ? conditions[i] : undefined;
  next.lastTransitionTime = old && old.status === next.status ? old.lastTransitionTime : now;
  if (i >= 0) conditions[i] = { ...old, ...next };
  else conditions.push(next);
  status.conditions = conditions;
}

/**
 * kube's checkAndDecrement: refuses when the budget allows no disruption (or
 * its status is stale), otherwise takes one disruption and records the pod,
 * as one write conditional on the budget's revision (retried on conflict).
 */
function checkAndDecrement(pdbs: ResourceStore, namespace: string, podName: string, pdbName: string, dryRun: boolean): void {
  const key = pdbs.key(namespace, pdbName);
  for (let attempt = 0; ; attempt++) {
    const current = pdbs.mvcc.get(key);
    if (!current) throw stillProcessing(pdbName);
    const pdb = deepCopy(current.value) as KubeObject;
    const status = asObj(pdb.status);
    pdb.status = status;
    const allowed = typeof status.disruptionsAllowed === 'number' ? status.disruptionsAllowed : 0;
    if (((status.observedGeneration as number | undefined) ?? 0) < (pdb.metadata.generation ?? 0)) throw stillProcessing(pdbName);
    const gr = { group: 'policy', resource: 'poddisruptionbudget' };
    if (allowed < 0) throw forbidden(gr, pdbName, 'pdb disruptions allowed is negative');
    const disrupted = asObj(status.disruptedPods);
    if (Object.keys(disrupted).length > maxDisruptedPods) {
      throw forbidden(gr, pdbName, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
    }
    if (allowed === 0) {
      const cause = `The disruption budget ${pdbName} needs ${status.desiredHealthy ?? 0} healthy pods and has ${status.currentHealthy ?? 0} currently`;
      throw budgetViolation(cause, 0);
    }
    status.disruptionsAllowed = allowed - 1;
    if (allowed - 1 === 0) setDisruptionAllowedCondition(status);
    if (dryRun) return;
    status.disruptedPods = { ...disrupted, [podName]: nowTimestamp() };
    try {
      pdbs.mvcc.update(key, current.rev, pdb);
      return;
    } catch (e) {
      if (e instanceof StoreError && e.code === 'Conflict' && attempt < 20) continue;
      if (e instanceof StoreError && e.code === 'Conflict') throw new StatusError(504, 'Timeout', `couldn't update PodDisruptionBudget "${pdbName}" due to conflicts`, { retryAfterSeconds: 10 });
      throw e;
    }
  }
}

/** The outcome of an eviction: kube answers a Status, a Success or (for a pod under two budgets) a 500 Failure. */
export interface EvictionResult {
  code: number;
  status: Status;
}

/**
 * Evicts pod `name` in `namespace` as kube's EvictionREST does. Refusals are
 * thrown as StatusErrors with kube's codes and wording (429 with a
 * DisruptionBudget cause when the budget allows no disruption).
 */
export async function evictPod(
  stores: EvictionStores,
  namespace: string,
  name: string,
  eviction: Eviction,
  request: { dryRun: boolean; user?: UserInfo; validate?: (eviction: Eviction, dryRun: boolean) => Promise<void> },
): Promise<EvictionResult> {
  if ((eviction.metadata?.name ?? '') !== name) throw badRequest('name in URL does not match name in Eviction object');
  const bodyOptions = eviction.deleteOptions ?? {};
  const bodyDryRun = bodyOptions.dryRun ?? [];
  const requestDryRun = request.dryRun ? ['All'] : [];
  if (bodyDryRun.length > 0 && requestDryRun.length > 0 && bodyDryRun.join() !== requestDryRun.join()) {
    throw badRequest(`Non-matching dry-run options in request and content: [${requestDryRun.join(' ')}] and [${bodyDryRun.join(' ')}]`);
  }
  const dryRun = request.dryRun || bodyDryRun.includes('All');
  // The validating webhooks see the Eviction once its name and dry run are settled, as kube's createValidation does.
  await request.validate?.(eviction, dryRun);
  const original: DeleteOptions = {
    dryRun,
    user: request.user,
    gracePeriodSeconds: bodyOptions.gracePeriodSeconds,
    propagationPolicy: bodyOptions.propagationPolicy,
    preconditions: bodyOptions.preconditions,
  };
  const callerPinnedVersion = original.preconditions?.resourceVersion !== undefined;
  const pinned = (pod: KubeObject): DeleteOptions => ({ ...original, preconditions: { ...original.preconditions, resourceVersion: pod.metadata.resourceVersion } });
  const success: EvictionResult = { code: 201, status: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 } };

  const pod = await stores.pods.get(namespace, name);
  if (canIgnoreBudget(pod)) {
    await deleteEvicted(stores.pods, namespace, name, enforcesResourceVersion(pod) && !callerPinnedVersion ? pinned(pod) : original);
    return success;
  }

  const budgets = await budgetsCovering(stores.podDisruptionBudgets, pod);
  if (budgets.length > 1) {
    const message = 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.';
    return { code: 500, status: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 } };
  }
  let conditional = false;
  if (budgets.length === 1) {
    const pdb = budgets[0];
    const spec = asObj(pdb.spec);
    const status = asObj(pdb.status);
    const currentHealthy = (status.currentHealthy as number | undefined) ?? 0;
    const desiredHealthy = (status.desiredHealthy as number | undefined) ?? 0;
    const unhealthyMayGo =
      !isPodReady(pod) &&
      (spec.unhealthyPodEvictionPolicy === 'AlwaysAllow' || (currentHealthy >= desiredHealthy && desiredHealthy > 0));
    if (unhealthyMayGo) conditional = true;
    else checkAndDecrement(stores.podDisruptionBudgets, namespace, name, pdb.metadata.name!, dryRun);
  }
  try {
    await deleteEvicted(stores.pods, namespace, name, conditional ? pinned(pod) : original);
  } catch (e) {
    // The pod changed (it may have become ready) since the budget was read: the client retries.
    if (e instanceof StatusError && e.reason === 'Conflict' && conditional && !callerPinnedVersion) throw stillProcessing(budgets[0].metadata.name!);
    throw e;
  }
  return success;
}

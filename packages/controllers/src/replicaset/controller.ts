/**
 * The replicaset controller (kube's replica_set.go), built with the runtime's
 * builder, and the replicationcontroller controller, which kube runs as the
 * same code on ReplicationControllers: it keeps as many active pods as a
 * ReplicaSet (or ReplicationController) asks for, creating
 * them from its template (`generateName: <replicaset>-`, a controller owner
 * reference) in slow-start batches and deleting the cheapest first, and
 * reports replicas, ready, available (minReadySeconds) and fully labeled
 * pods in its status.
 *
 * kube guards against a stale cache with "expectations" (creates and
 * deletes it waits to see); here the manager's read-your-own-writes client
 * does that job: a list of pods after this controller's creates or deletes
 * waits until the cache shows them.
 */
import { deepCopy, jsonEqual } from '@operant/apimachinery';
import {
  ignoreNotFound,
  isNotFound,
  objectReference,
  Pod,
  ReplicaSet,
  ReplicationController,
  setControllerReference,
  type Kind,
  type Manager,
  type ReconcileResult,
  type Request,
} from '@operant/runtime';
import { rfc3339 } from '../clock.js';
import { namespaceTerminating, type ControllerContext as Context, type WorkloadControllerOptions } from '../context.js';
import type { PodObject, ReplicaSetObject, ReplicaSetStatus } from '../objects.js';
import { availableAt, isPodActive, isPodAvailable, isPodAvailableSince, isPodReady, podReadyCondition } from '../pod/pod-util.js';
import { podsControlledBy, indexPodsByController } from '../pod/controlled-pods.js';
import { podsToDelete } from './pods-to-delete.js';

/** kube's burstReplicas: most pods created or deleted in one sync. */
const burstReplicas = 500;

/**
 * The kind a controller keeps replicas of: ReplicaSets, or ReplicationControllers
 * (whose spec and status have the same fields, with a plain label map as selector).
 */
type ReplicatedKind = Kind<ReplicaSetObject>;

/**
 * Adds kube's replicaset controller to a manager: each ReplicaSet keeps
 * `spec.replicas` active pods made from its template, with kube's status and
 * SuccessfulCreate/SuccessfulDelete events. The manager's client should read
 * its own writes (`client: { readYourWrites: true }`), which stands in for
 * kube's expectations.
 *
 * @example
 * ```ts
 * import { addReplicaSetController } from '@operant/controllers';
 * import { handleSignals, Manager } from '@operant/runtime';
 *
 * const mgr = await Manager.create({ client: { readYourWrites: true } });
 * addReplicaSetController(mgr, { workers: 10 });
 * await mgr.start(handleSignals());
 * ```
 */
export function addReplicaSetController(mgr: Manager, options: WorkloadControllerOptions = {}): void {
  addReplicatingController(mgr, ReplicaSet as unknown as ReplicatedKind, 'replicaset', 'replicaset-controller', options);
}

/**
 * Adds kube's replicationcontroller controller to a manager: the replicaset
 * controller's behaviour for ReplicationControllers.
 *
 * @example
 * ```ts
 * import { addReplicationControllerController } from '@operant/controllers';
 * import { handleSignals, Manager } from '@operant/runtime';
 *
 * const mgr = await Manager.create({ client: { readYourWrites: true } });
 * addReplicationControllerController(mgr);
 * await mgr.start(handleSignals());
 * ```
 */
export function addReplicationControllerController(mgr: Manager, options: WorkloadControllerOptions = {}): void {
  addReplicatingController(mgr, ReplicationController as unknown as ReplicatedKind, 'replicationcontroller', 'replication-controller', options);
}

function addReplicatingController(mgr: Manager, kind: ReplicatedKind, name: string, component: string, options: WorkloadControllerOptions): void {
  const clock = options.clock;
  const ctx: Context = { client: mgr.client, recorder: mgr.eventRecorderFor(component), now: () => (clock ?? Date).now() };
  indexPodsByController(mgr);
  mgr
    .controller(name, clock ? { clock } : {})
    .for(kind)
    .owns(Pod)
    .maxConcurrentReconciles(options.workers ?? 5)
    .reconcile((req) => syncReplicaSet(ctx, kind, req));
}

/** kube's syncReplicaSet. */
async function syncReplicaSet(ctx: Context, kind: ReplicatedKind, req: Request): Promise<ReconcileResult | void> {
  const found = await ctx.client.get(kind, req.name, { namespace: req.namespace }).catch(ignoreNotFound);
  if (!found) return;
  const rs = deepCopy(found) as ReplicaSetObject;
  // The cached pods themselves, read only (kube's listers share them too), from the controller index:
  // a copy, or a scan, of every pod in the namespace on each sync made a large rollout quadratic.
  const pods = (await podsControlledBy(ctx.client, rs, rs.spec?.selector)).filter(isPodActive);
  let manageError: Error | undefined;
  if (!rs.metadata.deletionTimestamp) {
    try {
      await manageReplicas(ctx, kind, pods, rs);
    } catch (err) {
      manageError = err as Error;
    }
  }
  const now = ctx.now();
  const status = calculateStatus(rs, pods, manageError, now);
  if (!jsonEqual(status, rs.status ?? {})) {
    rs.status = status;
    await ctx.client.updateStatus(kind, rs);
  }
  if (manageError) throw manageError;
  // kube resyncs after minReadySeconds; we come back when the next ready pod becomes available.
  const minReady = rs.spec?.minReadySeconds ?? 0;
  if (minReady <= 0) return;
  let next = Infinity;
  for (const p of pods) if (isPodReady(p) && !isPodAvailable(p, minReady, now)) next = Math.min(next, availableAt(p, minReady) ?? Infinity);
  if (Number.isFinite(next)) return { requeueAfter: Math.max(1, next - now) };
}

/** kube's manageReplicas: creates or deletes the difference (at most {@link burstReplicas} at a time). */
async function manageReplicas(ctx: Context, kind: ReplicatedKind, pods: PodObject[], rs: ReplicaSetObject): Promise<void> {
  const diff = pods.length - (rs.spec?.replicas ?? 1);
  if (diff < 0) {
    await slowStartBatch(Math.min(-diff, burstReplicas), () => createPod(ctx, kind, rs));
  } else if (diff > 0) {
    // The cache lists them unordered; by name first, so ties among equally cheap pods go as they always did.
    const byName = [...pods].sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0));
    const victims = podsToDelete(byName, Math.min(diff, burstReplicas));
    const results = await Promise.allSettled(victims.map((pod) => deletePod(ctx, kind, rs, pod)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }
}

/**
 * kube's slowStartBatch: runs `fn` `count` times in batches of 1, 2, 4, ...,
 * stopping after the first batch with a failure (so a quota or a webhook that
 * refuses pods costs one request, not hundreds).
 */
export async function slowStartBatch(count: number, fn: () => Promise<void>): Promise<number> {
  let remaining = count;
  let successes = 0;
  for (let batch = Math.min(remaining, 1); batch > 0; batch = Math.min(2 * batch, remaining)) {
    const results = await Promise.allSettled(Array.from({ length: batch }, fn));
    successes += results.filter((r) => r.status === 'fulfilled').length;
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    remaining -= batch;
  }
  return successes;
}

/** kube's GetPodFromTemplate and CreatePods: `<replicaset>-xxxxx`, controlled by the ReplicaSet. */
async function createPod(ctx: Context, kind: ReplicatedKind, rs: ReplicaSetObject): Promise<void> {
  const template = rs.spec?.template ?? {};
  const pod: PodObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${rs.metadata.name}-`,
      namespace: rs.metadata.namespace,
      labels: template.metadata?.labels,
      annotations: template.metadata?.annotations,
      finalizers: template.metadata?.finalizers,
    },
    spec: deepCopy(template.spec) ?? { containers: [] },
  };
  setControllerReference(rs, pod, kind);
  const regarding = objectReference(rs, kind);
  try {
    const created = await ctx.client.create(Pod, pod);
    ctx.recorder.event(regarding, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`);
  } catch (err) {
    // A terminating namespace refuses every create: nothing worth reporting.
    if (namespaceTerminating(err)) return;
    ctx.recorder.event(regarding, 'Warning', 'FailedCreate', `Error creating: ${(err as Error).message}`);
    throw err;
  }
}

async function deletePod(ctx: Context, kind: ReplicatedKind, rs: ReplicaSetObject, pod: PodObject): Promise<void> {
  const regarding = objectReference(rs, kind);
  try {
    await ctx.client.delete(Pod, pod.metadata.name!, { namespace: pod.metadata.namespace, preconditions: { uid: pod.metadata.uid } });
    ctx.recorder.event(regarding, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`);
  } catch (err) {
    if (isNotFound(err)) return;
    ctx.recorder.event(regarding, 'Warning', 'FailedDelete', `Error deleting: ${(err as Error).message}`);
    throw err;
  }
}

/** kube's calculateStatus for a ReplicaSet: counts over its active pods, and a ReplicaFailure condition while pods cannot be made or removed. */
export function calculateStatus(rs: ReplicaSetObject, pods: PodObject[], manageError: Error | undefined, nowMs: number): ReplicaSetStatus {
  const templateLabels = Object.entries(rs.spec?.template?.metadata?.labels ?? {});
  const minReady = rs.spec?.minReadySeconds ?? 0;
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  // Once per sync over every pod of the set: plain loops, the Ready condition looked up once per pod.
  for (const pod of pods) {
    const labels = pod.metadata.labels;
    let labeled = true;
    for (let i = 0; i < templateLabels.length && labeled; i++) labeled = labels?.[templateLabels[i]![0]] === templateLabels[i]![1];
    if (labeled) fullyLabeled++;
    const readyCondition = podReadyCondition(pod);
    if (readyCondition?.status === 'True') {
      ready++;
      if (isPodAvailableSince(readyCondition, minReady, nowMs)) available++;
    }
  }
  let conditions = (rs.status?.conditions ?? []).map((c) => ({ ...c }));
  const failure = conditions.find((c) => c.type === 'ReplicaFailure');
  if (manageError && !failure) {
    const reason = pods.length < (rs.spec?.replicas ?? 1) ? 'FailedCreate' : 'FailedDelete';
    conditions.push({ type: 'ReplicaFailure', status: 'True', lastTransitionTime: rfc3339(nowMs), reason, message: manageError.message });
  } else if (!manageError && failure) {
    conditions = conditions.filter((c) => c.type !== 'ReplicaFailure');
  }
  // Go's omitempty: replicas is always sent, the other counters only when not zero.
  const status: { -readonly [K in keyof ReplicaSetStatus]: ReplicaSetStatus[K] } = { replicas: pods.length };
  if (fullyLabeled) status.fullyLabeledReplicas = fullyLabeled;
  if (ready) status.readyReplicas = ready;
  if (available) status.availableReplicas = available;
  if (rs.metadata.generation) status.observedGeneration = rs.metadata.generation;
  if (conditions.length) status.conditions = conditions;
  return status;
}

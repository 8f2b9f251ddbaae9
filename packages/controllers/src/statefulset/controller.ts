/**
 * The statefulset controller (kube's stateful_set_control.go): pods with
 * stable names `<set>-<ordinal>`, made in order and removed in reverse.
 *
 * - OrderedReady: one pod at a time, the next only once every lower ordinal
 *   runs and is ready; scale-down removes the highest ordinal first, one at a
 *   time, only while the others are healthy.
 * - Parallel: every missing pod at once, every condemned pod at once.
 * - RollingUpdate: pods at or above the partition are replaced, highest
 *   ordinal first, one at a time, each once the previous one is healthy
 *   again; pods below the partition keep (and are recreated at) the current
 *   revision. OnDelete: a pod gets the new template only when someone deletes it.
 *
 * Revisions are ControllerRevisions; each pod names its own in the
 * `controller-revision-hash` label. Each pod's PersistentVolumeClaims come
 * from the volumeClaimTemplates before the pod does (see claims.ts).
 */
import { deepCopy } from '@operant/apimachinery';
import { ignoreNotFound, isControlledBy, Pod, StatefulSet, type Manager, type ReconcileResult, type Request, type Typed } from '@operant/runtime';
import type * as appsv1 from 'kubernetes-types/apps/v1.js';
import { canonicalJson } from '../json.js';
import type { ControllerContext as Context, WorkloadControllerOptions } from '../context.js';
import type { PodObject } from '../objects.js';
import { availableAt, isPodAvailable } from '../pod/pod-util.js';
import { createOwnedPod, deleteOwnedPod, isRunningAndReady, isTerminal, podFromTemplate } from '../workload/pod-template.js';
import { ensureRevision, listRevisions, revisionLabel, revisionTemplate, truncateHistory, type Revision } from '../workload/revisions.js';
import { applyRetentionPolicy, createMissingClaims, mountClaims } from './claims.js';

type StatefulSetObject = Typed<appsv1.StatefulSet>;
type StatefulSetStatus = { -readonly [K in keyof appsv1.StatefulSetStatus]: appsv1.StatefulSetStatus[K] };

/** The labels kube puts on a StatefulSet's pods besides the template's. */
const podNameLabel = 'statefulset.kubernetes.io/pod-name';
const podIndexLabel = 'apps.kubernetes.io/pod-index';

/**
 * Adds kube's statefulset controller to a manager.
 *
 * @example
 * ```ts
 * import { addStatefulSetController } from '@operant/controllers';
 * import { handleSignals, Manager } from '@operant/runtime';
 *
 * const mgr = await Manager.create({ client: { readYourWrites: true } });
 * addStatefulSetController(mgr);
 * await mgr.start(handleSignals());
 * ```
 */
export function addStatefulSetController(mgr: Manager, options: WorkloadControllerOptions = {}): void {
  const clock = options.clock;
  const ctx: Context = { client: mgr.client, recorder: mgr.eventRecorderFor('statefulset-controller'), now: () => (clock ?? Date).now() };
  mgr
    .controller('statefulset', clock ? { clock } : {})
    .for(StatefulSet)
    .owns(Pod)
    .maxConcurrentReconciles(options.workers ?? 5)
    .reconcile((req) => syncStatefulSet(ctx, req));
}

/** The ordinal of a pod named `<set>-<n>`, or -1. */
function ordinalOf(set: StatefulSetObject, pod: PodObject): number {
  const prefix = `${set.metadata.name}-`;
  const name = pod.metadata.name ?? '';
  if (!name.startsWith(prefix) || !/^\d+$/.test(name.slice(prefix.length))) return -1;
  return Number(name.slice(prefix.length));
}

const revisionOf = (pod: PodObject): string | undefined => pod.metadata.labels?.[revisionLabel];
const isTerminating = (pod: PodObject): boolean => !!pod.metadata.deletionTimestamp;

async function syncStatefulSet(ctx: Context, req: Request): Promise<ReconcileResult | void> {
  const found = (await ctx.client.get(StatefulSet, req.name, { namespace: req.namespace }).catch(ignoreNotFound)) as StatefulSetObject | undefined;
  if (!found || found.metadata.deletionTimestamp) return;
  const set = deepCopy(found) as StatefulSetObject;
  const spec = set.spec!;
  const all = await ctx.client.list(Pod, { namespace: req.namespace });
  const pods = (all.items as PodObject[]).filter((p) => isControlledBy(p, set) && ordinalOf(set, p) >= 0);

  const revisions = await listRevisions(ctx, set);
  const update = await ensureRevision(ctx, set, StatefulSet, spec.template, revisions);
  const currentName = set.status?.currentRevision || update.name;
  const current: Revision = { name: currentName, revision: 0, template: revisionTemplate(revisions, currentName) ?? update.template };

  await reconcilePods(ctx, set, pods, current, update);

  const fresh = (await ctx.client.list(Pod, { namespace: req.namespace })).items as PodObject[];
  const mine = fresh.filter((p) => isControlledBy(p, set) && ordinalOf(set, p) >= 0);
  const now = ctx.now();
  const status = computeStatus(set, mine, current.name, update.name, now);
  if (canonicalJson(status) !== canonicalJson(set.status ?? {})) {
    await ctx.client.updateStatus(StatefulSet, { ...set, status } as StatefulSetObject);
  }
  const live = new Set([status.currentRevision ?? '', status.updateRevision ?? '', ...mine.map((p) => revisionOf(p) ?? '')]);
  await truncateHistory(ctx, await listRevisions(ctx, set), live, spec.revisionHistoryLimit ?? 10);
  // Come back when a ready pod becomes available (minReadySeconds); pod events bring the rest.
  const minReady = spec.minReadySeconds ?? 0;
  const next = Math.min(...mine.filter((p) => isRunningAndReady(p) && !isPodAvailable(p, minReady, now)).map((p) => availableAt(p, minReady) ?? Infinity));
  if (Number.isFinite(next)) return { requeueAfter: Math.max(1, next - now) };
}

/** kube's newVersionedStatefulSetPod: below the partition, the current revision; else the update revision. */
function revisionFor(set: StatefulSetObject, ordinal: number, current: Revision, update: Revision): Revision {
  const strategy = set.spec?.updateStrategy;
  if (strategy?.type === 'OnDelete') return update;
  const partition = strategy?.rollingUpdate?.partition ?? 0;
  return ordinal < partition ? current : update;
}

function newPod(set: StatefulSetObject, ordinal: number, revision: Revision): PodObject {
  const name = `${set.metadata.name}-${ordinal}`;
  const serviceName = set.spec?.serviceName;
  return podFromTemplate(set, StatefulSet, revision.template, {
    name,
    labels: { [revisionLabel]: revision.name, [podNameLabel]: name, [podIndexLabel]: String(ordinal) },
    adjustSpec(spec) {
      spec.hostname = name;
      if (serviceName) spec.subdomain = serviceName;
      mountClaims(set, ordinal, spec);
    },
  });
}

/** Whether a pod counts as healthy for ordering: running, ready and available for minReadySeconds. */
function healthy(set: StatefulSetObject, pod: PodObject, now: number): boolean {
  return isRunningAndReady(pod) && !isTerminating(pod) && isPodAvailable(pod, set.spec?.minReadySeconds ?? 0, now);
}

/** One step of kube's updateStatefulSet: create, replace failed, condemn, then roll. */
async function reconcilePods(ctx: Context, set: StatefulSetObject, pods: PodObject[], current: Revision, update: Revision): Promise<void> {
  const replicas = set.spec?.replicas ?? 1;
  const ordered = set.spec?.podManagementPolicy !== 'Parallel';
  const now = ctx.now();
  const byOrdinal = new Map(pods.map((p) => [ordinalOf(set, p), p]));
  const created = (n: string): string => `create Pod ${n} in StatefulSet ${set.metadata.name} successful`;
  const deleted = (n: string): string => `delete Pod ${n} in StatefulSet ${set.metadata.name} successful`;

  // Pods that should exist, in order.
  for (let ordinal = 0; ordinal < replicas; ordinal++) {
    const pod = byOrdinal.get(ordinal);
    if (pod && isTerminal(pod) && !isTerminating(pod)) {
      // A failed (or, oddly, succeeded) pod is deleted, to be made again.
      await deleteOwnedPod(ctx, set, StatefulSet, pod, deleted);
      if (ordered) return;
      continue;
    }
    if (!pod) {
      // kube's CreateStatefulPod: the claims first, then the pod, then the claims' owners per the retention policy.
      await createMissingClaims(ctx, set, ordinal);
      const made = await createOwnedPod(ctx, set, StatefulSet, newPod(set, ordinal, revisionFor(set, ordinal, current, update)), created);
      if (made) await applyRetentionPolicy(ctx, set, made, ordinal);
      if (ordered) return;
      continue;
    }
    if (!isTerminating(pod)) {
      // A pending pod whose claim went missing gets it again; a changed retention policy reaches every claim.
      if (pod.status?.phase === 'Pending') await createMissingClaims(ctx, set, ordinal);
      await applyRetentionPolicy(ctx, set, pod, ordinal);
    }
    if (ordered && !healthy(set, pod, now)) return;
  }

  // Pods beyond the replicas, highest ordinal first; their claims pass to them first under whenScaled: Delete.
  const condemned = [...byOrdinal.entries()].filter(([o]) => o >= replicas).sort((a, b) => b[0] - a[0]);
  for (const [ordinal, pod] of condemned) if (!isTerminating(pod)) await applyRetentionPolicy(ctx, set, pod, ordinal);
  for (const [, pod] of condemned) {
    if (isTerminating(pod)) {
      if (ordered) return;
      continue;
    }
    await deleteOwnedPod(ctx, set, StatefulSet, pod, deleted);
    if (ordered) return;
  }

  // The rolling update: from the highest ordinal down to the partition, one pod at a time.
  const strategy = set.spec?.updateStrategy;
  if (strategy?.type === 'OnDelete') return;
  const partition = strategy?.rollingUpdate?.partition ?? 0;
  for (let ordinal = replicas - 1; ordinal >= partition; ordinal--) {
    const pod = byOrdinal.get(ordinal);
    if (!pod) return;
    if (revisionOf(pod) !== update.name && !isTerminating(pod)) {
      await deleteOwnedPod(ctx, set, StatefulSet, pod, deleted);
      return;
    }
    if (!healthy(set, pod, now)) return;
  }
}

/** kube's computeReplicaStatus, and completeRollingUpdate once every pod runs the update revision. */
function computeStatus(set: StatefulSetObject, pods: PodObject[], currentRevision: string, updateRevision: string, now: number): StatefulSetStatus {
  const minReady = set.spec?.minReadySeconds ?? 0;
  let replicas = 0;
  let ready = 0;
  let available = 0;
  let currentReplicas = 0;
  let updated = 0;
  for (const pod of pods) {
    replicas++;
    if (isRunningAndReady(pod)) {
      ready++;
      if (isPodAvailable(pod, minReady, now)) available++;
    }
    if (!isTerminating(pod)) {
      if (revisionOf(pod) === currentRevision) currentReplicas++;
      if (revisionOf(pod) === updateRevision) updated++;
    }
  }
  const status: StatefulSetStatus = {
    observedGeneration: set.metadata.generation,
    replicas,
    readyReplicas: ready,
    currentReplicas,
    updatedReplicas: updated,
    currentRevision,
    updateRevision,
    collisionCount: set.status?.collisionCount ?? 0,
    availableReplicas: available,
  };
  const desired = set.spec?.replicas ?? 1;
  if (set.spec?.updateStrategy?.type !== 'OnDelete' && updated === desired && ready === desired && replicas === desired) {
    status.currentReplicas = updated;
    status.currentRevision = updateRevision;
  }
  // Go's omitempty: the zero counters that kube leaves out.
  for (const key of ['readyReplicas', 'currentReplicas', 'updatedReplicas'] as const) if (!status[key]) delete status[key];
  return status;
}

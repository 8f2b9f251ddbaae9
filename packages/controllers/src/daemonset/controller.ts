/**
 * The daemonset controller (kube's daemon_controller.go and update.go): one
 * pod on each node its pods fit (node selector, required node affinity,
 * taints), none elsewhere. Each pod is pinned to its node with a node
 * affinity on `metadata.name` and left to the scheduler to bind, and
 * tolerates what kube's DaemonSet pods tolerate (not-ready, unreachable,
 * pressure, unschedulable).
 *
 * A RollingUpdate replaces old pods node by node, never leaving more than
 * maxUnavailable nodes without an available pod; with maxSurge, the new pod
 * starts beside the old one, which goes once the new one is available.
 */
import { deepCopy } from '@operant/apimachinery';
import { DaemonSet, ignoreNotFound, isControlledBy, Node, Pod, type Manager, type ReconcileResult, type Request, type Typed } from '@operant/runtime';
import type * as appsv1 from 'kubernetes-types/apps/v1.js';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import { canonicalJson } from '../json.js';
import type { ControllerContext as Context, WorkloadControllerOptions } from '../context.js';
import type { NodeObject, PodObject, PodTemplateSpec } from '../objects.js';
import { availableAt, isPodAvailable, isPodReady } from '../pod/pod-util.js';
import { daemonPodFits } from '../scheduler/filters.js';
import { valueFromIntOrPercent as scaledValue } from '../deployment/fenceposts.js';
import { createOwnedPod, deleteOwnedPod, isTerminal, podFromTemplate } from '../workload/pod-template.js';
import { ensureRevision, listRevisions, revisionLabel, truncateHistory } from '../workload/revisions.js';

type DaemonSetObject = Typed<appsv1.DaemonSet>;
type DaemonSetStatus = { -readonly [K in keyof appsv1.DaemonSetStatus]: appsv1.DaemonSetStatus[K] };

const templateGenerationAnnotation = 'deprecated.daemonset.template.generation';
const templateGenerationLabel = 'pod-template-generation';

/** The tolerations kube adds to every DaemonSet pod (AddOrUpdateDaemonPodTolerations). */
function daemonTolerations(hostNetwork: boolean): corev1.Toleration[] {
  const t = (key: string, effect: string): corev1.Toleration => ({ key: `node.kubernetes.io/${key}`, operator: 'Exists', effect });
  const list = [t('not-ready', 'NoExecute'), t('unreachable', 'NoExecute'), t('disk-pressure', 'NoSchedule'), t('memory-pressure', 'NoSchedule'), t('pid-pressure', 'NoSchedule'), t('unschedulable', 'NoSchedule')];
  if (hostNetwork) list.push(t('network-unavailable', 'NoSchedule'));
  return list;
}

/** The template with the daemon tolerations merged in (kube keeps existing ones with the same key and effect). */
function withDaemonTolerations(template: PodTemplateSpec | undefined): PodTemplateSpec {
  const t = deepCopy(template ?? {}) as { -readonly [K in keyof PodTemplateSpec]: PodTemplateSpec[K] };
  const spec = { ...(t.spec ?? { containers: [] }) } as { -readonly [K in keyof corev1.PodSpec]: corev1.PodSpec[K] };
  const tolerations = [...(spec.tolerations ?? [])];
  for (const add of daemonTolerations(spec.hostNetwork === true)) {
    if (!tolerations.some((x) => x.key === add.key && x.effect === add.effect)) tolerations.push(add);
  }
  spec.tolerations = tolerations;
  t.spec = spec;
  return t;
}

/** kube's ReplaceDaemonSetPodNodeNameNodeAffinity: the pod may go on `node` only. */
function pinToNode(spec: { -readonly [K in keyof corev1.PodSpec]: corev1.PodSpec[K] }, node: string): void {
  const term: corev1.NodeSelectorTerm = { matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] };
  spec.affinity = { ...spec.affinity, nodeAffinity: { ...spec.affinity?.nodeAffinity, requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [term] } } };
}

/** The node a DaemonSet pod is on, or is pinned to while not yet bound. */
function nodeOf(pod: PodObject): string | undefined {
  if (pod.spec?.nodeName) return pod.spec.nodeName;
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  return terms[0]?.matchFields?.find((f) => f.key === 'metadata.name' && f.operator === 'In')?.values?.[0];
}

/**
 * Adds kube's daemonset controller to a manager. Node changes bring every
 * DaemonSet this controller has seen back to reconcile.
 *
 * @example
 * ```ts
 * import { addDaemonSetController } from '@operant/controllers';
 * import { handleSignals, Manager } from '@operant/runtime';
 *
 * const mgr = await Manager.create({ client: { readYourWrites: true } });
 * addDaemonSetController(mgr);
 * await mgr.start(handleSignals());
 * ```
 */
export function addDaemonSetController(mgr: Manager, options: WorkloadControllerOptions = {}): void {
  const clock = options.clock;
  const ctx: Context = { client: mgr.client, recorder: mgr.eventRecorderFor('daemonset-controller'), now: () => (clock ?? Date).now() };
  const known = new Map<string, Request>();
  mgr
    .controller('daemonset', clock ? { clock } : {})
    .for(DaemonSet)
    .owns(Pod)
    .watches(Node, () => [...known.values()])
    .maxConcurrentReconciles(options.workers ?? 2)
    .reconcile(async (req) => {
      const key = `${req.namespace}/${req.name}`;
      const found = (await ctx.client.get(DaemonSet, req.name, { namespace: req.namespace }).catch(ignoreNotFound)) as DaemonSetObject | undefined;
      if (!found) {
        known.delete(key);
        return;
      }
      known.set(key, req);
      return syncDaemonSet(ctx, deepCopy(found) as DaemonSetObject);
    });
}

interface NodePlan {
  node: NodeObject;
  shouldRun: boolean;
  pods: PodObject[];
}

async function syncDaemonSet(ctx: Context, ds: DaemonSetObject): Promise<ReconcileResult | void> {
  if (ds.metadata.deletionTimestamp) return;
  const nodes = (await ctx.client.list(Node)).items as NodeObject[];
  const revisions = await listRevisions(ctx, ds);
  const template = withDaemonTolerations(ds.spec?.template);
  const update = await ensureRevision(ctx, ds, DaemonSet, ds.spec?.template, revisions);
  const hash = update.name.slice(`${ds.metadata.name}-`.length);
  const generation = ds.metadata.annotations?.[templateGenerationAnnotation];
  const plans = await planNodes(ctx, ds, nodes, template);
  const isNew = (p: PodObject): boolean => p.metadata.labels?.[revisionLabel] === hash;

  const newPod = (node: string): PodObject =>
    podFromTemplate(ds, DaemonSet, template, {
      generateName: `${ds.metadata.name}-`,
      labels: { [revisionLabel]: hash, ...(generation ? { [templateGenerationLabel]: generation } : {}) },
      adjustSpec: (spec) => pinToNode(spec, node),
    });

  const surge = resolvedMaxSurge(ds, plans);
  // kube's manage: create where a pod is missing, delete extras and misplaced ones, replace failed ones.
  for (const plan of plans) {
    const live = plan.pods.filter((p) => !p.metadata.deletionTimestamp);
    const failed = live.filter((p) => isTerminal(p));
    for (const p of failed) await deleteOwnedPod(ctx, ds, DaemonSet, p);
    const running = live.filter((p) => !isTerminal(p));
    if (!plan.shouldRun) {
      for (const p of running) await deleteOwnedPod(ctx, ds, DaemonSet, p);
      continue;
    }
    if (running.length === 0) {
      await createOwnedPod(ctx, ds, DaemonSet, newPod(plan.node.metadata.name!));
      continue;
    }
    // During a surge an old and a new pod may share a node; any other extra goes, the oldest stays.
    const surging = surge > 0 && running.length === 2 && running.some(isNew) && running.some((p) => !isNew(p));
    if (running.length > 1 && !surging) {
      const byAge = [...running].sort((a, b) => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? ''));
      for (const p of byAge.slice(1)) await deleteOwnedPod(ctx, ds, DaemonSet, p);
    }
  }

  const now = ctx.now();
  if (ds.spec?.updateStrategy?.type !== 'OnDelete') await rollingUpdate(ctx, ds, plans, isNew, newPod, surge, now);

  const fresh = await planNodes(ctx, ds, nodes, template);
  const status = computeStatus(ds, fresh, isNew, now);
  if (canonicalJson(status) !== canonicalJson(ds.status ?? {})) await ctx.client.updateStatus(DaemonSet, { ...ds, status } as DaemonSetObject);
  const live = new Set([update.name, ...fresh.flatMap((p) => p.pods.map((x) => `${ds.metadata.name}-${x.metadata.labels?.[revisionLabel] ?? ''}`))]);
  await truncateHistory(ctx, await listRevisions(ctx, ds), live, ds.spec?.revisionHistoryLimit ?? 10);
  const minReady = ds.spec?.minReadySeconds ?? 0;
  const pods = fresh.flatMap((p) => p.pods);
  const next = Math.min(...pods.filter((p) => isPodReady(p) && !isPodAvailable(p, minReady, now)).map((p) => availableAt(p, minReady) ?? Infinity));
  if (Number.isFinite(next)) return { requeueAfter: Math.max(1, next - now) };
}

/** Each node, whether the DaemonSet's pods belong there, and its pods on it. */
async function planNodes(ctx: Context, ds: DaemonSetObject, nodes: NodeObject[], template: PodTemplateSpec): Promise<NodePlan[]> {
  const all = (await ctx.client.list(Pod, { namespace: ds.metadata.namespace })).items as PodObject[];
  const mine = all.filter((p) => isControlledBy(p, ds));
  const probe = { metadata: {}, spec: template.spec } as PodObject;
  return nodes.map((node) => ({ node, shouldRun: daemonPodFits(probe, node), pods: mine.filter((p) => nodeOf(p) === node.metadata.name) }));
}

function desiredCount(plans: NodePlan[]): number {
  return plans.filter((p) => p.shouldRun).length;
}

/** maxSurge against the desired count, rounded up (kube's GetScaledValueFromIntOrPercent with roundUp). */
function resolvedMaxSurge(ds: DaemonSetObject, plans: NodePlan[]): number {
  const ru = ds.spec?.updateStrategy?.rollingUpdate;
  return scaledValue(ru?.maxSurge ?? 0, desiredCount(plans), true);
}

/** kube's rollingUpdate: old pods go while the unavailable stay within maxUnavailable (or surge beside them). */
async function rollingUpdate(
  ctx: Context,
  ds: DaemonSetObject,
  plans: NodePlan[],
  isNew: (p: PodObject) => boolean,
  newPod: (node: string) => PodObject,
  maxSurge: number,
  now: number,
): Promise<void> {
  const minReady = ds.spec?.minReadySeconds ?? 0;
  const available = (p: PodObject): boolean => !p.metadata.deletionTimestamp && !isTerminal(p) && isPodAvailable(p, minReady, now);
  const desired = desiredCount(plans);
  let maxUnavailable = scaledValue(ds.spec?.updateStrategy?.rollingUpdate?.maxUnavailable ?? 1, desired, true);
  if (maxUnavailable === 0 && maxSurge === 0) maxUnavailable = 1;
  const running = plans.filter((p) => p.shouldRun).map((p) => ({ plan: p, pods: p.pods.filter((x) => !x.metadata.deletionTimestamp && !isTerminal(x)) }));

  if (maxSurge === 0) {
    let unavailable = running.filter((r) => !r.pods.some(available)).length;
    for (const r of running) {
      const old = r.pods.find((p) => !isNew(p));
      if (!old) continue;
      if (!available(old)) {
        // Already unavailable: replacing it costs nothing.
        await deleteOwnedPod(ctx, ds, DaemonSet, old);
        continue;
      }
      if (unavailable >= maxUnavailable) continue;
      await deleteOwnedPod(ctx, ds, DaemonSet, old);
      unavailable++;
    }
    return;
  }

  let surging = running.filter((r) => r.pods.some(isNew) && r.pods.some((p) => !isNew(p))).length;
  for (const r of running) {
    const old = r.pods.find((p) => !isNew(p));
    if (!old) continue;
    const fresh = r.pods.find(isNew);
    if (fresh && available(fresh)) {
      await deleteOwnedPod(ctx, ds, DaemonSet, old);
    } else if (!fresh && surging < maxSurge) {
      await createOwnedPod(ctx, ds, DaemonSet, newPod(r.plan.node.metadata.name!));
      surging++;
    }
  }
}

/** kube's updateDaemonSetStatus counts. */
function computeStatus(ds: DaemonSetObject, plans: NodePlan[], isNew: (p: PodObject) => boolean, now: number): DaemonSetStatus {
  const minReady = ds.spec?.minReadySeconds ?? 0;
  let desired = 0;
  let current = 0;
  let misscheduled = 0;
  let ready = 0;
  let available = 0;
  let updated = 0;
  for (const plan of plans) {
    const pods = plan.pods.filter((p) => !p.metadata.deletionTimestamp);
    if (!plan.shouldRun) {
      if (pods.length) misscheduled++;
      continue;
    }
    desired++;
    if (pods.length === 0) continue;
    current++;
    const newest = pods.find(isNew) ?? pods[0]!;
    if (isNew(newest)) updated++;
    if (isPodReady(newest)) {
      ready++;
      if (isPodAvailable(newest, minReady, now)) available++;
    }
  }
  const status: DaemonSetStatus = {
    currentNumberScheduled: current,
    numberMisscheduled: misscheduled,
    desiredNumberScheduled: desired,
    numberReady: ready,
    observedGeneration: ds.metadata.generation,
  };
  if (updated) status.updatedNumberScheduled = updated;
  if (available) status.numberAvailable = available;
  if (desired - available > 0) status.numberUnavailable = desired - available;
  return status;
}

/**
 * The SidecarSet controller (Kruise's pkg/controller/sidecarset, the
 * processor's UpdateSidecarSet). Each reconcile:
 *
 *  1. lists the pods the SidecarSet matches;
 *  2. records its current state as a ControllerRevision (the latest one);
 *  3. writes the status (matched, updated, ready, updated-and-ready pods,
 *     latestRevision), only when it changed;
 *  4. unless `updateStrategy.type` is NotUpdate or the update is paused,
 *     upgrades the next pods in place (upgrade/strategy.ts): their sidecar
 *     images, hash record and update state. Pods that need more than an image
 *     change get the SidecarSetUpgradable=False condition and an event.
 *
 * A SidecarSet is reconciled when its spec changes and when one of the pods
 * it injected changes in a way the status or the upgrade counts
 * (pod-events.ts): a pod that becomes ready again frees budget for the next.
 *
 * Its client reads its own writes: the pods it just upgraded are never seen
 * in their old state by the next reconcile (what Kruise's update expectations
 * are for), so maxUnavailable holds even while the cache catches up.
 */
import {
  generationChanged,
  ignoreNotFound,
  isConflict,
  Namespace,
  Pod,
  type Client,
  type EventRecorder,
  type Manager,
  type ReconcileContext,
  type ReconcileResult,
  type Request,
  type Typed,
} from '@operant/runtime';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import { SidecarSet } from '../api/v1alpha1/zz_generated.kinds.js';
import { registerLatestRevision } from '../sidecarset/revision/history.js';
import { operatorNamespace } from '../sidecarset/revision/namespace.js';
import { matchedPods, statusChanged, statusOfMatched } from '../sidecarset/status/status.js';
import { podUpdateMatters, sidecarSetsOfPod } from '../sidecarset/status/pod-events.js';
import { nextUpgradePods } from '../sidecarset/upgrade/strategy.js';
import { upgradableCondition, upgradePodSidecars } from '../sidecarset/upgrade/pod-upgrade.js';

type PodObject = Typed<corev1.Pod>;

/**
 * Options of {@link setupSidecarSetController}.
 *
 * @example
 * ```ts
 * import type { SidecarSetControllerOptions } from './controllers/sidecarset-controller.js';
 *
 * const options: SidecarSetControllerOptions = { revisionNamespace: 'kruise-system' };
 * ```
 */
export interface SidecarSetControllerOptions {
  /**
   * Where the ControllerRevisions are kept; default the operator's own
   * namespace (revision/namespace.ts: POD_NAMESPACE, else `sidecarset-system`).
   */
  revisionNamespace?: string;
  /** The clock of the records written on pods; default the wall clock. */
  now?: () => Date;
}

/** What one reconcile works with. */
interface Processor {
  client: Client;
  recorder: EventRecorder;
  namespace: string;
  now: () => Date;
}

// +kubebuilder:rbac:groups=apps.kruise.io,resources=sidecarsets,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=apps.kruise.io,resources=sidecarsets/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=apps.kruise.io,resources=sidecarsets/finalizers,verbs=update
// +kubebuilder:rbac:groups=apps,resources=controllerrevisions,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups="",resources=pods/status,verbs=get;update;patch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

/** Reconciles one SidecarSet: revision, status, then the next round of its in-place upgrade. */
async function reconcileSidecarSet(p: Processor, req: Request, ctx: ReconcileContext): Promise<ReconcileResult | void> {
  const { client } = p;
  const signal = ctx.signal;
  const sidecarSet = await client.get(SidecarSet, req.name, { signal }).catch(ignoreNotFound);
  // Deleted since it was queued: its revisions go with it (owner references).
  if (!sidecarSet) return;
  const scope = sidecarSet.spec?.namespace;
  // Read-only use of the cached pods: copies are made only for the pods upgraded.
  const pods = await client.list(Pod, { ...(scope ? { namespace: scope } : {}), unsafeDisableDeepCopy: true, signal });
  const namespaces = sidecarSet.spec?.namespaceSelector ? (await client.list(Namespace, { signal })).items : [];
  const labels = new Map(namespaces.map((ns) => [ns.metadata.name ?? '', ns.metadata.labels ?? {}]));
  const namespaceLabels = (name: string) => labels.get(name);
  const matched = matchedPods(sidecarSet, pods.items, namespaceLabels);

  const latest = await registerLatestRevision(client, sidecarSet, matched, p.namespace, signal);
  if (latest.trimError) ctx.log.error({ err: latest.trimError.message }, 'failed to trim the revision history');
  const status = statusOfMatched(sidecarSet, matched, { latestRevision: latest.revision.metadata.name!, collisionCount: latest.collisionCount });
  let current = sidecarSet;
  if (statusChanged(sidecarSet.status, status)) {
    current = await client.updateStatus(SidecarSet, { ...sidecarSet, status }, { signal });
    ctx.log.debug({ matchedPods: status.matchedPods, updatedPods: status.updatedPods, readyPods: status.readyPods }, 'status updated');
  }

  const strategy = sidecarSet.spec?.updateStrategy;
  if (strategy?.type === 'NotUpdate' || strategy?.paused) return;
  if (status.updatedPods >= status.matchedPods) return;
  await upgradePods(p, current, matched as PodObject[], ctx);
}

/** One round of the in-place upgrade (Kruise's updatePods). */
async function upgradePods(p: Processor, sidecarSet: SidecarSet, matched: PodObject[], ctx: ReconcileContext): Promise<void> {
  const { upgrade, notUpgradable } = nextUpgradePods(sidecarSet, matched);
  for (const pod of notUpgradable) await setUpgradable(p, sidecarSet, pod, false, ctx.signal);
  if (notUpgradable.length > 0) {
    p.recorder.event(sidecarSet, 'Normal', 'NotUpgradablePods', `SidecarSet in-place update detected ${notUpgradable.length} not upgradable pod(s) in this round, will skip them.`);
  }
  // The pods of a round are upgraded side by side: one after the other, a round of a hundred pods
  // took a hundred times two writes, and the pods restarting first came back before the last began.
  await forEachConcurrently(upgrade, upgradeConcurrency, async (pod) => {
    await updatePodWithRetry(p.client, pod, (fresh) => upgradePodSidecars(sidecarSet, fresh, p.now()) as PodObject, ctx.signal);
    await setUpgradable(p, sidecarSet, pod, true, ctx.signal);
  });
  if (upgrade.length > 0) ctx.log.info({ pods: upgrade.map((pod) => pod.metadata.name) }, 'upgraded sidecars in place');
}

/** Pods of one round upgraded at the same time. */
const upgradeConcurrency = 16;

/** Runs `fn` on every item, at most `limit` at a time; rejects with the first failure once all have settled. */
async function forEachConcurrently<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const failures: unknown[] = [];
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++]!;
      await fn(item).catch((err: unknown) => void failures.push(err));
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failures.length > 0) throw failures[0];
}

/** Updates the pod with `change`, reading it again after a conflict (client-go's RetryOnConflict, 5 tries). */
async function updatePodWithRetry(client: Client, pod: PodObject, change: (pod: PodObject) => PodObject, signal: AbortSignal): Promise<void> {
  let current = pod;
  for (let attempt = 1; ; attempt++) {
    try {
      await client.update(Pod, change(current), { signal });
      return;
    } catch (err) {
      if (!isConflict(err) || attempt >= 5) throw err;
      current = await client.get(Pod, pod.metadata.name!, { namespace: pod.metadata.namespace, live: true, signal });
    }
  }
}

/** Sets this SidecarSet's answer in the pod's SidecarSetUpgradable condition, when it changes it. */
async function setUpgradable(p: Processor, sidecarSet: SidecarSet, pod: PodObject, upgradable: boolean, signal: AbortSignal): Promise<void> {
  const condition = upgradableCondition(sidecarSet, pod, upgradable, p.now());
  if (!condition) return;
  await p.client.patch(Pod, pod.metadata.name!, { status: { conditions: [condition] } }, { namespace: pod.metadata.namespace, subresource: 'status', patchType: 'strategic', signal });
}

/**
 * Registers the SidecarSet controller with the manager.
 *
 * @example
 * ```ts
 * import type { Manager } from '@operant/runtime';
 * import { setupSidecarSetController } from './controllers/sidecarset-controller.js';
 *
 * declare const mgr: Manager;
 * setupSidecarSetController(mgr, { revisionNamespace: 'kruise-system' });
 * ```
 */
export function setupSidecarSetController(mgr: Manager, options: SidecarSetControllerOptions = {}): void {
  const processor: Processor = {
    client: mgr.apiReader.withCache(mgr.cache, { readYourWrites: true }),
    recorder: mgr.eventRecorderFor('sidecarset-controller'),
    namespace: options.revisionNamespace ?? operatorNamespace(),
    now: options.now ?? (() => new Date()),
  };
  mgr
    .controller('sidecarset')
    // Status writes and metadata-only changes need no reconcile; spec changes do.
    .for(SidecarSet, { predicates: [generationChanged()] })
    .watches(Pod, sidecarSetsOfPod, { predicates: [{ update: (e) => podUpdateMatters(e.oldObject, e.object) }] })
    .maxConcurrentReconciles(3)
    .reconcile((req, ctx) => reconcileSidecarSet(processor, req, ctx));
}

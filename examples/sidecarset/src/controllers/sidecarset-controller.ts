/**
 * The SidecarSet controller (Kruise's pkg/controller/sidecarset), this
 * slice's part of it: it keeps each SidecarSet's status (matched, updated,
 * ready, updated-and-ready pods) true to the pods, writing it only when it
 * changes. A SidecarSet is reconciled when its spec changes and when one of
 * the pods it injected changes in a way the status counts (pod-events.ts).
 * In-place upgrades and ControllerRevisions come next.
 */
import { generationChanged, ignoreNotFound, Namespace, Pod, type Manager, type ReconcileContext, type ReconcileResult, type Request } from '@operant/runtime';
import { SidecarSet } from '../api/v1alpha1/zz_generated.kinds.js';
import { calculateStatus, statusChanged } from '../sidecarset/status/status.js';
import { podUpdateMatters, sidecarSetsOfPod } from '../sidecarset/status/pod-events.js';

// +kubebuilder:rbac:groups=apps.kruise.io,resources=sidecarsets,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=apps.kruise.io,resources=sidecarsets/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=apps.kruise.io,resources=sidecarsets/finalizers,verbs=update
// +kubebuilder:rbac:groups=apps,resources=controllerrevisions,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

/** Computes the SidecarSet's status from the pods in its scope, and writes it when it changed. */
export async function reconcileSidecarSet(req: Request, ctx: ReconcileContext): Promise<ReconcileResult | void> {
  const sidecarSet = await ctx.client.get(SidecarSet, req.name).catch(ignoreNotFound);
  // Deleted since it was queued: nothing to do.
  if (!sidecarSet) return;
  const namespace = sidecarSet.spec?.namespace;
  // Read-only use of the cached pods: no copies needed.
  const pods = await ctx.client.list(Pod, { ...(namespace ? { namespace } : {}), unsafeDisableDeepCopy: true, signal: ctx.signal });
  const namespaces = sidecarSet.spec?.namespaceSelector ? (await ctx.client.list(Namespace, { signal: ctx.signal })).items : [];
  const labels = new Map(namespaces.map((ns) => [ns.metadata.name ?? '', ns.metadata.labels ?? {}]));
  const status = calculateStatus(sidecarSet, pods.items, (name) => labels.get(name));
  if (!statusChanged(sidecarSet.status, status)) return;
  // A conflict (the SidecarSet changed since the cache saw it) is retried quietly with a fresh read.
  await ctx.client.updateStatus(SidecarSet, { ...sidecarSet, status }, { signal: ctx.signal });
  ctx.log.debug({ matchedPods: status.matchedPods, updatedPods: status.updatedPods, readyPods: status.readyPods }, 'status updated');
}

/** Registers the SidecarSet controller with the manager. */
export function setupSidecarSetController(mgr: Manager): void {
  mgr
    .controller('sidecarset')
    // Status writes and metadata-only changes need no reconcile; spec changes do.
    .for(SidecarSet, { predicates: [generationChanged()] })
    .watches(Pod, sidecarSetsOfPod, { predicates: [{ update: (e) => podUpdateMatters(e.oldObject, e.object) }] })
    .maxConcurrentReconciles(3)
    .reconcile(reconcileSidecarSet);
}

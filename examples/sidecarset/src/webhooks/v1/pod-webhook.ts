/**
 * The Pod mutating webhook (Kruise's /mutate-pod, sidecarset.go): a pod being
 * created gets the sidecars of every SidecarSet that selects it. Pods in
 * namespaces labelled `control-plane` are left alone (Kruise does it with the
 * webhook configuration's namespaceSelector, which the generated manifests
 * cannot carry; this check makes it hold however the webhook is installed),
 * as are subresource requests and pods that are already finished or deleting.
 * A SidecarSet whose injectionStrategy names a revision injects that revision
 * (revision/injection-revision.ts). The SidecarSets, the pod's Namespace and
 * the revisions come from the manager's cache.
 */
import { admissionHandler, allowed, ControllerRevision, decodeObject, errored, ignoreNotFound, Namespace, patched, Pod, type Manager } from '@operant/runtime';
import { SidecarSet } from '../../api/v1alpha1/zz_generated.kinds.js';
import { injectSidecarSets } from '../../sidecarset/injection/inject.js';
import { isActivePod, sidecarSetsForPod } from '../../sidecarset/injection/matching.js';
import { sidecarSetForNewPod } from '../../sidecarset/revision/injection-revision.js';
import { operatorNamespace } from '../../sidecarset/revision/namespace.js';

// +kubebuilder:webhook:path=/mutate-pod,mutating=true,failurePolicy=fail,sideEffects=None,groups="",resources=pods,verbs=create,versions=v1,name=mpod.kb.io,admissionReviewVersions=v1

/** Injects the matching SidecarSets into pods as they are created. */
export const podMutatingHandler = admissionHandler(async (req, ctx) => {
  if (req.operation !== 'CREATE' || req.subResource) return allowed();
  const pod = decodeObject(req, Pod);
  // A pod created in a namespace may not say so yet; the request does (and the patch must not add it).
  pod.metadata.namespace ||= req.namespace || 'default';
  const namespace = pod.metadata.namespace;
  if (!isActivePod(pod)) return allowed();
  const ns = await ctx.client.get(Namespace, namespace).catch(ignoreNotFound);
  if (ns?.metadata.labels?.['control-plane'] !== undefined) return allowed();
  const sidecarSets = (await ctx.client.list(SidecarSet)).items;
  const matched = sidecarSetsForPod(pod, sidecarSets, (name) => (name === namespace ? ns?.metadata.labels ?? {} : undefined));
  // Only SidecarSets that name a revision to inject need the revisions (and the informer they start).
  const revisions = matched.some((s) => s.spec?.injectionStrategy?.revision) ? (await ctx.client.list(ControllerRevision, { namespace: operatorNamespace() })).items : [];
  let injected;
  try {
    const versions = matched.map((s) => sidecarSetForNewPod(s, pod, revisions));
    injected = injectSidecarSets(pod, versions, new Date());
  } catch (err) {
    // As Kruise: a pod whose hash annotations cannot be read, or whose SidecarSet names a revision
    // that is not there, is refused (500), not injected half-way.
    return errored(500, err instanceof Error ? err : new Error(String(err)));
  }
  if (!injected) return allowed();
  ctx.log.debug({ sidecarSets: matched.map((s) => s.metadata?.name) }, 'injected sidecars');
  return patched(pod, injected);
});

export function setupPodDefaultingWebhook(mgr: Manager): void {
  mgr.webhookServer.register('/mutate-pod', podMutatingHandler);
}

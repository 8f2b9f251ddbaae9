/**
 * The selector of kube-scheduler's system default topology spread
 * constraints (kube's helper.DefaultSelector): a pod with no constraints of
 * its own is spread with the pods that its Services select (their selectors
 * merged) and that its controller selects, when the controller is a
 * ReplicationController, ReplicaSet or StatefulSet. Pods owned by nothing of
 * the kind and selected by no Service get no default spreading.
 */
import { labelSelectorFromObject, type LabelSelector, type LabelSelectorObject } from '@operant/apimachinery';
import type * as appsv1 from 'kubernetes-types/apps/v1.js';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import { selects } from '../endpoints/service-pods.js';
import type { PodObject } from '../objects.js';

/** What the default selector is made from: the informers' caches. */
export interface WorkloadListers {
  /** The Services of a namespace. */
  services(namespace: string): Iterable<corev1.Service>;
  replicationController(namespace: string, name: string): corev1.ReplicationController | undefined;
  replicaSet(namespace: string, name: string): appsv1.ReplicaSet | undefined;
  statefulSet(namespace: string, name: string): appsv1.StatefulSet | undefined;
}

type Workload = corev1.ReplicationController | appsv1.ReplicaSet | appsv1.StatefulSet;

/** The selector last made for a workload object, and the Services it was made with: every pod of a ReplicaSet asks again. */
const made = new WeakMap<Workload, { services: readonly corev1.Service[]; selector: LabelSelector | undefined }>();

/** kube's DefaultSelector; undefined when nothing selects the pod. */
export function defaultSpreadSelector(pod: PodObject, listers: WorkloadListers): LabelSelector | undefined {
  const namespace = pod.metadata.namespace ?? '';
  const labels = pod.metadata.labels ?? {};
  const services: corev1.Service[] = [];
  for (const svc of listers.services(namespace)) {
    // A Service without a selector selects nothing (not everything).
    const selector = svc.spec?.selector;
    if (selector && selects(selector, labels)) services.push(svc);
  }
  const owner = pod.metadata.ownerReferences?.find((r) => r.controller);
  let workload: Workload | undefined;
  if (owner?.apiVersion === 'v1' && owner.kind === 'ReplicationController') workload = listers.replicationController(namespace, owner.name);
  else if (owner?.apiVersion === 'apps/v1' && owner.kind === 'ReplicaSet') workload = listers.replicaSet(namespace, owner.name);
  else if (owner?.apiVersion === 'apps/v1' && owner.kind === 'StatefulSet') workload = listers.statefulSet(namespace, owner.name);
  if (!workload) return services.length > 0 ? selectorOf(services, undefined, false) : undefined;
  // The cached objects are replaced, never changed, when they change: the same objects make the same selector.
  const last = made.get(workload);
  if (last && last.services.length === services.length && last.services.every((s, i) => s === services[i])) return last.selector;
  const selector = selectorOf(services, workload, owner!.kind === 'ReplicationController');
  made.set(workload, { services, selector });
  return selector;
}

/**
 * The Services' selectors merged, and the workload's added: a
 * ReplicationController's label map, or a ReplicaSet's or StatefulSet's
 * label selector (the pod matches them all, so merging the maps loses nothing).
 */
function selectorOf(services: readonly corev1.Service[], workload: Workload | undefined, replicationController: boolean): LabelSelector | undefined {
  const matchLabels: Record<string, string> = {};
  for (const svc of services) Object.assign(matchLabels, svc.spec?.selector);
  const selector = workload?.spec?.selector;
  let matchExpressions: LabelSelectorObject['matchExpressions'] = [];
  if (replicationController) Object.assign(matchLabels, selector ?? {});
  else if (selector) {
    const labelSelector = selector as LabelSelectorObject;
    Object.assign(matchLabels, labelSelector.matchLabels ?? {});
    matchExpressions = labelSelector.matchExpressions ?? [];
  }
  if (Object.keys(matchLabels).length === 0 && matchExpressions.length === 0) return undefined;
  try {
    return labelSelectorFromObject({ matchLabels, matchExpressions });
  } catch {
    // A selector the API server should have refused: kube ignores it.
    return undefined;
  }
}

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
import type { PodObject } from '../objects.js';

/** What the default selector is made from: the informers' caches. */
export interface WorkloadListers {
  /** The Services of a namespace. */
  services(namespace: string): Iterable<corev1.Service>;
  replicationController(namespace: string, name: string): corev1.ReplicationController | undefined;
  replicaSet(namespace: string, name: string): appsv1.ReplicaSet | undefined;
  statefulSet(namespace: string, name: string): appsv1.StatefulSet | undefined;
}

/** Whether a map selector (a Service's, an RC's) selects the labels; every key must match. */
function mapSelects(selector: Readonly<Record<string, string>>, labels: Readonly<Record<string, string>>): boolean {
  for (const key in selector) if (Object.hasOwn(selector, key) && labels[key] !== selector[key]) return false;
  return true;
}

/** kube's DefaultSelector; undefined when nothing selects the pod. */
export function defaultSpreadSelector(pod: PodObject, listers: WorkloadListers): LabelSelector | undefined {
  const namespace = pod.metadata.namespace ?? '';
  const labels = pod.metadata.labels ?? {};
  const matchLabels: Record<string, string> = {};
  for (const svc of listers.services(namespace)) {
    // A Service without a selector selects nothing (not everything).
    const selector = svc.spec?.selector;
    if (selector && mapSelects(selector, labels)) Object.assign(matchLabels, selector);
  }
  let matchExpressions: LabelSelectorObject['matchExpressions'] = [];
  const owner = pod.metadata.ownerReferences?.find((r) => r.controller);
  if (owner) {
    if (owner.apiVersion === 'v1' && owner.kind === 'ReplicationController') {
      Object.assign(matchLabels, listers.replicationController(namespace, owner.name)?.spec?.selector ?? {});
    } else if (owner.apiVersion === 'apps/v1' && (owner.kind === 'ReplicaSet' || owner.kind === 'StatefulSet')) {
      const workload = owner.kind === 'ReplicaSet' ? listers.replicaSet(namespace, owner.name) : listers.statefulSet(namespace, owner.name);
      const selector = workload?.spec?.selector as LabelSelectorObject | undefined;
      // The pod matches both, so merging the label maps loses nothing.
      if (selector) {
        Object.assign(matchLabels, selector.matchLabels ?? {});
        matchExpressions = selector.matchExpressions ?? [];
      }
    }
  }
  if (Object.keys(matchLabels).length === 0 && matchExpressions.length === 0) return undefined;
  try {
    return labelSelectorFromObject({ matchLabels, matchExpressions });
  } catch {
    // A selector the API server should have refused: kube ignores it.
    return undefined;
  }
}

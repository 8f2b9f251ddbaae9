/**
 * Pods by the uid of their controller (kube's controllerUIDIndex on the pod
 * informer): a workload controller reads its own pods from the index, not
 * by filtering every pod of the namespace at each sync, which made a large
 * ReplicaSet's syncs cost as much as the namespace is big.
 *
 * The manager's client reads live when the cache has not shown its own
 * writes in time (read-your-writes); the server knows no such field, so
 * that read asks for the owner's selector instead and keeps the pods the
 * owner controls.
 */
import { labelSelectorFromObject, type LabelSelectorObject } from '@operant/apimachinery';
import { getControllerOf, isBadRequest, isControlledBy, Pod, type Client, type KubeObject, type Manager } from '@operant/runtime';
import { fieldIndexName } from '@operant/runtime/cache';
import type { PodObject } from '../objects.js';

const controllerUidField = 'metadata.ownerReferences.controller.uid';

/** Adds the index to the manager's cache, once however many controllers ask. */
export function indexPodsByController(mgr: Manager): void {
  if (mgr.cache.informerOf(Pod, false).store.hasIndex(fieldIndexName(controllerUidField))) return;
  mgr.cache.indexField(Pod, controllerUidField, (pod) => {
    const uid = getControllerOf(pod)?.uid;
    return uid ? [uid] : [];
  });
}

/**
 * The pods `owner` controls, from the index {@link indexPodsByController}
 * added: the cache's own objects, read only, in no particular order. `selector` is the owner's
 * (a LabelSelector, or a ReplicationController's plain map), for a live read.
 */
export async function podsControlledBy(client: Client, owner: KubeObject, selector: LabelSelectorObject | Readonly<Record<string, string>> | undefined): Promise<PodObject[]> {
  const uid = owner.metadata.uid;
  if (!uid) return [];
  const namespace = owner.metadata.namespace;
  try {
    // In no particular order: sorting a large ReplicaSet's pods by name on each sync cost more than the rest of it.
    const list = await client.list(Pod, { namespace, matchingFields: { [controllerUidField]: uid }, unsafeDisableDeepCopy: true, unordered: true });
    return list.items as PodObject[];
  } catch (err) {
    if (!(isBadRequest(err) && /field label not supported/.test((err as Error).message))) throw err;
    const live = await client.list(Pod, { namespace, labelSelector: liveSelector(selector), live: true });
    return (live.items as PodObject[]).filter((p) => isControlledBy(p, owner));
  }
}

/** The selector as a query: a LabelSelector's requirements, or the map itself; none when unreadable (the owner reference decides). */
function liveSelector(selector: LabelSelectorObject | Readonly<Record<string, string>> | undefined): string | Readonly<Record<string, string>> | undefined {
  if (!selector) return undefined;
  if (!('matchLabels' in selector) && !('matchExpressions' in selector)) return selector as Readonly<Record<string, string>>;
  try {
    return labelSelectorFromObject(selector as LabelSelectorObject).toString() || undefined;
  } catch {
    return undefined;
  }
}

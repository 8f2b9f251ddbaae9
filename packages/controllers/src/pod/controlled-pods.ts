/**
 * Pods by the uid of their controller (kube's controllerUIDIndex on the pod
 * informer): a workload controller reads its own pods from the index, not
 * by filtering every pod of the namespace at each sync, which made a large
 * ReplicaSet's syncs cost as much as the namespace is big.
 */
import { getControllerOf, Pod, type Client, type KubeObject, type Manager } from '@operant/runtime';
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

/** The cached pods `owner` controls, read only (the cache's own objects), from the index {@link indexPodsByController} added. */
export async function podsControlledBy(client: Client, owner: KubeObject): Promise<PodObject[]> {
  const uid = owner.metadata.uid;
  if (!uid) return [];
  const list = await client.list(Pod, { namespace: owner.metadata.namespace, matchingFields: { [controllerUidField]: uid }, unsafeDisableDeepCopy: true });
  return list.items as PodObject[];
}

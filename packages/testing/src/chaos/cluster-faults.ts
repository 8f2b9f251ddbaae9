/**
 * Cluster faults: what a fault of `clusterFaultKinds` does to the cluster
 * when its window opens, through the proxy's upstream credentials, as a
 * Chaos Monkey would. `delete-pod` deletes one pod in the fault's namespaces
 * (all, when it has none) that matches its label selector and is not already
 * terminating, drawn with the fault's own generator from the pods sorted by
 * namespace and name, so that the same seed on the same state deletes the
 * same pod. The deletion is a plain DELETE with the pod's grace period: the
 * pod terminates as it would if someone ran `kubectl delete pod`.
 */
import type { KubeObject } from '@operant/apimachinery';
import { isNotFound, Pod, type Client } from '@operant/runtime';
import type { Fault } from './faults.js';

/** What a cluster fault did: `deleted pod team-a/web-7d4f9-x2x8q`, or why it did nothing. */
export interface ClusterFaultOutcome {
  /** The object acted on (`delete pods team-a/web-7d4f9-x2x8q`), when there was one. */
  request?: string;
  detail: string;
}

/** Chooses one of the candidates (the fault's generator), counting it as the fault's hit. */
export type Strike = <T>(candidates: readonly T[]) => T | undefined;

/** Does what the cluster fault `fault` does; `strike` picks its victim. Rejects when the pods cannot be listed (nothing was struck). */
export async function applyClusterFault(client: Client, fault: Extract<Fault, { kind: 'delete-pod' }>, strike: Strike): Promise<ClusterFaultOutcome> {
  const namespaces = fault.namespaces ?? [undefined];
  const pods: KubeObject[] = [];
  for (const namespace of namespaces) {
    const { items } = await client.list(Pod, { ...(namespace !== undefined ? { namespace } : {}), ...(fault.labelSelector ? { labelSelector: fault.labelSelector } : {}) });
    pods.push(...items.filter((p) => !p.metadata.deletionTimestamp));
  }
  const key = (p: KubeObject): string => `${p.metadata.namespace}/${p.metadata.name}`;
  pods.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  const victim = strike(pods);
  if (!victim) return { detail: 'no pod to delete' };
  const request = `delete pods ${key(victim)}`;
  try {
    await client.delete(Pod, victim.metadata.name!, { namespace: victim.metadata.namespace });
    return { request, detail: 'deleted the pod' };
  } catch (err) {
    return { request, detail: isNotFound(err) ? 'the pod was gone already' : `the delete failed: ${err instanceof Error ? err.message : String(err)}` };
  }
}

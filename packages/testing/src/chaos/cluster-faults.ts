/**
 * Cluster faults: what a fault of `clusterFaultKinds` does to the cluster
 * when its window opens, through the proxy's upstream credentials, as a
 * Chaos Monkey would. The victim is drawn with the fault's own generator
 * from the candidates sorted by name, so that the same seed on the same
 * state strikes the same object.
 *
 * - `delete-pod` deletes one pod in the fault's namespaces (all, when it has
 *   none) that matches its label selector and is not already terminating:
 *   a plain DELETE with the pod's grace period, as `kubectl delete pod`.
 * - `crash-container` sets the simulated kubelet's crash-loop knob on one
 *   such pod: its containers exit and restart with kube's back-off
 *   (CrashLoopBackOff) until the window closes and the knob is removed.
 * - `node-not-ready` sets the heartbeats-paused knob on one simulated node
 *   (the nodes of its label selector, default `operant.dev/simulated=true`):
 *   its kubelet stops renewing its Lease and reporting, so the node goes
 *   NotReady once the grace period passes, until the window closes.
 * - `image-pull-failure` sets the image-pull-failure knob on one such node:
 *   pulls there fail (ErrImagePull, ImagePullBackOff) until the window closes.
 *
 * The knobs are annotations (see @operant/controllers' README); the faults
 * that last their window return an `undo` that removes theirs.
 */
import type { KubeObject } from '@operant/apimachinery';
import { crashLoopAnnotation, heartbeatsPausedAnnotation, imagePullFailureAnnotation } from '@operant/controllers/knobs';
import { isNotFound, Node, Pod, type Client } from '@operant/runtime';
import type { Fault } from './faults.js';

/** What a cluster fault did: `deleted pod team-a/web-7d4f9-x2x8q`, or why it did nothing. */
export interface ClusterFaultOutcome {
  /** The object acted on (`delete pods team-a/web-7d4f9-x2x8q`), when there was one. */
  request?: string;
  detail: string;
  /** Takes the fault back when its window closes (the knob removed); none for a deletion. */
  undo?: () => Promise<void>;
}

/** Chooses one of the candidates (the fault's generator), counting it as the fault's hit. */
export type Strike = <T>(candidates: readonly T[]) => T | undefined;

type ClusterFault = Extract<Fault, { kind: 'delete-pod' | 'crash-container' | 'node-not-ready' | 'image-pull-failure' }>;

/** The simulated nodes' label. */
const simulatedNodes = 'operant.dev/simulated=true';

/** Does what the cluster fault `fault` does; `strike` picks its victim. Rejects when the candidates cannot be listed (nothing was struck). */
export async function applyClusterFault(client: Client, fault: ClusterFault, strike: Strike): Promise<ClusterFaultOutcome> {
  switch (fault.kind) {
    case 'delete-pod':
    case 'crash-container':
      return podFault(client, fault, strike);
    case 'node-not-ready':
    case 'image-pull-failure':
      return nodeFault(client, fault, strike);
  }
}

const byName = (key: (o: KubeObject) => string) => (a: KubeObject, b: KubeObject): number => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
const reason = (err: unknown): string => (err instanceof Error ? err.message : String(err));

async function podFault(client: Client, fault: ClusterFault, strike: Strike): Promise<ClusterFaultOutcome> {
  const namespaces = fault.namespaces ?? [undefined];
  const pods: KubeObject[] = [];
  for (const namespace of namespaces) {
    const { items } = await client.list(Pod, { ...(namespace !== undefined ? { namespace } : {}), ...(fault.labelSelector ? { labelSelector: fault.labelSelector } : {}) });
    pods.push(...items.filter((p) => !p.metadata.deletionTimestamp && (fault.kind === 'delete-pod' || (p.spec?.nodeName && p.status?.phase === 'Running'))));
  }
  const key = (p: KubeObject): string => `${p.metadata.namespace}/${p.metadata.name}`;
  pods.sort(byName(key));
  const victim = strike(pods);
  if (!victim) return { detail: fault.kind === 'delete-pod' ? 'no pod to delete' : 'no running pod to crash' };
  const name = victim.metadata.name!;
  const namespace = victim.metadata.namespace;
  if (fault.kind === 'delete-pod') {
    const request = `delete pods ${key(victim)}`;
    try {
      await client.delete(Pod, name, { namespace });
      return { request, detail: 'deleted the pod' };
    } catch (err) {
      return { request, detail: isNotFound(err) ? 'the pod was gone already' : `the delete failed: ${reason(err)}` };
    }
  }
  return annotate(client, Pod, name, namespace, crashLoopAnnotation, `patch pods ${key(victim)}`, "crashed the pod's containers");
}

async function nodeFault(client: Client, fault: ClusterFault, strike: Strike): Promise<ClusterFaultOutcome> {
  const { items } = await client.list(Node, { labelSelector: fault.labelSelector ?? simulatedNodes });
  const knob = fault.kind === 'node-not-ready' ? heartbeatsPausedAnnotation : imagePullFailureAnnotation;
  // A node already struck this way is left to the fault that struck it.
  const nodes = items.filter((n) => n.metadata.annotations?.[knob] !== 'true').sort(byName((n) => n.metadata.name!));
  const victim = strike(nodes);
  if (!victim) return { detail: 'no node to strike' };
  const what = fault.kind === 'node-not-ready' ? "stopped the node's kubelet" : 'image pulls on the node fail';
  return annotate(client, Node, victim.metadata.name!, undefined, knob, `patch nodes ${victim.metadata.name}`, what);
}

/** Sets a knob to `"true"` on the object; the undo removes it again. */
async function annotate(client: Client, kind: typeof Pod | typeof Node, name: string, namespace: string | undefined, knob: string, request: string, done: string): Promise<ClusterFaultOutcome> {
  const patch = (value: string | null) => client.patch(kind as typeof Pod, name, { metadata: { annotations: { [knob]: value } } }, namespace !== undefined ? { namespace } : {});
  try {
    await patch('true');
  } catch (err) {
    return { request, detail: isNotFound(err) ? 'it was gone already' : `the patch failed: ${reason(err)}` };
  }
  return {
    request,
    detail: done,
    undo: async () => {
      await patch(null).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    },
  };
}

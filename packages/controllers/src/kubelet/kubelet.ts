/**
 * The pod half of the simulated kubelets: one controller, built with the
 * runtime's builder, for the pods bound to any of this process's simulated
 * nodes (as kwok runs many nodes in one process). Each sync hands the pod to
 * {@link syncPod} and carries out its answer: the status written (with the
 * pod's resourceVersion, so a concurrent write makes it retry), the events
 * recorded once that write succeeded, the pod deleted with grace period 0
 * once its containers stopped, a requeue for what is due later.
 */
import { jsonEqual } from '@operant/apimachinery';
import { ignoreNotFound, isNotFound, Node, objectPredicate, objectReference, Pod, type Clock, type EventRecorder, type Manager, type ReconcileResult, type Request } from '@operant/runtime';
import type { PodObject } from '../objects.js';
import type { SimulatedNode } from './node.js';
import { containerId } from './images.js';
import { syncPod, type KubeletEvent, type NodeTiming } from './pod-sync.js';
import { OwnStatusWrites } from './own-writes.js';

/** How often a pod on a paused node is looked at again (cluster time): the kubelet's sync period. */
const pausedRecheckMs = 10_000;

interface KubeletDeps {
  nodes: ReadonlyMap<string, SimulatedNode>;
  clock: Clock;
  timing: NodeTiming;
}

export function addKubelet(mgr: Manager, deps: KubeletDeps, clock: Clock | undefined, workers: number): void {
  const recorder = mgr.eventRecorderFor('kubelet');
  /** Where each pod we run is (by key), to clean up after it once it is gone. */
  const placed = new Map<string, { node: SimulatedNode; uid: string }>();
  const ownWrites = new OwnStatusWrites();
  // After a restart the pods' statuses are the record of the addresses handed out (kube's host-local
  // IPAM keeps its record on disk): before any is handed out or kept, every pod of these nodes takes its own back.
  let adopted: Promise<void> | undefined;
  const adoptAddresses = (): Promise<void> =>
    (adopted ??= adoptPodAddresses(mgr, deps.nodes, placed).catch((err: unknown) => {
      adopted = undefined;
      throw err;
    }));
  mgr
    .controller('kubelet', clock ? { clock } : {})
    .for(Pod, {
      predicates: [
        objectPredicate<PodObject>((p) => deps.nodes.has(p.spec?.nodeName ?? '')),
        // Our own status write coming back is no news (kube's pod config hands a status-only change
        // on as a reconcile, not an update): what is due later was requeued when it was written.
        { update: (e) => !ownWrites.isOwn(e.oldObject, e.object) },
      ],
    })
    .maxConcurrentReconciles(workers)
    .reconcile((req) => syncPodRequest(mgr, recorder, deps, placed, ownWrites, adoptAddresses, req));
}

/**
 * Gives each pod of `nodes` in the cache the address its status records, and notes where it runs.
 * Pods are taken in the order they started, so that of two recording one address (a data dir
 * from before addresses were checked on restart), the one that had it first keeps it.
 */
async function adoptPodAddresses(mgr: Manager, nodes: ReadonlyMap<string, SimulatedNode>, placed: Map<string, { node: SimulatedNode; uid: string }>): Promise<void> {
  const pods = (await mgr.client.list(Pod, { unsafeDisableDeepCopy: true })).items as PodObject[];
  const startedAt = (p: PodObject): string => p.status?.startTime ?? p.metadata.creationTimestamp ?? '';
  const byStart = pods.filter((p) => p.status?.podIP).sort((a, b) => (startedAt(a) < startedAt(b) ? -1 : startedAt(a) > startedAt(b) ? 1 : 0));
  for (const pod of byStart) {
    const node = nodes.get(pod.spec?.nodeName ?? '');
    if (!node?.ips || pod.spec?.hostNetwork || !pod.status?.podIP) continue;
    const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
    node.ips.adopt(key, pod.status.podIP);
    // Placed, so that its address is given back if it is gone before its first sync.
    if (!placed.has(key)) placed.set(key, { node, uid: pod.metadata.uid! });
  }
}

async function syncPodRequest(
  mgr: Manager,
  recorder: EventRecorder,
  deps: KubeletDeps,
  placed: Map<string, { node: SimulatedNode; uid: string }>,
  ownWrites: OwnStatusWrites,
  adoptAddresses: () => Promise<void>,
  req: Request,
): Promise<ReconcileResult | void> {
  const key = `${req.namespace}/${req.name}`;
  ownWrites.forget(key);
  // The cache's own object, read only: the status is built afresh and written as a new object.
  const pod = (await mgr.client.get(Pod, req.name, { namespace: req.namespace, unsafeDisableDeepCopy: true }).catch(ignoreNotFound)) as PodObject | undefined;
  const before = placed.get(key);
  const node = pod && deps.nodes.get(pod.spec?.nodeName ?? '');
  if (before && (!node || before.uid !== pod?.metadata.uid || before.node !== node)) {
    before.node.forget(key, before.uid);
    placed.delete(key);
  }
  if (!pod || !node) return;
  // The node's knobs as the cache has them now (the heartbeat may not have looked yet).
  const nodeObject = await mgr.client.get(Node, node.name, { unsafeDisableDeepCopy: true }).catch(ignoreNotFound);
  if (nodeObject) node.annotations = nodeObject.metadata.annotations ?? {};
  // A stopped kubelet (the heartbeats-paused knob) writes nothing; it looks again once it may run.
  if (node.paused) return { requeueAfter: pausedRecheckMs };
  const uid = pod.metadata.uid!;
  placed.set(key, { node, uid });
  const now = deps.clock.now();
  if (pod.metadata.deletionTimestamp && !node.stopping.has(uid)) {
    node.stopping.set(uid, now);
    for (const c of pod.status?.containerStatuses ?? []) {
      if (c.state?.running) record(recorder, pod, { type: 'Normal', reason: 'Killing', message: `Stopping container ${c.name}`, container: { name: c.name, init: false } });
    }
  }
  // A host-network pod has the node's address; others one from the node's pod CIDR, and none
  // without a CIDR: the sandbox's network cannot be set up, so the pod waits (as kube's would).
  // Every recorded address is taken back before any is handed out or kept, oldest pod first.
  if (!pod.spec?.hostNetwork && node.ips) await adoptAddresses();
  const podIP = pod.spec?.hostNetwork ? node.hostIP : node.ips?.ensure(key, pod.status?.podIP);
  if (podIP === undefined && !pod.metadata.deletionTimestamp) {
    if (!node.sandboxFailures.has(uid)) {
      node.sandboxFailures.add(uid);
      const sandbox = containerId(uid, 'sandbox', 0).replace(/^containerd:\/\//, '');
      record(recorder, pod, { type: 'Warning', reason: 'FailedCreatePodSandBox', message: `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "${sandbox}": cni plugin not initialized` });
    }
    return;
  }
  const result = syncPod({
    pod,
    hostIP: node.hostIP,
    podIP,
    now,
    timing: deps.timing,
    restarts: node.restartsOf(uid),
    deletionSeenAt: node.stopping.get(uid),
    nodeAnnotations: node.annotations,
    pulls: node.pullsOf(uid),
    backOffs: node.backOffsOf(uid),
  });
  if (!jsonEqual(result.status, pod.status ?? {})) {
    const own = !result.stepsOn && !result.deletePod && pod.metadata.resourceVersion ? ownWrites.sending(key, pod.metadata.resourceVersion, result.status) : undefined;
    try {
      const written = await mgr.client.updateStatus(Pod, { ...pod, status: result.status });
      if (own) ownWrites.answered(key, own, written.metadata.resourceVersion);
    } catch (err) {
      ownWrites.forget(key);
      throw err;
    }
  }
  for (const event of result.events) record(recorder, pod, event);
  if (result.deletePod) {
    try {
      await mgr.client.delete(Pod, req.name, { namespace: req.namespace, gracePeriodSeconds: 0, preconditions: { uid } });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    node.forget(key, uid);
    placed.delete(key);
    return;
  }
  if (result.wakeAt !== undefined) return { requeueAfter: Math.max(1, result.wakeAt - now) };
}

/** An event about the pod, pointing at the container it concerns (`spec.containers{nginx}`), as the kubelet's are. */
function record(recorder: EventRecorder, pod: PodObject, event: KubeletEvent): void {
  const regarding = objectReference(pod, Pod);
  if (event.container) regarding.fieldPath = `spec.${event.container.init ? 'initContainers' : 'containers'}{${event.container.name}}`;
  recorder.eventf(regarding, null, event.type, event.reason, event.reason, event.message);
}

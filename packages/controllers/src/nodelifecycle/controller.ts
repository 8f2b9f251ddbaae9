/**
 * The node lifecycle controller (kube's node_lifecycle_controller.go) and
 * the taint eviction controller, for the simulated cluster:
 *
 * - a node whose kubelet stopped reporting (its Lease in kube-node-lease and
 *   its Ready heartbeat both older than the grace period, 40 s) gets every
 *   condition `Unknown` with reason `NodeStatusUnknown` and message
 *   `Kubelet stopped posting node status.`, the `node.kubernetes.io/unreachable`
 *   taints (NoSchedule, and NoExecute with its timeAdded), a NodeNotReady
 *   event, and its pods' `Ready` condition set False;
 * - a node whose kubelet reports it not Ready (no pod CIDR, say) gets the
 *   `node.kubernetes.io/not-ready` taints, and a pressure condition its
 *   NoSchedule taint, as kube's tainting passes give them: the scheduler
 *   keeps pods off such nodes by their taints alone, as kube-scheduler does;
 * - a cordoned node (`spec.unschedulable`) gets the
 *   `node.kubernetes.io/unschedulable` NoSchedule taint, which goes when it is
 *   uncordoned (doNoScheduleTaintingPass);
 * - the NoExecute taints come at kube's rate, one node at a time per zone,
 *   and none while no node of any zone is Ready (./noexecute-tainting.ts);
 * - once the kubelet reports Ready again, the taints go;
 * - a pod's `Ready` condition is set False (with a NodeNotReady event) when
 *   this controller finds its node's kubelet silent and turns its Ready from
 *   True to Unknown (monitorNodeHealth), and when a pod is bound to (or found
 *   on) a node whose Ready is not True, False as well as Unknown (processPod):
 *   kube's two calls of MarkPodsNotReady;
 * - pods on a node with a NoExecute taint are deleted (a TaintManagerEviction
 *   event, the DisruptionTarget condition) when they do not tolerate it, or
 *   once their toleration's `tolerationSeconds` passed since the taint was
 *   added (300 s for the defaults that DefaultTolerationSeconds admission
 *   gives every pod). Their controllers replace them on other nodes; the
 *   pods themselves stay Terminating until their kubelet comes back, as in
 *   kube.
 *
 * All times are cluster time, so an accelerated clock scales the 40 s and
 * the 300 s alike.
 */
import { deepCopy } from '@operant/apimachinery';
import { ignoreNotFound, isConflict, isNotFound, Lease, Node, objectReference, Pod, type Clock, type EventRecorder, type Manager, type ReconcileResult, type Request } from '@operant/runtime';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import { rfc3339, timeOf, wallClock } from '../clock.js';
import { tolerates } from '../scheduler/filters.js';
import type { LeaseObject, NodeObject, PodObject } from '../objects.js';
import { addPeriodicPass } from '../periodic.js';
import { isControllerNoExecute, noExecuteKeys, notReadyTaintKey, NoExecuteTainting, readyStatusOf, unreachableTaintKey } from './noexecute-tainting.js';
import { nodeMonitorPeriodMs } from './zones.js';

/** The Leases of the nodes live here. */
const nodeLeaseNamespace = 'kube-node-lease';
/** kube-controller-manager's --node-monitor-grace-period. */
export const nodeMonitorGracePeriodMs = 40_000;
export { unreachableTaintKey };
/** kube's nodeConditionToTaintKeyStatusMap: the NoSchedule taint a node condition's status calls for. */
const conditionTaintKeys: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  Ready: { False: notReadyTaintKey, Unknown: unreachableTaintKey },
  MemoryPressure: { True: 'node.kubernetes.io/memory-pressure' },
  DiskPressure: { True: 'node.kubernetes.io/disk-pressure' },
  NetworkUnavailable: { True: 'node.kubernetes.io/network-unavailable' },
  PIDPressure: { True: 'node.kubernetes.io/pid-pressure' },
};
const conditionTaintKeySet = new Set(Object.values(conditionTaintKeys).flatMap((byStatus) => Object.values(byStatus)));
/** The NoSchedule taint of a cordoned node (spec.unschedulable). */
const unschedulableTaintKey = 'node.kubernetes.io/unschedulable';
const unknownReason = 'NodeStatusUnknown';
const unknownMessage = 'Kubelet stopped posting node status.';
/** The conditions a kubelet posts, which the controller marks Unknown. */
const kubeletConditionTypes = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'];
/** When a pod's Ready could not be marked (it changed meanwhile), how soon to try again (cluster time). */
const retryMarkMs = 1000;

/** Options of {@link addNodeLifecycleController}. */
export interface NodeLifecycleOptions {
  /** Cluster time; default the wall clock. */
  clock?: Clock;
}

/**
 * Adds the node lifecycle and taint eviction controllers to a manager.
 *
 * @example
 * ```ts
 * import { addNodeLifecycleController } from '@operant/controllers';
 * import { handleSignals, Manager } from '@operant/runtime';
 *
 * const mgr = await Manager.create({ client: { readYourWrites: true } });
 * addNodeLifecycleController(mgr);
 * await mgr.start(handleSignals());
 * ```
 */
export function addNodeLifecycleController(mgr: Manager, options: NodeLifecycleOptions = {}): void {
  const clock = options.clock;
  const now = (): number => (clock ?? Date).now();
  const recorder = mgr.eventRecorderFor('node-controller');
  const evictions = mgr.eventRecorderFor('taint-eviction-controller');
  /** The last heartbeat seen from each node (cluster time), when this process saw it change (wall time), and its Ready status as last seen. */
  const heard = new Map<string, Heard>();
  /** Nodes whose pods could not all be marked not Ready when the node went Unknown (kube's nodesToRetry). */
  const toRetry = new Set<string>();
  // Leaving full disruption, every node's grace period starts again (kube resets their probe timestamps).
  const tainting = new NoExecuteTainting(mgr, clock ?? wallClock, (at) => {
    for (const h of heard.values()) h.graceFrom = at;
  });
  addPeriodicPass(mgr, { clock: clock ?? wallClock, periodMs: nodeMonitorPeriodMs, immediately: true, failure: 'node lifecycle: zone states' }, () => tainting.handleDisruption());
  mgr.add({ needLeaderElection: true, start: (signal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => (tainting.stop(), resolve()), { once: true })) });
  mgr
    .controller('node-lifecycle', clock ? { clock } : {})
    .for(Node)
    // kube's nodeUpdateWorkerSize: nodes are processed by 8 workers, so a new cluster's nodes lose their
    // not-ready taints together, not one round trip after another.
    .maxConcurrentReconciles(8)
    .watches(Lease, (l) => (l.metadata.namespace === nodeLeaseNamespace ? [{ namespace: '', name: l.metadata.name! }] : []))
    .reconcile((req) => syncNode(mgr, recorder, evictions, now, heard, toRetry, tainting, req));
  // kube's podUpdated and processPod: a pod that lands on a node (created there, bound, or seen at start)
  // whose Ready, as this controller last saw it, is not True. Only those are queued: the rest have nothing to do.
  const onNotReadyNode = (pod: PodObject): boolean => {
    const node = pod.spec?.nodeName;
    const ready = node ? heard.get(node)?.ready : undefined;
    return ready !== undefined && ready !== 'True';
  };
  mgr
    .controller('node-lifecycle-pods', clock ? { clock } : {})
    .for(Pod, {
      predicates: [
        {
          create: (e) => onNotReadyNode(e.object as PodObject),
          update: (e) => e.object.spec?.nodeName !== e.oldObject.spec?.nodeName && onNotReadyNode(e.object as PodObject),
          delete: () => false,
          generic: () => false,
        },
      ],
    })
    .reconcile((req) => processPod(mgr, recorder, now, heard, req));
}

interface Heard {
  probedAt: number;
  wallAt: number;
  /** The node's Ready status after this controller's last pass over it (kube's nodeHealth.status); undefined when it has none. */
  ready?: string;
  /** When the grace period started again for every node (cluster time), on leaving full disruption. */
  graceFrom?: number;
}

/**
 * The least wall time a node must have been silent, whatever the cluster
 * clock says: on an accelerated clock 40 s may be a few hundred
 * milliseconds, which a busy machine can take to run a heartbeat. A starved
 * process is not a dead kubelet.
 */
const minSilenceWallMs = 2000;

async function syncNode(
  mgr: Manager,
  recorder: EventRecorder,
  evictions: EventRecorder,
  now: () => number,
  heard: Map<string, Heard>,
  toRetry: Set<string>,
  tainting: NoExecuteTainting,
  req: Request,
): Promise<ReconcileResult | void> {
  let node = (await mgr.client.get(Node, req.name).catch(ignoreNotFound)) as NodeObject | undefined;
  if (!node) {
    heard.delete(req.name);
    toRetry.delete(req.name);
    return;
  }
  const t = now();
  const lease = (await mgr.client.get(Lease, req.name, { namespace: nodeLeaseNamespace }).catch(ignoreNotFound)) as LeaseObject | undefined;
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  // A node that never posted a heartbeat counts from when it was first seen.
  const posted = Math.max(timeOf(lease?.spec?.renewTime) ?? 0, timeOf(ready?.lastHeartbeatTime) ?? 0);
  let last = heard.get(req.name);
  // kube's monitorNodeHealth tells of each node it meets for the first time (each start of the controller meets them all).
  if (!last) recorder.event(objectReference(node, Node), 'Normal', 'RegisteredNode', `Node ${req.name} event: Registered Node ${req.name} in Controller`);
  if (!last || (posted && posted !== last.probedAt)) heard.set(req.name, (last = { probedAt: posted || t, wallAt: performance.now() }));
  const deadline = Math.max(last.probedAt, last.graceFrom ?? -Infinity) + nodeMonitorGracePeriodMs;
  const longEnough = performance.now() - last.wallAt >= minSilenceWallMs;
  const silent = t >= deadline && longEnough;
  // Past the cluster deadline but not yet silent long enough: look again a quarter of the grace period on.
  const recheckAt = silent ? Infinity : t >= deadline ? t + nodeMonitorGracePeriodMs / 4 : deadline;
  // kube's monitorNodeHealth: the Ready status observed, and the current one once a silent kubelet's conditions are Unknown.
  const observed = ready?.status ?? 'Unknown';
  if (silent && ready?.status !== 'Unknown') node = await markUnknown(mgr, node, t);
  const current = node.status?.conditions?.find((c) => c.type === 'Ready')?.status;
  last.ready = current;
  let marked = true;
  // The pods go not Ready when this pass took the node from Ready to not Ready (reported once, with the event),
  // or again while an earlier marking failed and the node is still not Ready.
  const wentNotReady = current !== undefined && current !== 'True' && observed === 'True';
  if (wentNotReady) recorder.event(objectReference(node, Node), 'Normal', 'NodeNotReady', `Node ${req.name} status is now: NodeNotReady`);
  if (wentNotReady || (toRetry.has(req.name) && observed !== 'True')) {
    marked = await markPodsNotReady(mgr, recorder, await podsOnNode(mgr, req.name), req.name, t);
    if (marked) toRetry.delete(req.name);
    else toRetry.add(req.name);
  } else {
    toRetry.delete(req.name);
  }
  node = await reconcileTaints(mgr, node, t, tainting);
  const evictAt = await evictPods(mgr, evictions, node, t);
  const wakes = [evictAt ?? Infinity, recheckAt, marked ? Infinity : t + retryMarkMs];
  const next = Math.min(...wakes);
  if (next !== Infinity) return { requeueAfter: Math.max(1, next - t) };
}

/** Every kubelet condition Unknown, as kube's tryUpdateNodeHealth writes them. */
async function markUnknown(mgr: Manager, node: NodeObject, t: number): Promise<NodeObject> {
  const copy = deepCopy(node);
  const stamp = rfc3339(t);
  const conditions = [...(copy.status?.conditions ?? [])];
  for (const type of kubeletConditionTypes) {
    const i = conditions.findIndex((c) => c.type === type);
    const old = i >= 0 ? conditions[i] : undefined;
    const next: corev1.NodeCondition = {
      type,
      status: 'Unknown',
      reason: unknownReason,
      message: unknownMessage,
      // A condition the kubelet never posted gets the time it was found missing.
      lastHeartbeatTime: old?.lastHeartbeatTime ?? stamp,
      lastTransitionTime: stamp,
    };
    if (i >= 0) conditions[i] = next;
    else conditions.push(next);
  }
  return (await mgr.client.updateStatus(Node, { ...copy, status: { ...copy.status, conditions } })) as NodeObject;
}

/** The pods bound to a node (kube's getPodsAssignedToNode). */
async function podsOnNode(mgr: Manager, nodeName: string): Promise<PodObject[]> {
  const { items } = await mgr.client.list(Pod, { unsafeDisableDeepCopy: true });
  return (items as PodObject[]).filter((p) => p.spec?.nodeName === nodeName);
}

/**
 * kube's MarkPodsNotReady: the Ready condition of each of these pods on the
 * node goes False (only its status and transition time change), and the pod
 * gets a Warning NodeNotReady event. A pod with no Ready condition, or one
 * already False, is left alone. Whether every one was marked (a write that
 * lost a race is tried again).
 */
async function markPodsNotReady(mgr: Manager, recorder: EventRecorder, pods: readonly PodObject[], nodeName: string, t: number): Promise<boolean> {
  let all = true;
  for (const pod of pods) {
    if (pod.spec?.nodeName !== nodeName) continue;
    const conditions = [...(pod.status?.conditions ?? [])];
    const i = conditions.findIndex((c) => c.type === 'Ready');
    if (i < 0 || conditions[i]!.status === 'False') continue;
    conditions[i] = { ...conditions[i]!, status: 'False', lastTransitionTime: rfc3339(t) };
    try {
      await mgr.client.updateStatus(Pod, { ...pod, status: { ...pod.status, conditions } });
    } catch (err) {
      if (isNotFound(err)) continue;
      if (!isConflict(err)) throw err;
      all = false;
    }
    recorder.event(objectReference(pod, Pod), 'Warning', 'NodeNotReady', 'Node is not ready');
  }
  return all;
}

/**
 * kube's processPod: a pod that landed on a node whose Ready, as the node
 * pass last saw it, is not True is marked not Ready; a pod on a node not yet
 * seen is left to the node's pass.
 */
async function processPod(mgr: Manager, recorder: EventRecorder, now: () => number, heard: Map<string, Heard>, req: Request): Promise<ReconcileResult | void> {
  const pod = (await mgr.client.get(Pod, req.name, { namespace: req.namespace }).catch(ignoreNotFound)) as PodObject | undefined;
  const nodeName = pod?.spec?.nodeName;
  if (!pod || !nodeName) return;
  const ready = heard.get(nodeName)?.ready;
  if (ready === undefined || ready === 'True') return;
  if (!(await markPodsNotReady(mgr, recorder, [pod], nodeName, now()))) return { requeueAfter: retryMarkMs };
}

/**
 * The taints of the node's conditions, as kube's tainting passes keep them:
 * NoSchedule for a Ready that is False (not-ready) or Unknown (unreachable),
 * for each pressure condition that is True, and for a cordon
 * (`spec.unschedulable`: node.kubernetes.io/unschedulable) (doNoScheduleTaintingPass).
 * NoExecute, with its timeAdded, for not-ready and unreachable, as
 * processTaintBaseEviction asks for it: the node queues in its zone for the
 * rate-limited tainting ({@link NoExecuteTainting}), but swaps one for the
 * other at once, and loses both once Ready. Taints already there are kept as
 * they are; others of the node are left alone.
 */
async function reconcileTaints(mgr: Manager, node: NodeObject, t: number, tainting: NoExecuteTainting): Promise<NodeObject> {
  const taints = node.spec?.taints ?? [];
  const ours = (x: corev1.Taint): boolean => (x.effect === 'NoSchedule' && (conditionTaintKeySet.has(x.key) || x.key === unschedulableTaintKey)) || isControllerNoExecute(x);
  const keep = (key: string, effect: string): corev1.Taint => taints.find((x) => x.key === key && x.effect === effect) ?? { key, effect };
  const noSchedule: corev1.Taint[] = [];
  for (const c of node.status?.conditions ?? []) {
    const key = conditionTaintKeys[c.type]?.[c.status];
    if (key !== undefined) noSchedule.push(keep(key, 'NoSchedule'));
  }
  if (node.spec?.unschedulable) noSchedule.push(keep(unschedulableTaintKey, 'NoSchedule'));
  let noExecute = taints.filter(isControllerNoExecute);
  const ready = readyStatusOf(node);
  const keys = noExecuteKeys(ready);
  if (ready === 'True') {
    noExecute = [];
    tainting.forget(node);
  } else if (keys && noExecute.some((x) => x.key === keys.opposite)) {
    noExecute = [{ key: keys.want, effect: 'NoExecute', timeAdded: rfc3339(t) }];
  }
  const queue = keys !== undefined && !noExecute.some((x) => x.key === keys.want);
  const wanted = [...taints.filter((x) => !ours(x)), ...noSchedule, ...noExecute];
  let written = node;
  if (JSON.stringify(wanted) !== JSON.stringify(taints)) {
    const copy = deepCopy(node);
    written = (await mgr.client.update(Node, { ...copy, spec: { ...copy.spec, taints: wanted.length ? wanted : undefined } })) as NodeObject;
  }
  // Queued once this write is done, so that the tainting pass reads the node after it.
  if (queue) tainting.mark(written);
  return written;
}

/**
 * The taint eviction controller's pass over one node: pods that do not
 * tolerate one of its NoExecute taints are deleted now, pods that tolerate
 * them for a while once that while is over. Returns when the next eviction is due.
 */
async function evictPods(mgr: Manager, recorder: EventRecorder, node: NodeObject, t: number): Promise<number | undefined> {
  const noExecute = (node.spec?.taints ?? []).filter((x) => x.effect === 'NoExecute');
  if (noExecute.length === 0) return undefined;
  const { items } = await mgr.client.list(Pod, { unsafeDisableDeepCopy: true });
  let next: number | undefined;
  for (const pod of items as PodObject[]) {
    if (pod.spec?.nodeName !== node.metadata.name || pod.metadata.deletionTimestamp) continue;
    const due = evictionTime(pod, noExecute);
    if (due === undefined) continue;
    if (due > t) {
      next = Math.min(next ?? Infinity, due);
      continue;
    }
    await evict(mgr, recorder, pod, t);
  }
  return next;
}

/** When a pod must go because of these NoExecute taints: now (untolerated), at the earliest toleration's end, or never. */
export function evictionTime(pod: PodObject, taints: readonly corev1.Taint[]): number | undefined {
  let due: number | undefined;
  for (const taint of taints) {
    const matching = (pod.spec?.tolerations ?? []).filter((tol) => (tol.effect === undefined || tol.effect === '' || tol.effect === 'NoExecute') && tolerates(tol, taint));
    if (matching.length === 0) return -Infinity;
    // Tolerated for the shortest of the matching tolerations' seconds (forever when one has none).
    if (matching.some((tol) => tol.tolerationSeconds === undefined || tol.tolerationSeconds === null)) continue;
    const seconds = Math.max(0, Math.min(...matching.map((tol) => tol.tolerationSeconds!)));
    const at = (timeOf(taint.timeAdded) ?? 0) + seconds * 1000;
    due = Math.min(due ?? Infinity, at);
  }
  return due;
}

async function evict(mgr: Manager, recorder: EventRecorder, pod: PodObject, t: number): Promise<void> {
  const ns = pod.metadata.namespace!;
  const name = pod.metadata.name!;
  recorder.event(objectReference(pod, Pod), 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${ns}/${name}`);
  try {
    const conditions = (pod.status?.conditions ?? []).filter((c) => c.type !== 'DisruptionTarget');
    conditions.push({ type: 'DisruptionTarget', status: 'True', reason: 'DeletionByTaintManager', message: 'Taint manager: deleting due to NoExecute taint', lastTransitionTime: rfc3339(t) });
    await mgr.client.updateStatus(Pod, { ...pod, status: { ...pod.status, conditions } }).catch((err: unknown) => {
      if (!isConflict(err)) throw err;
    });
    await mgr.client.delete(Pod, name, { namespace: ns, preconditions: { uid: pod.metadata.uid! } });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}


/**
 * The scheduler, built with the runtime's builder: it reconciles pods that
 * wait for a node (no spec.nodeName, this scheduler's name), places each on
 * the node that fits it best and binds it there, or marks it
 * PodScheduled=False/Unschedulable with a FailedScheduling event worded as
 * kube-scheduler words it. Pods that did not fit are tried again when a node
 * appears or changes, when a bound pod goes away (room was freed), and
 * every five minutes (kube's podMaxInUnschedulablePodsDuration).
 */
import {
  ignoreNotFound,
  isConflict,
  Namespace,
  Node,
  objectPredicate,
  objectReference,
  Pod,
  ReplicaSet,
  ReplicationController,
  requestFor,
  Service,
  StatefulSet,
  type Clock,
  type Manager,
  type ReconcileResult,
  type Request,
} from '@operant/runtime';
import { deletedObject, namespaceIndex, namespaceIndexFunc } from '@operant/runtime/cache';
import { rfc3339 } from '../clock.js';
import type { ControllerContext } from '../context.js';
import { canonicalJson } from '../json.js';
import type { NodeObject, PodObject } from '../objects.js';
import { bindPod } from './bind.js';
import { defaultSpreadSelector, type WorkloadListers } from './default-spread.js';
import { dependsOnOtherPods, type ClusterPods } from './pod-checks.js';
import { SchedulerCache } from './scheduler-cache.js';
import { schedulePod, type SearchCursor } from './schedule.js';

/**
 * Options of {@link addScheduler}.
 *
 * @example
 * ```ts
 * import type { SchedulerOptions } from '@operant/controllers';
 *
 * const options: SchedulerOptions = { schedulerName: 'my-scheduler' }; // pods with spec.schedulerName: my-scheduler
 * ```
 */
export interface SchedulerOptions {
  /** The pods' spec.schedulerName this scheduler serves, and the events' reporting controller; default `default-scheduler`. */
  schedulerName?: string;
  /** Cluster time; default the wall clock. */
  clock?: Clock;
}

/** Pods whose bindings may be on their way at once. */
const bindingWorkers = 16;

/** kube's podMaxInUnschedulablePodsDuration. */
const retryUnschedulableMs = 5 * 60_000;

const terminal = (p: PodObject): boolean => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

/**
 * Adds a scheduler to a manager: pending pods are bound, through the
 * `pods/binding` subresource, to the best-scoring node (kube-scheduler's
 * default profile: untolerated PreferNoSchedule taints, preferred node
 * affinity, room left, soft and default topology spread, preferred pod
 * affinity, balance, images) among those whose taints they tolerate, whose
 * labels match their nodeSelector and required node affinity, with free host
 * ports and enough allocatable resources for their requests, that keep their
 * DoNotSchedule topology spread constraints and their required pod affinity
 * and anti-affinity (and the placed pods' anti-affinity).
 *
 * @example
 * ```ts
 * import { addScheduler } from '@operant/controllers';
 * import { handleSignals, Manager } from '@operant/runtime';
 *
 * const mgr = await Manager.create({ client: { readYourWrites: true } });
 * addScheduler(mgr);
 * await mgr.start(handleSignals());
 * ```
 */
export function addScheduler(mgr: Manager, options: SchedulerOptions = {}): void {
  const name = options.schedulerName ?? 'default-scheduler';
  const clock = options.clock;
  const ctx: ControllerContext = { client: mgr.client, recorder: mgr.eventRecorderFor(name), now: () => (clock ?? Date).now() };
  const pending = (p: PodObject): boolean =>
    !p.spec?.nodeName && (p.spec?.schedulerName ?? 'default-scheduler') === name && !p.metadata.deletionTimestamp && !terminal(p);
  const podInformer = mgr.informers.informerFor(Pod);
  const nodeInformer = mgr.informers.informerFor(Node);
  // Kept by the informers' events (the handlers are given the current contents first): each
  // placement reads sums, not every pod, and the node list is sorted once per change of a node.
  const cache = new SchedulerCache();
  podInformer.addEventHandler({
    add: (p) => cache.observed(p as PodObject),
    update: (old, p) => cache.observed(p as PodObject, old as PodObject),
    delete: (p) => cache.removed(deletedObject(p) as PodObject),
  });
  let sortedNodes: NodeObject[] | undefined;
  const nodesChanged = (): void => void (sortedNodes = undefined);
  nodeInformer.addEventHandler({ add: nodesChanged, update: (old, n) => old !== n && nodesChanged(), delete: nodesChanged });
  const nodes = (): NodeObject[] => (sortedNodes ??= byName(nodeInformer.store.list() as NodeObject[]));
  // What kube's system default spread constraints select a pod by: its Services and its controller (kube-scheduler's listers).
  const services = mgr.informers.informerFor(Service);
  if (!services.store.hasIndex(namespaceIndex)) services.store.addIndexer(namespaceIndex, namespaceIndexFunc);
  const replicationControllers = mgr.informers.informerFor(ReplicationController);
  const replicaSets = mgr.informers.informerFor(ReplicaSet);
  const statefulSets = mgr.informers.informerFor(StatefulSet);
  const workloads: WorkloadListers = {
    services: (namespace) => services.store.byIndex(namespaceIndex, namespace),
    replicationController: (namespace, name) => replicationControllers.store.get(`${namespace}/${name}`),
    replicaSet: (namespace, name) => replicaSets.store.get(`${namespace}/${name}`),
    statefulSet: (namespace, name) => statefulSets.store.get(`${namespace}/${name}`),
  };
  // Namespaces' labels, for pod affinity terms with a namespaceSelector (kube-scheduler's namespace lister).
  const namespaceInformer = mgr.informers.informerFor(Namespace);
  const cluster: ClusterPods = {
    nodesWithRequiredAntiAffinity: () => cache.nodesWithRequiredAntiAffinity(),
    namespaceLabels: (ns) => namespaceInformer.store.get(ns)?.metadata.labels ?? undefined,
    namespaces: () => namespaceInformer.store.list().map((ns) => ({ name: ns.metadata.name ?? '', labels: ns.metadata.labels ?? {} })),
    nodesWithPodAffinity: () => cache.nodesWithPodAffinity(),
    podCounter: (namespace, selector) => cache.podCounter(namespace, selector),
    defaultSpreadSelector: (pod) => defaultSpreadSelector(pod, workloads),
  };
  const cursor: SearchCursor = { next: 0, ties: 0 };
  const allPending = (): Request[] => (podInformer.store.list() as PodObject[]).filter(pending).map(requestFor);
  // Unschedulable pods that wait on other pods' placement, by key: the few tried again when a pod is
  // bound or relabelled, rather than every pending pod at every binding.
  const waitingOnPods = new Map<string, Request>();
  const labelsChanged = (a: PodObject, b: PodObject): boolean => canonicalJson(a.metadata.labels ?? {}) !== canonicalJson(b.metadata.labels ?? {});
  mgr
    .controller('scheduler', clock ? { clock } : {})
    .for(Pod, {
      predicates: [
        objectPredicate<PodObject>(pending),
        // A pending pod's own status writes (ours, say) are no reason to try again; a changed spec or labels are.
        { update: (e) => canonicalJson([e.oldObject.spec, e.oldObject.metadata.labels]) !== canonicalJson([e.object.spec, e.object.metadata.labels]) },
      ],
    })
    // A node's heartbeat (a new lastHeartbeatTime every report) frees no room: only what the filters
    // read (kube's nodeSchedulingPropertiesChange: cordon, allocatable, labels, taints, conditions).
    .watches(Node, allPending, { predicates: [{ delete: () => false, update: (e) => schedulingProperties(e.oldObject) !== schedulingProperties(e.object) }] })
    // Room freed on a node: a bound pod deleted or finished.
    .watches(Pod, allPending, {
      predicates: [
        {
          create: () => false,
          update: (e) => !!e.object.spec?.nodeName && terminal(e.object) && !terminal(e.oldObject),
          delete: (e) => !!e.object.spec?.nodeName,
          generic: () => false,
        },
      ],
    })
    // A pod placed or relabelled may be what a waiting pod's affinity or spread needs.
    .watches(Pod, () => [...waitingOnPods.values()], {
      predicates: [
        {
          create: (e) => waitingOnPods.size > 0 && !!e.object.spec?.nodeName,
          update: (e) => waitingOnPods.size > 0 && !!e.object.spec?.nodeName && (!e.oldObject.spec?.nodeName || labelsChanged(e.oldObject, e.object)),
          delete: () => false,
          generic: () => false,
        },
      ],
    })
    // Several pods at a time: each worker's decision is made and assumed without awaiting, so the
    // workers only overlap their bindings' round trips (kube-scheduler's asynchronous binding cycle).
    .maxConcurrentReconciles(bindingWorkers)
    .reconcile((req) => scheduleOne(ctx, req, pending, cache, nodes, cursor, cluster, waitingOnPods));
}

/** What of a node the scheduler's filters read, as a string to compare. */
function schedulingProperties(node: NodeObject): string {
  const conditions = node.status?.conditions?.map((c) => [c.type, c.status]);
  return canonicalJson([node.spec?.unschedulable, node.spec?.taints, node.metadata.labels, node.status?.allocatable, conditions]);
}

/** Nodes in name order, as a list answers them: ties between equal scores go to the same node as before. */
const byName = (nodes: NodeObject[]): NodeObject[] => nodes.sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));

async function scheduleOne(
  ctx: ControllerContext,
  req: Request,
  pending: (p: PodObject) => boolean,
  cache: SchedulerCache,
  nodes: () => NodeObject[],
  cursor: SearchCursor,
  cluster: ClusterPods,
  waitingOnPods: Map<string, Request>,
): Promise<ReconcileResult | void> {
  // The cache's own object, read only (an assumed pod is a copy with its node set).
  const pod = (await ctx.client.get(Pod, req.name, { namespace: req.namespace, unsafeDisableDeepCopy: true }).catch(ignoreNotFound)) as PodObject | undefined;
  // Kept until the pod is placed or gone: a binding seen while this decision is made runs it again.
  const key = `${req.namespace}/${req.name}`;
  if (!pod || !pending(pod) || cache.isAssumed(pod.metadata.uid)) return void waitingOnPods.delete(key);
  // From here to the assumption nothing is awaited: the workers' decisions see each other's.
  cache.expire(Date.now());
  const result = schedulePod(pod, nodes(), (node) => cache.usage(node), cursor, cluster);
  const regarding = objectReference(pod, Pod);
  if ('node' in result) {
    // Assumed at once, as kube-scheduler assumes before its binding cycle: the other workers place
    // their pods while this binding is on its way.
    cache.assume(pod, result.node, Date.now());
    waitingOnPods.delete(key);
    try {
      await bindPod(ctx.client, pod, result.node);
    } catch (err) {
      cache.forget(pod.metadata.uid);
      // Bound meanwhile (by us, before the cache showed it), or being deleted: nothing left to do.
      if (isConflict(err)) return;
      throw err;
    }
    ctx.recorder.eventf(regarding, null, 'Normal', 'Scheduled', 'Binding', `Successfully assigned ${req.namespace}/${req.name} to ${result.node}`);
    return;
  }
  ctx.recorder.eventf(regarding, null, 'Warning', 'FailedScheduling', 'Scheduling', result.message);
  if (dependsOnOtherPods(pod)) waitingOnPods.set(key, req);
  else waitingOnPods.delete(key);
  const current = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
  if (current?.status !== 'False' || current.reason !== 'Unschedulable' || current.message !== result.message) {
    const condition = {
      type: 'PodScheduled',
      status: 'False',
      lastProbeTime: null,
      lastTransitionTime: current?.status === 'False' && current.lastTransitionTime ? current.lastTransitionTime : rfc3339(ctx.now()),
      reason: 'Unschedulable',
      message: result.message,
    };
    await ctx.client.patch(Pod, req.name, { status: { conditions: [condition] } }, { namespace: req.namespace, subresource: 'status', patchType: 'strategic' });
  }
  return { requeueAfter: retryUnschedulableMs };
}

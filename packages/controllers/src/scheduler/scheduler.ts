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
  Node,
  objectPredicate,
  objectReference,
  Pod,
  requestFor,
  type Clock,
  type Manager,
  type ReconcileResult,
  type Request,
} from '@operant/runtime';
import { rfc3339 } from '../clock.js';
import type { ControllerContext } from '../context.js';
import { canonicalJson } from '../json.js';
import type { NodeObject, PodObject } from '../objects.js';
import { AssumedPods } from './assumed-pods.js';
import { bindPod } from './bind.js';
import { usageOf } from './resources.js';
import { schedulePod } from './schedule.js';

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
 * `pods/binding` subresource, to the node with the most room among those
 * whose taints they tolerate, whose labels match their nodeSelector and
 * required node affinity, with free host ports and enough allocatable
 * resources for their requests.
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
  const assumed = new AssumedPods();
  const pending = (p: PodObject): boolean =>
    !p.spec?.nodeName && (p.spec?.schedulerName ?? 'default-scheduler') === name && !p.metadata.deletionTimestamp && !terminal(p);
  const podInformer = mgr.informers.informerFor(Pod);
  const nodeInformer = mgr.informers.informerFor(Node);
  const allPending = (): Request[] => (podInformer.store.list() as PodObject[]).filter(pending).map(requestFor);
  mgr
    .controller('scheduler', clock ? { clock } : {})
    .for(Pod, {
      predicates: [
        objectPredicate<PodObject>(pending),
        // A pending pod's own status writes (ours, say) are no reason to try again; a changed spec or labels are.
        { update: (e) => canonicalJson([e.oldObject.spec, e.oldObject.metadata.labels]) !== canonicalJson([e.object.spec, e.object.metadata.labels]) },
      ],
    })
    .watches(Node, allPending, { predicates: [{ delete: () => false }] })
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
    // Several pods at a time: each worker's decision is made and assumed without awaiting, so the
    // workers only overlap their bindings' round trips (kube-scheduler's asynchronous binding cycle).
    .maxConcurrentReconciles(bindingWorkers)
    .reconcile((req) => scheduleOne(ctx, req, pending, assumed, { nodes: () => byName(nodeInformer.store.list() as NodeObject[]), pods: () => podInformer.store.list() as PodObject[], pod: (p) => podInformer.store.get(`${p.metadata.namespace}/${p.metadata.name}`) as PodObject | undefined }));
}

/** Nodes in name order, as a list answers them: ties between equal scores go to the same node as before. */
const byName = (nodes: NodeObject[]): NodeObject[] => nodes.sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));

/** The cache's own nodes and pods, read only, in no particular order (kube's scheduler cache shares them too). */
interface CachedObjects {
  nodes(): NodeObject[];
  pods(): PodObject[];
  /** The cache's current object of a pod. */
  pod(p: PodObject): PodObject | undefined;
}

async function scheduleOne(ctx: ControllerContext, req: Request, pending: (p: PodObject) => boolean, assumed: AssumedPods, cached: CachedObjects): Promise<ReconcileResult | void> {
  const pod = (await ctx.client.get(Pod, req.name, { namespace: req.namespace }).catch(ignoreNotFound)) as PodObject | undefined;
  if (!pod || !pending(pod) || assumed.has(pod.metadata.uid)) return;
  // Straight from the informers' stores (synced before the controller starts): a copy, or the
  // client's sorted list, of every pod for each pod scheduled made scheduling quadratic.
  // From here to the assumption nothing is awaited: the workers' decisions see each other's.
  const nodes = cached.nodes();
  const pods = cached.pods();
  assumed.settle(cached.pod, Date.now());
  const byNode = new Map<string, PodObject[]>();
  for (const p of [...pods, ...assumed.pods()]) {
    const node = p.spec?.nodeName;
    if (!node || terminal(p)) continue;
    let list = byNode.get(node);
    if (!list) byNode.set(node, (list = []));
    list.push(p);
  }
  const result = schedulePod(pod, nodes, (node) => usageOf(byNode.get(node) ?? []));
  const regarding = objectReference(pod, Pod);
  if ('node' in result) {
    // Assumed at once, as kube-scheduler assumes before its binding cycle: the other workers place
    // their pods while this binding is on its way.
    assumed.assume(pod, result.node, Date.now());
    try {
      await bindPod(ctx.client, pod, result.node);
    } catch (err) {
      assumed.forget(pod.metadata.uid);
      // Bound meanwhile (by us, before the cache showed it), or being deleted: nothing left to do.
      if (isConflict(err)) return;
      throw err;
    }
    ctx.recorder.eventf(regarding, null, 'Normal', 'Scheduled', 'Binding', `Successfully assigned ${req.namespace}/${req.name} to ${result.node}`);
    return;
  }
  ctx.recorder.eventf(regarding, null, 'Warning', 'FailedScheduling', 'Scheduling', result.message);
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

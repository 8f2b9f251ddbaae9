/**
 * Simulated nodes on a manager: each registers its Node (as a kubelet does at
 * start), then one heartbeat controller keeps their Leases and statuses
 * fresh and one kubelet controller runs the pods bound to them.
 */
import { isAlreadyExists, Node, objectReference, type Clock, type EventRecorder, type Manager } from '@operant/runtime';
import { cidrNotAvailableMessage } from './pod-cidr.js';
import { wallClock } from '../clock.js';
import { addNodeHeartbeats } from './heartbeat.js';
import { addKubelet } from './kubelet.js';
import { defaultShape, SimulatedNode, type NodeShape } from './node.js';
import { defaultTiming, type NodeTiming } from './pod-sync.js';

/**
 * Options of {@link addSimulatedNodes}.
 *
 * @example
 * ```ts
 * import type { SimulatedNodesOptions } from '@operant/controllers';
 *
 * const options: SimulatedNodesOptions = { count: 3, shape: { cpu: '8', memory: '32Gi' }, timing: { startSeconds: 2 } };
 * ```
 */
export interface SimulatedNodesOptions {
  /** How many nodes: `node-1` to `node-<count>` (see {@link NodeShape.namePrefix} and {@link firstIndex}). */
  count: number;
  /**
   * The number of the first node (default 1): nodes are numbered from it, and
   * their addresses and pod CIDRs follow the number, so that nodes run by
   * another process (`operant nodes --first-index 4`) do not share them.
   */
  firstIndex?: number;
  /** What each node offers; default 32 cpu, 256Gi memory, 110 pods. */
  shape?: Partial<NodeShape>;
  /** How long each step of a pod's life takes; see {@link NodeTiming}. */
  timing?: Partial<NodeTiming>;
  /** Cluster time; default the wall clock. */
  clock?: Clock;
  /** The kubelet version the nodes report; default the API server's (`GET /version`). */
  kubeletVersion?: string;
  /**
   * Whether each node's kubelet tells of its start in events, as kubelet does (`Starting kubelet.`, its
   * conditions, `NodeAllocatableEnforced`, `NodeReady`); default true. Six event writes per node are a
   * third of a small test cluster's start, so TestEnv leaves them out unless asked.
   */
  startEvents?: boolean;
  /**
   * Pods synced at once across all nodes; default one per node, from 10 to 100 (each real kubelet
   * syncs its pods in parallel: ten workers for a hundred nodes left pods waiting for a status write).
   */
  workers?: number;
}

/**
 * Registers `count` simulated nodes with the API server (a Node that
 * already exists is taken over) and adds their kubelets to the manager:
 * Leases in kube-node-lease renewed every 10 s, and the pods bound to them
 * run, become ready, restart in place when an image changes, and are
 * deleted once their grace period allows. Resolves with the nodes' names.
 *
 * @example
 * ```ts
 * import { addScheduler, addSimulatedNodes } from '@operant/controllers';
 * import { handleSignals, Manager } from '@operant/runtime';
 *
 * const mgr = await Manager.create({ client: { readYourWrites: true } });
 * addScheduler(mgr);
 * const nodes = await addSimulatedNodes(mgr, { count: 3 }); // ['node-1', 'node-2', 'node-3']
 * await mgr.start(handleSignals());
 * ```
 */
export async function addSimulatedNodes(mgr: Manager, options: SimulatedNodesOptions): Promise<string[]> {
  if (!Number.isInteger(options.count) || options.count < 0) throw new RangeError(`the number of nodes must be an integer of 0 or more, got ${options.count}`);
  const first = options.firstIndex ?? 1;
  if (!Number.isInteger(first) || first < 1) throw new RangeError(`the first node's number must be an integer of 1 or more, got ${first}`);
  const shape: NodeShape = { ...defaultShape, ...options.shape, labels: { ...options.shape?.labels } };
  const timing: NodeTiming = { ...defaultTiming, ...options.timing };
  const clock = options.clock ?? wallClock;
  const nodes = new Map<string, SimulatedNode>();
  for (let i = first; i < first + options.count; i++) {
    const node = new SimulatedNode(i, shape);
    nodes.set(node.name, node);
  }
  // A kubelet reports the server's version (client-go's Discovery().ServerVersion()) as its own, so `kubectl get nodes` shows it.
  const kubeletVersion = options.kubeletVersion ?? (JSON.parse(await mgr.apiReader.getRaw('/version')) as { gitVersion: string }).gitVersion;
  const ipam = mgr.eventRecorderFor('cidrAllocator');
  const kubelet = mgr.eventRecorderFor('kubelet');
  const register = async (node: SimulatedNode): Promise<void> => {
    try {
      const created = await mgr.apiReader.create(Node, node.nodeObject(kubeletVersion, clock.now()));
      // What kube's node IPAM says of a node it has no range for (see pod-cidr.ts).
      if (node.podCIDR === undefined) ipam.eventf(objectReference(created, Node), null, 'Warning', 'CIDRNotAvailable', 'CIDRNotAvailable', cidrNotAvailableMessage(node.name));
    } catch (err) {
      // Registered before (a restart with the same data): the heartbeat brings its status up to date.
      if (!isAlreadyExists(err)) throw err;
    }
    if (options.startEvents ?? true) recordStart(kubelet, node);
  };
  // Sixteen at a time: a thousand nodes register in seconds, not one round trip after another.
  const queue = [...nodes.values()];
  const worker = async (): Promise<void> => {
    for (let node = queue.shift(); node; node = queue.shift()) await register(node);
  };
  await Promise.all(Array.from({ length: Math.min(16, queue.length) }, worker));
  addNodeHeartbeats(mgr, { nodes, kubeletVersion, clock }, options.clock);
  addKubelet(mgr, { nodes, clock, timing }, options.clock, options.workers ?? Math.min(100, Math.max(10, options.count)));
  return [...nodes.keys()];
}

/**
 * What a kubelet tells of its node each time it starts, so that `kubectl describe node` shows it as on a
 * cluster: "Starting kubelet.", then each condition of the fresh status it registers with (kubelet's
 * status setters run on a new Node object at every start, so every condition is a change), the allocatable
 * limit it enforces, and the readiness. Like kubelet's, the events regard the Node by name, with the node's
 * name as its uid.
 */
function recordStart(kubelet: EventRecorder, node: SimulatedNode): void {
  const ref = { kind: 'Node', name: node.name, uid: node.name };
  const statusIsNow = (reason: string): void => kubelet.eventf(ref, null, 'Normal', reason, reason, `Node ${node.name} status is now: ${reason}`);
  kubelet.eventf(ref, null, 'Normal', 'Starting', 'Starting', 'Starting kubelet.');
  statusIsNow('NodeHasSufficientMemory');
  statusIsNow('NodeHasNoDiskPressure');
  statusIsNow('NodeHasSufficientPID');
  kubelet.eventf(ref, null, 'Normal', 'NodeAllocatableEnforced', 'NodeAllocatableEnforced', 'Updated Node Allocatable limit across pods');
  statusIsNow(node.podCIDR === undefined ? 'NodeNotReady' : 'NodeReady');
}

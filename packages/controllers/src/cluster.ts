/**
 * A simulated cluster, like kwok, on any API server: the deployment,
 * replicaset, replicationcontroller, statefulset, daemonset, job, cronjob,
 * disruption, endpoint, endpointslice, persistentvolume-binder,
 * resourcequota and horizontalpodautoscaling controllers, node lifecycle (with taint eviction), pod
 * garbage collection, the CSR cleaner and the root CA publisher, a
 * scheduler and simulated nodes, all on one
 * runtime Manager talking to the server over the wire with a kubeconfig, as
 * an operator would. What `operant server --nodes N` runs beside the
 * embedded server, and what tests use to get pods that run.
 */
import { dropManagedFields } from '@operant/runtime/cache';
import { MetricsRegistry } from '@operant/runtime/metrics';
import { createLogger, loadKubeConfig, Manager, type ClientConfig, type Clock, type LoadKubeConfigOptions, type LogMethods } from '@operant/runtime';
import { selectControllers, type SimulatedControllerName } from './controller-selection.js';
import { addCsrCleaner } from './certificates/cleaner.js';
import { addRootCaPublisher } from './certificates/root-ca-publisher.js';
import { addCronJobController } from './cronjob/controller.js';
import { addDaemonSetController } from './daemonset/controller.js';
import { addDeploymentController } from './deployment/controller.js';
import { addDisruptionController } from './disruption/controller.js';
import { addEndpointsController } from './endpoints/controller.js';
import { addEndpointSliceController } from './endpoints/endpointslice-controller.js';
import { addJobController } from './job/controller.js';
import { addSimulatedNodes } from './kubelet/simulated-nodes.js';
import type { NodeShape } from './kubelet/node.js';
import type { SimulatedNodesOptions } from './kubelet/simulated-nodes.js';
import type { NodeTiming } from './kubelet/pod-sync.js';
import { addReplicaSetController, addReplicationControllerController } from './replicaset/controller.js';
import { addNodeLifecycleController } from './nodelifecycle/controller.js';
import { nodesSchedulable } from './nodelifecycle/schedulable.js';
import { addPodGarbageCollector } from './podgc/controller.js';
import { addResourceQuotaController } from './resourcequota/controller.js';
import { addHorizontalPodAutoscalerController } from './podautoscaler/controller.js';
import { addScheduler } from './scheduler/scheduler.js';
import { addStatefulSetController } from './statefulset/controller.js';
import { addPersistentVolumeBinder } from './volume/binder.js';

/**
 * Options of {@link startSimulatedCluster}.
 *
 * @example
 * ```ts
 * import { acceleratedClock, type SimulatedClusterOptions } from '@operant/controllers';
 *
 * const options: SimulatedClusterOptions = { kubeconfig: { path: '.operant/kubeconfig' }, nodes: 3, clock: acceleratedClock(100) };
 * ```
 */
export interface SimulatedClusterOptions {
  /** The API server: a loaded configuration, or where to load one from (`{ path }`, `{ kubeconfigText }`). */
  kubeconfig: ClientConfig | LoadKubeConfigOptions;
  /** How many simulated nodes; 0 runs the controllers and the scheduler without nodes. */
  nodes: number;
  /** Cluster time for every delay (readiness, minReadySeconds, grace periods, heartbeats, run times, cron schedules); default the wall clock. */
  clock?: Clock;
  /** What each node offers; see {@link NodeShape}. */
  shape?: Partial<NodeShape>;
  /** How long each step of a pod's life takes; see {@link NodeTiming}. */
  timing?: Partial<NodeTiming>;
  /**
   * Which controllers run, as kube-controller-manager's `--controllers`:
   * `['*']` (the default) for all, `['*', '-deployment']` for all but one,
   * `['job']` for one. The scheduler and the nodes always run.
   */
  controllers?: readonly string[];
  /** Default a logger at `warn` (or OPERANT_LOG_LEVEL): the controllers' info lines are not news here. */
  logger?: LogMethods;
  /**
   * The version the nodes' kubelets report; default the API server's, asked
   * with `GET /version` (a host that runs the server in its own process knows
   * it already, and saves the request).
   */
  kubeletVersion?: string;
  /** Whether the nodes' kubelets record their start in events (see {@link SimulatedNodesOptions.startEvents}); default true. */
  nodeStartEvents?: boolean;
}

/**
 * A running simulated cluster.
 *
 * @example
 * ```ts
 * import { startSimulatedCluster, type SimulatedCluster } from '@operant/controllers';
 *
 * const cluster: SimulatedCluster = await startSimulatedCluster({ kubeconfig: { path: '.operant/kubeconfig' }, nodes: 2 });
 * console.log(cluster.nodes); // ['node-1', 'node-2']
 * await cluster.stop();
 * ```
 */
export interface SimulatedCluster {
  /** The simulated nodes' names. */
  readonly nodes: readonly string[];
  /** The manager the controllers run on (its client, cache and metrics). */
  readonly manager: Manager;
  /** Stops the controllers and nodes (the Nodes stay registered, as after a kubelet stops). */
  stop(): Promise<void>;
}

/**
 * Starts the workload controllers (deployment, replicaset, statefulset,
 * daemonset, job, cronjob), the scheduler and `nodes`
 * simulated nodes against the API server of `kubeconfig`. Resolves once the
 * nodes are registered, every controller runs, and the Ready nodes can take
 * pods (the node lifecycle controller took off the not-ready taint the API
 * server gives every new Node).
 *
 * @example
 * ```ts
 * import { startSimulatedCluster } from '@operant/controllers';
 *
 * const cluster = await startSimulatedCluster({ kubeconfig: { path: '.operant/kubeconfig' }, nodes: 3 });
 * // kubectl create deployment web --image=nginx --replicas=3: three pods run on node-1..3
 * process.once('SIGTERM', () => void cluster.stop());
 * ```
 */
export async function startSimulatedCluster(options: SimulatedClusterOptions): Promise<SimulatedCluster> {
  const enabled = selectControllers(options.controllers ?? ['*']);
  const { manager, logger, rootCa } = await clusterManager(options);
  const clock = options.clock;
  const adders: Record<SimulatedControllerName, (mgr: Manager, o: { clock?: Clock }) => void> = {
    deployment: addDeploymentController,
    replicaset: addReplicaSetController,
    replicationcontroller: addReplicationControllerController,
    statefulset: addStatefulSetController,
    daemonset: addDaemonSetController,
    job: addJobController,
    cronjob: addCronJobController,
    disruption: addDisruptionController,
    endpoint: addEndpointsController,
    endpointslice: addEndpointSliceController,
    'persistentvolume-binder': addPersistentVolumeBinder,
    nodelifecycle: addNodeLifecycleController,
    podgc: addPodGarbageCollector,
    resourcequota: addResourceQuotaController,
    horizontalpodautoscaling: addHorizontalPodAutoscalerController,
    csrcleaner: addCsrCleaner,
    // As kube-controller-manager without --root-ca-file: the CA its kubeconfig trusts.
    'root-ca-cert-publisher': (mgr) => {
      if (rootCa) addRootCaPublisher(mgr, { rootCa });
      else logger.warn({ controller: 'root-ca-cert-publisher' }, 'the kubeconfig names no CA to publish: kube-root-ca.crt ConfigMaps are not kept');
    },
  };
  for (const name of enabled) adders[name](manager, { clock });
  addScheduler(manager, { clock });
  const nodes = await addSimulatedNodes(manager, {
    count: options.nodes,
    clock,
    shape: options.shape,
    timing: options.timing,
    kubeletVersion: options.kubeletVersion,
    startEvents: options.nodeStartEvents,
  });
  const cluster = await run(manager, logger, nodes);
  // Ready means the nodes can take pods: the node lifecycle controller has taken off the not-ready
  // taint the API server gave each of them (see ./nodelifecycle/schedulable.ts).
  if (enabled.has('nodelifecycle')) await nodesSchedulable(manager, nodes);
  return cluster;
}

/**
 * Options of {@link startSimulatedNodes}.
 *
 * @example
 * ```ts
 * import type { SimulatedNodesProcessOptions } from '@operant/controllers';
 *
 * const options: SimulatedNodesProcessOptions = { kubeconfig: { path: '.operant/kubeconfig' }, nodes: 2, firstIndex: 4 };
 * ```
 */
export interface SimulatedNodesProcessOptions extends Omit<SimulatedClusterOptions, 'controllers'> {
  /** The number of the first node (default 1); see {@link SimulatedNodesOptions.firstIndex}. */
  firstIndex?: number;
}

/**
 * Starts simulated nodes alone (their kubelets, no controllers and no
 * scheduler) that join the cluster of `kubeconfig`, as real nodes join one:
 * what `operant nodes` runs, so that a node can be killed on its own.
 * Resolves once they are registered.
 *
 * @example
 * ```ts
 * import { startSimulatedNodes } from '@operant/controllers';
 *
 * const extra = await startSimulatedNodes({ kubeconfig: { path: '.operant/kubeconfig' }, nodes: 2, firstIndex: 4 }); // node-4, node-5
 * await extra.stop();
 * ```
 */
export async function startSimulatedNodes(options: SimulatedNodesProcessOptions): Promise<SimulatedCluster> {
  const { manager, logger } = await clusterManager(options);
  const nodes = await addSimulatedNodes(manager, {
    count: options.nodes,
    firstIndex: options.firstIndex,
    clock: options.clock,
    shape: options.shape,
    timing: options.timing,
    kubeletVersion: options.kubeletVersion,
    startEvents: options.nodeStartEvents,
  });
  return run(manager, logger, nodes);
}

async function clusterManager(options: Pick<SimulatedClusterOptions, 'kubeconfig' | 'logger'>): Promise<{ manager: Manager; logger: LogMethods; rootCa?: string }> {
  const config = 'server' in options.kubeconfig && 'credentials' in options.kubeconfig ? options.kubeconfig : await loadKubeConfig(options.kubeconfig);
  const logger = options.logger ?? createLogger({ level: process.env.OPERANT_LOG_LEVEL || 'warn' });
  const manager = await Manager.create({
    kubeconfig: config,
    // The controllers list what they just wrote (kube's expectations); the server is local, so no throttling.
    client: { readYourWrites: true, qps: Infinity, userAgent: 'operant-simulated-cluster/0.1.0' },
    // No controller here reads managedFields, and they are much of a pod's size: a cache of 100,000
    // pods holds none (controller-runtime's TransformStripManagedFields). An update without them
    // keeps the stored ones, as kube's field manager does.
    // One watch-list request per kind (kube 1.27+'s WatchList), not a list and then a watch: half the requests
    // to start; a server without the feature is listed and watched as before.
    cache: { transform: dropManagedFields, watchList: true },
    // No process metrics: nothing serves this manager's, and prom-client's collectors (an event-loop
    // monitor ticking every 10 ms, a GC observer) are never stopped, so each cluster started in a
    // process (a TestEnv per test file) would leave a pair running.
    metrics: new MetricsRegistry({ processMetrics: false }),
    logger,
    gracefulShutdownTimeoutMs: 10_000,
  });
  return { manager, logger, rootCa: config.tls.ca };
}

/** Starts the manager; resolves once it runs, with the handle that stops it. */
async function run(manager: Manager, logger: LogMethods, nodes: string[]): Promise<SimulatedCluster> {
  const stopping = new AbortController();
  const running = manager.start(stopping.signal);
  const started = await Promise.race([manager.elected().then(() => true), running.then(() => false)]);
  if (!started) throw new Error('the simulated cluster stopped while starting');
  // Once started, a failure stops the controllers but not the process that hosts them (an API server, say): it is logged.
  const done = running.catch((err: unknown) => logger.error({ err }, 'the simulated cluster stopped'));
  return {
    nodes,
    manager,
    stop() {
      stopping.abort();
      return done;
    },
  };
}

/**
 * A simulated Kubernetes cluster on the Operant runtime, like kwok: the
 * workload controllers of kube-controller-manager (deployments, replica
 * sets, stateful sets, daemon sets, jobs, cron jobs, node lifecycle, pod GC), a scheduler and simulated nodes, each a controller of the runtime
 * talking to the API server over the wire. `startSimulatedCluster` runs them
 * all; the `add*` functions put each on a manager of your own.
 */
export { startSimulatedCluster, startSimulatedNodes, type SimulatedCluster, type SimulatedClusterOptions, type SimulatedNodesProcessOptions } from './cluster.js';
export { startSimulatedClusterProcess, type SimulatedClusterProcess, type SimulatedClusterProcessOptions } from './cluster-process.js';
export { selectControllers, simulatedControllers, type SimulatedControllerName } from './controller-selection.js';
export { addDeploymentController } from './deployment/controller.js';
export { addReplicaSetController, addReplicationControllerController } from './replicaset/controller.js';
export { addStatefulSetController } from './statefulset/controller.js';
export { addDaemonSetController } from './daemonset/controller.js';
export { addJobController, jobTrackingFinalizer } from './job/controller.js';
export { addCronJobController, scheduledTimestampAnnotation } from './cronjob/controller.js';
export { addDisruptionController, disruptionDeletionTimeoutMs } from './disruption/controller.js';
export { addPersistentVolumeBinder, bindCompletedAnnotation, boundByControllerAnnotation, provisionedByAnnotation, storageProvisionerAnnotation } from './volume/binder.js';
export { addEndpointsController, headlessServiceLabel } from './endpoints/controller.js';
export { addEndpointSliceController, endpointSliceControllerName, managedByLabel, maxEndpointsPerSlice, serviceNameLabel } from './endpoints/endpointslice-controller.js';
export { exitCodeAnnotation, runSecondsAnnotation, startSecondsAnnotation, stopExitCodeAnnotation } from './kubelet/pod-sync.js';
export { crashLoopAnnotation, heartbeatsPausedAnnotation, imagePullFailureAnnotation, neverReadyAnnotation } from './kubelet/knobs.js';
export { addNodeLifecycleController, nodeMonitorGracePeriodMs, unreachableTaintKey, type NodeLifecycleOptions } from './nodelifecycle/controller.js';
export { addPodGarbageCollector, type PodGcOptions } from './podgc/controller.js';
export { addCsrCleaner, csrCleanerPollingIntervalMs, type CsrCleanerOptions } from './certificates/cleaner.js';
export { addRootCaPublisher, rootCaConfigMapName, type RootCaPublisherOptions } from './certificates/root-ca-publisher.js';
export { addResourceQuotaController, resourceQuotaSyncPeriodMs } from './resourcequota/controller.js';
export { addHorizontalPodAutoscalerController, hpaSyncPeriodMs } from './podautoscaler/controller.js';
export { cpuUsageAnnotation, customMetricAnnotationPrefix, externalMetricAnnotationPrefix, memoryUsageAnnotation } from './podautoscaler/metrics.js';
export { addScheduler, type SchedulerOptions } from './scheduler/scheduler.js';
export { addSimulatedNodes, type SimulatedNodesOptions } from './kubelet/simulated-nodes.js';
export type { NodeShape } from './kubelet/node.js';
export type { NodeTiming } from './kubelet/pod-sync.js';
export type { WorkloadControllerOptions } from './context.js';
export { acceleratedClock, acceleratedClockSince, wallClock } from './clock.js';
export type { DeploymentObject, LeaseObject, NodeObject, PodObject, ReplicaSetObject } from './objects.js';

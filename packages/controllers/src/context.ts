/**
 * What every controller of the simulated cluster works with: the manager's
 * client (reading from the shared cache, seeing its own writes), an event
 * recorder, and cluster time; and the options the workload controllers share.
 */
import { hasStatusCause, type Client, type Clock, type EventRecorder } from '@operant/runtime';

/** A controller's client, event recorder and clock. */
export interface ControllerContext {
  readonly client: Client;
  readonly recorder: EventRecorder;
  /** Cluster time, epoch ms. */
  now(): number;
}

/**
 * Options of {@link addDeploymentController} and {@link addReplicaSetController}.
 *
 * @example
 * ```ts
 * import { acceleratedClock, type WorkloadControllerOptions } from '@operant/controllers';
 *
 * const options: WorkloadControllerOptions = { clock: acceleratedClock(100), workers: 5 };
 * ```
 */
export interface WorkloadControllerOptions {
  /** Cluster time (see {@link wallClock}); default the wall clock. */
  clock?: Clock;
  /** Objects reconciled at once; default 5, as kube-controller-manager's concurrent syncs. */
  workers?: number;
}

/** Whether a create failed because the namespace is being deleted (kube's NamespaceTerminatingCause). */
export function namespaceTerminating(err: unknown): boolean {
  return hasStatusCause(err, 'NamespaceTerminating');
}

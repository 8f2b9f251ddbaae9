/**
 * @operant/testing: what an operator's tests need. Test environments (the
 * embedded API server in process, CRDs, webhooks, namespaces per test, the
 * operator under test), waits that say what they last saw (eventually,
 * consistently, converges), and a fault proxy with seeded chaos schedules
 * to put between an operator and any API server.
 */
export { TestEnv, type EnvFaultProxyOptions, type EnvReplicasOptions, type EnvKubeconfig, type EnvWebhook, type TestEnvOptions } from './env/test-env.js';
export type { TestNamespace } from './env/namespaces.js';
export type { RunningManager, StartManagerOptions } from './env/operator.js';
export type { ReconcileErrorRecord } from './env/reconcile-errors.js';
export type { ManifestSource } from './install/manifests.js';
export type { TestScope } from './env/scope.js';
export { certificateCacheDir, processCertificates } from './certificates.js';

export { eventually, eventuallyFound, consistently, type EventuallyOptions, type ConsistentlyOptions } from './wait/eventually.js';
export { converges, type ConvergesOptions } from './wait/converges.js';
export { WaitError } from './wait/wait-error.js';

export { FaultProxy, type FaultProxyOptions } from './chaos/proxy.js';
export type { InjectOptions, InjectedFault } from './chaos/active-fault.js';
export {
  allFaultKinds,
  clusterFaultKinds,
  errorCodes,
  faultKinds,
  operatorFaultKinds,
  serverFaultKinds,
  type ErrorCode,
  type Fault,
  type FaultKind,
  type FaultScope,
  type OperatorFault,
  type ServerFault,
} from './chaos/faults.js';
export type { FaultOutcome, OperatorFaultHandler, ServerFaultHandler } from './chaos/handed-faults.js';
export { chaos, defaultWindows, type ChaosOptions, type ChaosPlan, type ChaosSchedule, type FaultTemplate, type PlannedFault, type ScheduledFault } from './chaos/schedule.js';
export type { PlayOptions } from './chaos/play.js';
export { describePlayed, formatFailedWrite, formatRecord, type ChaosReport } from './chaos/report.js';
export type { FailedWrite, FaultRecord } from './chaos/records.js';
export { requestInfo, type RequestInfo, type Verb } from './chaos/request-info.js';
export { Prng, deriveSeed } from './chaos/prng.js';

export {
  Replicas,
  type OperatorFaultOptions,
  type ReplicaProcess,
  type ReplicaProgram,
  type ReplicaSlot,
  type ReplicasOptions,
  type ReplicasSettings,
} from './replicas/replicas.js';
export { controllerRuntimeReconcileError, type ReconcileErrorLine } from './replicas/output.js';

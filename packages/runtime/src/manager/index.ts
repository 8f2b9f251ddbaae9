/**
 * The manager: shared client, cache and metrics for an operator's controllers;
 * Lease-based leader election with release on shutdown; `/metrics`, `/healthz`
 * and `/readyz`; graceful shutdown on SIGTERM.
 */
export { Manager, LeaderElectionLostError, ShutdownTimeoutError } from './manager.js';
export type { ManagerOptions, ManagerWebhookOptions, LeaderElectionConfig } from './options.js';
export type { Runnable } from './runnable.js';
export type { HealthCheck, CheckResult } from './health.js';
export type { ServerAddress } from './http-server.js';
export { handleSignals, type HandleSignalsOptions } from './signals.js';
export { LeaderElector, type LeaderElectorOptions, type LeaderElectionOutcome } from './leader-election.js';
export {
  LeaseLock,
  type LeaderElectionRecord,
  type LeaseLockOptions,
  type LeaseObject,
  type LeaseSpec,
  type LockState,
  type ResourceLock,
} from './lease-lock.js';
export { leaderIdentity } from './identity.js';

/**
 * Leader election on a lock (a Lease), as client-go's `tools/leaderelection`
 * does it: candidates poll every retry period and take the lock when it is
 * free, released, or not renewed for a lease duration; the leader renews every
 * retry period and steps down when it cannot renew within the renew deadline,
 * which is shorter than the lease duration, so it stops before anyone else may
 * start. On cancellation the leader releases the lock so that a successor need
 * not wait for it to expire.
 *
 * Expiry is judged as client-go judges it: by how long this process has seen
 * the record unchanged (`observedTime + leaseDurationSeconds`), on its own
 * monotonic clock, not by comparing the record's `renewTime` with the local
 * wall clock, so clock skew between machines cannot cut a lease short.
 */
import { isConflict } from '../client/api-error.js';
import { silentLogger, type LogFields } from '../cache/logger.js';
import { noopLeaderElectionMetrics, type LeaderElectionMetrics } from '../metrics/leader-election-metrics.js';
import type { LeaderElectionRecord, LockState, ResourceLock } from './lease-lock.js';
import { deadline, sleep } from './timing.js';
import type { LogMethods } from '../logging/log.js';

/** client-go's `JitterFactor`: candidates wait between 1 and 2.2 retry periods between attempts. */
const jitterFactor = 1.2;

/**
 * Options of {@link LeaderElector}.
 *
 * @example
 * ```ts
 * import type { LeaderElectorOptions } from '@operant/runtime';
 *
 * const options: LeaderElectorOptions = {
 *   name: 'my-operator',
 *   leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000,
 *   onStartedLeading: (leading) => log.info({}, 'leading until the signal aborts'),
 *   onStoppedLeading: () => console.log('no longer leading'),
 * };
 * ```
 */
export interface LeaderElectorOptions {
  /** The election's name: the `name` label of `leader_election_master_status` (usually the lease name). */
  name: string;
  /**
   * How long others wait, from the last change they saw, before taking the lock
   * over; default 15 s. Written to the lease in whole seconds (rounded up, at least 1).
   */
  leaseDurationMs?: number;
  /** How long the leader keeps retrying a renewal before it steps down; default 10 s. Must be less than the lease duration. */
  renewDeadlineMs?: number;
  /** The interval between attempts, to acquire or to renew; default 2 s. The renew deadline must exceed 1.2 of it. */
  retryPeriodMs?: number;
  /** Release the lock when `run`'s signal aborts while leading (client-go's `ReleaseOnCancel`); default true. */
  releaseOnCancel?: boolean;
  /** Called on becoming leader, with a signal that aborts when leadership ends (lost or cancelled). */
  onStartedLeading?: (signal: AbortSignal) => void;
  /** Called once leadership has ended (after the release, when there is one). Not called when this process never led. */
  onStoppedLeading?: () => void;
  /** Called when the observed holder changes (including to this process, and to `''` when released). */
  onNewLeader?: (identity: string) => void;
  metrics?: LeaderElectionMetrics;
  logger?: LogMethods;
  /** Random source in [0, 1) for jitter. */
  random?: () => number;
}

/**
 * How {@link LeaderElector.run} ended: `cancelled` when its signal aborted
 * (whether or not this process was leading), `lost` when a renewal did not
 * succeed within the renew deadline.
 *
 * @example
 * ```ts
 * import { LeaderElector, leaderIdentity, LeaseLock } from '@operant/runtime';
 *
 * const elector = new LeaderElector(new LeaseLock(client, { name: 'my-operator', namespace: 'default', identity: leaderIdentity() }), { name: 'my-operator' });
 * if ((await elector.run(signal)) === 'lost') process.exit(1);
 * ```
 */
export type LeaderElectionOutcome = 'cancelled' | 'lost';

/**
 * Campaigns for a lock and holds it while it can.
 *
 * @example
 * ```ts
 * import { ConfigMap, controllerBuilder, LeaderElector, leaderIdentity, LeaseLock } from '@operant/runtime';
 *
 * const controller = controllerBuilder('configmaps', { client, informers }).for(ConfigMap).reconcile(() => undefined);
 * const lock = new LeaseLock(client, { name: 'my-operator', namespace: 'default', identity: leaderIdentity() });
 * const elector = new LeaderElector(lock, {
 *   name: 'my-operator',
 *   onStartedLeading: (leading) => void controller.start(leading),
 * });
 * const outcome = await elector.run(signal); // 'cancelled' after shutdown (lease released), 'lost' if renewals failed
 * ```
 */
export class LeaderElector {
  readonly name: string;
  private readonly leaseDurationMs: number;
  private readonly leaseDurationSeconds: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly metrics: LeaderElectionMetrics;
  private readonly logger: LogMethods;
  private readonly random: () => number;
  private observed: LeaderElectionRecord | undefined;
  private observedRaw = '';
  /** `performance.now()` when `observed` last changed. */
  private observedAt = 0;
  private reportedLeader = '';
  private running = false;

  constructor(
    private readonly lock: ResourceLock,
    private readonly options: LeaderElectorOptions,
  ) {
    this.name = options.name;
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    if (!(this.retryPeriodMs > 0)) throw new RangeError('retryPeriodMs must be greater than zero');
    if (!(this.renewDeadlineMs > this.retryPeriodMs * jitterFactor)) {
      throw new RangeError(`renewDeadlineMs (${this.renewDeadlineMs}) must be greater than retryPeriodMs × ${jitterFactor} (${this.retryPeriodMs * jitterFactor})`);
    }
    if (!(this.leaseDurationMs > this.renewDeadlineMs)) {
      throw new RangeError(`leaseDurationMs (${this.leaseDurationMs}) must be greater than renewDeadlineMs (${this.renewDeadlineMs})`);
    }
    this.leaseDurationSeconds = Math.max(1, Math.ceil(this.leaseDurationMs / 1000));
    this.metrics = options.metrics ?? noopLeaderElectionMetrics;
    this.logger = options.logger ?? silentLogger;
    this.random = options.random ?? Math.random;
  }

  /** This process's identity in the lock. */
  get identity(): string {
    return this.lock.identity;
  }

  /** The holder this process last saw (`''` when released or not yet seen). */
  get leader(): string {
    return this.observed?.holderIdentity ?? '';
  }

  /** True while the last record seen or written names this process. */
  isLeader(): boolean {
    return this.observed?.holderIdentity === this.lock.identity;
  }

  /**
   * Campaigns until leading, then renews until `signal` aborts (releasing the
   * lock when `releaseOnCancel`) or a renewal fails. One run at a time.
   */
  async run(signal: AbortSignal): Promise<LeaderElectionOutcome> {
    if (this.running) throw new Error(`leader election ${this.name} is already running`);
    this.running = true;
    try {
      this.metrics.leaderOff(this.name);
      if (!(await this.acquire(signal))) return 'cancelled';
      const leading = new AbortController();
      let outcome: LeaderElectionOutcome;
      try {
        this.callback('onStartedLeading', () => this.options.onStartedLeading?.(leading.signal));
        outcome = await this.renew(signal);
      } finally {
        leading.abort();
        this.metrics.leaderOff(this.name);
      }
      if (outcome === 'cancelled' && (this.options.releaseOnCancel ?? true)) await this.release();
      this.callback('onStoppedLeading', () => this.options.onStoppedLeading?.());
      return outcome;
    } finally {
      this.running = false;
    }
  }

  /**
   * Gives the lock up if this process holds it, as client-go's release does:
   * empty holder, a 1 s duration, renew and acquire times now, transitions kept.
   * Resolves false when the write failed (the lease then expires on its own).
   */
  async release(): Promise<boolean> {
    if (!this.isLeader() || !this.observed) return true;
    const now = new Date();
    const record: LeaderElectionRecord = {
      holderIdentity: '',
      leaseDurationSeconds: 1,
      acquireTime: now,
      renewTime: now,
      leaderTransitions: this.observed.leaderTransitions,
    };
    const limit = deadline(this.renewDeadlineMs);
    try {
      try {
        this.setObserved(await this.lock.update(record, limit.signal));
      } catch (err) {
        // A renewal cut short by the shutdown may still have reached the server, so the
        // lock's copy is stale: read it again and release if this process still holds it.
        if (!isConflict(err)) throw err;
        const current = await this.lock.get(limit.signal);
        if (current?.record.holderIdentity !== this.lock.identity) return true;
        this.setObserved(await this.lock.update({ ...record, leaderTransitions: current.record.leaderTransitions }, limit.signal));
      }
      this.logger.info(this.fields(), 'released leader lease');
      return true;
    } catch (err) {
      this.logger.error(this.fields({ err }), 'failed to release leader lease');
      return false;
    } finally {
      limit.dispose();
      this.reportTransition();
    }
  }

  private async acquire(signal: AbortSignal): Promise<boolean> {
    this.logger.info(this.fields(), 'attempting to acquire leader lease');
    for (;;) {
      if (signal.aborted) return false;
      const acquired = await this.tryAcquireOrRenew(signal);
      this.reportTransition();
      if (acquired) {
        this.metrics.leaderOn(this.name);
        this.logger.info(this.fields(), 'successfully acquired lease');
        return true;
      }
      const wait = this.retryPeriodMs * (1 + this.random() * jitterFactor);
      if (!(await sleep(wait, signal))) return false;
    }
  }

  private async renew(signal: AbortSignal): Promise<LeaderElectionOutcome> {
    for (;;) {
      const renewed = await this.renewWithinDeadline(signal);
      this.reportTransition();
      if (signal.aborted) return 'cancelled';
      if (!renewed) {
        this.logger.error(this.fields({ renewDeadlineMs: this.renewDeadlineMs }), 'failed to renew lease: leader election lost');
        return 'lost';
      }
      if (!(await sleep(this.retryPeriodMs, signal))) return 'cancelled';
    }
  }

  /** Tries at once, then every retry period, until a renewal succeeds or the renew deadline passes. */
  private async renewWithinDeadline(signal: AbortSignal): Promise<boolean> {
    const limit = deadline(this.renewDeadlineMs, signal);
    try {
      for (;;) {
        if (await this.tryAcquireOrRenew(limit.signal)) return true;
        if (!(await sleep(this.retryPeriodMs, limit.signal))) return false;
      }
    } finally {
      limit.dispose();
    }
  }

  /** One attempt (client-go's `tryAcquireOrRenew`): true when this process holds the lock afterwards. */
  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const now = new Date();
    const record: LeaderElectionRecord = {
      holderIdentity: this.lock.identity,
      leaseDurationSeconds: this.leaseDurationSeconds,
      acquireTime: now,
      renewTime: now,
      leaderTransitions: 0,
    };

    // 1. The leader's fast path: update optimistically, assuming the record it last saw is current.
    if (this.isLeader() && this.isLeaseValid() && this.observed) {
      record.acquireTime = this.observed.acquireTime;
      record.leaderTransitions = this.observed.leaderTransitions;
      try {
        this.setObserved(await this.lock.update(record, signal));
        return true;
      } catch (err) {
        if (signal.aborted) return false;
        this.logger.debug(this.fields({ err }), 'optimistic lease renewal failed, reading the lease');
      }
    }

    // 2. Read the lock, creating it when there is none.
    let current: LockState | undefined;
    try {
      current = await this.lock.get(signal);
    } catch (err) {
      if (!signal.aborted) this.logger.warn(this.fields({ err }), 'error retrieving leader lease');
      return false;
    }
    if (!current) {
      try {
        this.setObserved(await this.lock.create(record, signal));
        return true;
      } catch (err) {
        if (!signal.aborted) this.logger.debug(this.fields({ err }), 'error creating leader lease');
        return false;
      }
    }

    // 3. Someone else holds a lease that has not expired: wait.
    if (current.raw !== this.observedRaw) this.setObserved(current);
    if (current.record.holderIdentity !== '' && this.isLeaseValid() && !this.isLeader()) return false;

    // 4. Take it over (or renew it after the fast path failed).
    if (this.isLeader()) {
      record.acquireTime = current.record.acquireTime;
      record.leaderTransitions = current.record.leaderTransitions;
      this.metrics.slowpathExercised(this.name);
    } else {
      record.leaderTransitions = current.record.leaderTransitions + 1;
    }
    try {
      this.setObserved(await this.lock.update(record, signal));
      return true;
    } catch (err) {
      if (!signal.aborted) this.logger.debug(this.fields({ err }), 'error updating leader lease');
      return false;
    }
  }

  private isLeaseValid(): boolean {
    if (!this.observed) return false;
    return this.observedAt + this.observed.leaseDurationSeconds * 1000 > performance.now();
  }

  private setObserved(state: LockState): void {
    this.observed = state.record;
    this.observedRaw = state.raw;
    this.observedAt = performance.now();
  }

  private reportTransition(): void {
    const holder = this.leader;
    if (holder === this.reportedLeader) return;
    this.reportedLeader = holder;
    if (holder) this.logger.info(this.fields({ leader: holder }), 'new leader observed');
    this.callback('onNewLeader', () => this.options.onNewLeader?.(holder));
  }

  private callback(name: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.logger.error(this.fields({ err, callback: name }), 'leader election callback threw');
    }
  }

  private fields(extra: LogFields = {}): LogFields {
    return { lease: this.lock.describe(), identity: this.lock.identity, ...extra };
  }
}

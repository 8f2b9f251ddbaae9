/**
 * The lock leader election takes: a coordination.k8s.io/v1 Lease read and
 * written through the client with optimistic concurrency (client-go's
 * `resourcelock.LeaseLock`).
 */
import type * as coordinationv1 from 'kubernetes-types/coordination/v1.js';
import { Lease, type Typed } from '../builtins.js';
import type { Client } from '../client/client.js';
import { isNotFound } from '../client/api-error.js';
import { microTime } from '../time.js';

/**
 * The spec of a coordination.k8s.io/v1 Lease. Times are `MicroTime` strings
 * (RFC 3339 with microseconds).
 *
 * @example
 * ```ts
 * import type { LeaseSpec } from '@operant/runtime';
 *
 * const spec: LeaseSpec = { holderIdentity: 'host_1b4e', leaseDurationSeconds: 15, renewTime: '2025-01-01T00:00:00.000000Z', leaseTransitions: 0 };
 * ```
 */
export type LeaseSpec = coordinationv1.LeaseSpec;

/**
 * A coordination.k8s.io/v1 Lease, as the built-in {@link Lease} kind reads it.
 *
 * @example
 * ```ts
 * import { Lease, type LeaseObject } from '@operant/runtime';
 *
 * const lease: LeaseObject = await client.get(Lease, 'my-operator', { namespace: 'default' });
 * console.log(lease.spec?.holderIdentity);
 * ```
 */
export type LeaseObject = Typed<coordinationv1.Lease>;

/**
 * What a lock holds, as client-go's `LeaderElectionRecord`. An empty
 * `holderIdentity` means nobody holds it (it was released).
 *
 * @example
 * ```ts
 * import type { LeaderElectionRecord } from '@operant/runtime';
 *
 * const now = new Date();
 * const record: LeaderElectionRecord = { holderIdentity: 'host_1b4e', leaseDurationSeconds: 15, acquireTime: now, renewTime: now, leaderTransitions: 0 };
 * ```
 */
export interface LeaderElectionRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime: Date;
  renewTime: Date;
  leaderTransitions: number;
}

/**
 * A record as read, with its raw form: two reads with the same `raw` mean nobody wrote in between.
 *
 * @example
 * ```ts
 * import { leaderIdentity, LeaseLock, type LockState } from '@operant/runtime';
 *
 * const lock = new LeaseLock(client, { name: 'my-operator', namespace: 'default', identity: leaderIdentity() });
 * const before: LockState | undefined = await lock.get();
 * const after: LockState | undefined = await lock.get();
 * if (after && after.raw !== before?.raw) console.log('the holder renewed or changed');
 * ```
 */
export interface LockState {
  record: LeaderElectionRecord;
  raw: string;
}

/**
 * Where a leader-election record lives (client-go's `resourcelock.Interface`).
 * Writes are conditional on the last read or write: a concurrent writer makes them fail.
 *
 * @example
 * ```ts
 * import { leaderIdentity, LeaseLock, type ResourceLock } from '@operant/runtime';
 *
 * const lock: ResourceLock = new LeaseLock(client, { name: 'my-operator', namespace: 'default', identity: leaderIdentity() });
 * ```
 */
export interface ResourceLock {
  /** Who this process is. */
  readonly identity: string;
  /** `namespace/name`, for logs. */
  describe(): string;
  /** The current record, or undefined when the lock object does not exist. */
  get(signal?: AbortSignal): Promise<LockState | undefined>;
  /** Creates the lock object with `record`; fails if it exists. */
  create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<LockState>;
  /** Replaces the record; fails if the object changed since this lock last read or wrote it. */
  update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<LockState>;
}

/**
 * Options of {@link LeaseLock}.
 *
 * @example
 * ```ts
 * import { leaderIdentity, type LeaseLockOptions } from '@operant/runtime';
 *
 * const options: LeaseLockOptions = { name: 'my-operator', namespace: 'operators', identity: leaderIdentity() };
 * ```
 */
export interface LeaseLockOptions {
  name: string;
  namespace: string;
  identity: string;
}

/**
 * A {@link ResourceLock} on a Lease.
 *
 * @example
 * ```ts
 * import { leaderIdentity, LeaseLock } from '@operant/runtime';
 *
 * const lock = new LeaseLock(client, { name: 'my-operator', namespace: 'default', identity: leaderIdentity() });
 * const current = await lock.get();
 * console.log(current?.record.holderIdentity ?? 'no lease yet');
 * ```
 */
export class LeaseLock implements ResourceLock {
  readonly identity: string;
  private readonly name: string;
  private readonly namespace: string;
  private lease: LeaseObject | undefined;

  constructor(
    private readonly client: Client,
    options: LeaseLockOptions,
  ) {
    this.name = options.name;
    this.namespace = options.namespace;
    this.identity = options.identity;
  }

  describe(): string {
    return `${this.namespace}/${this.name}`;
  }

  async get(signal?: AbortSignal): Promise<LockState | undefined> {
    try {
      this.lease = await this.client.get(Lease, this.name, { namespace: this.namespace, signal });
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
    return stateOf(this.lease);
  }

  async create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<LockState> {
    const lease: LeaseObject = { metadata: { name: this.name, namespace: this.namespace }, spec: recordToSpec(record) };
    this.lease = await this.client.create(Lease, lease, { namespace: this.namespace, signal });
    return stateOf(this.lease);
  }

  async update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<LockState> {
    if (!this.lease) throw new Error(`lease ${this.describe()} not read yet: call get or create first`);
    const next: LeaseObject = { ...this.lease, spec: recordToSpec(record) };
    this.lease = await this.client.update(Lease, next, { namespace: this.namespace, signal });
    return stateOf(this.lease);
  }
}

function stateOf(lease: LeaseObject): LockState {
  const spec = lease.spec ?? {};
  return { record: specToRecord(spec), raw: JSON.stringify(recordToSpec(specToRecord(spec))) };
}

/** A Lease spec holding `record` (client-go's `LeaderElectionRecordToLeaseSpec`). Internal. */
export function recordToSpec(record: LeaderElectionRecord): LeaseSpec {
  return {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    acquireTime: microTime(record.acquireTime),
    renewTime: microTime(record.renewTime),
    leaseTransitions: record.leaderTransitions,
  };
}

/** The record a Lease spec holds (client-go's `LeaseSpecToLeaderElectionRecord`); missing fields read as empty. Internal. */
export function specToRecord(spec: LeaseSpec): LeaderElectionRecord {
  return {
    holderIdentity: spec.holderIdentity ?? '',
    leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
    acquireTime: parseTime(spec.acquireTime),
    renewTime: parseTime(spec.renewTime),
    leaderTransitions: spec.leaseTransitions ?? 0,
  };
}

function parseTime(text: string | undefined): Date {
  const ms = text ? Date.parse(text) : NaN;
  return new Date(Number.isNaN(ms) ? 0 : ms);
}

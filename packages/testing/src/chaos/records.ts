/**
 * What a fault proxy remembers: a timeline of faults starting, ending and
 * hitting requests, and the writes that failed because of them. Times are
 * milliseconds since the proxy started.
 */
import type { Fault } from './faults.js';
import type { Verb } from './request-info.js';

/**
 * One line of the timeline.
 *
 * @example
 * ```ts
 * import type { FaultRecord } from '@operant/testing';
 *
 * const hit: FaultRecord = { at: 1520, type: 'hit', faultId: 3, fault: { kind: 'error', code: 503 }, request: 'list foos.samplecontroller.k8s.io', detail: 'answered 503' };
 * ```
 */
export interface FaultRecord {
  at: number;
  /**
   * A fault became active (`start`), stopped (`end`), acted on a request or,
   * for a cluster fault, on an object (`hit`), or was a cluster fault that
   * found nothing to act on (`miss`).
   */
  type: 'start' | 'end' | 'hit' | 'miss';
  /**
   * The fault's id on its proxy (`InjectedFault.id`, `#<id>` in the
   * timeline): the proxy numbers the faults put in force on it from 1, a
   * schedule's and those injected beside it alike, so that no two share
   * one. It is not the fault's place in its schedule
   * (`ScheduledFault.index`): a report tells its schedule's faults from
   * others by these ids.
   */
  faultId: number;
  fault: Fault;
  /** The request hit, e.g. `create deployments.apps team-a/web`. */
  request?: string;
  /** What happened to it, e.g. `answered 503`, `cut after 3 events`. */
  detail?: string;
}

/**
 * A write (create, update, patch, delete, deletecollection) the client was told failed.
 *
 * @example
 * ```ts
 * declare const proxy: import('@operant/testing').FaultProxy;
 * const lost = proxy.failedWrites.filter((w) => w.applied); // done by the server, reported failed to the client
 * ```
 */
export interface FailedWrite {
  at: number;
  verb: Verb;
  /** `deployments.apps`, `foos.samplecontroller.k8s.io`, `configmaps`. */
  resource: string;
  namespace?: string;
  /** The object's name (for a create, the one the server gave it when applied; `<generateName>*` otherwise). */
  name?: string;
  /** The id of the fault that made it fail, as in the timeline (`FaultRecord.faultId`). */
  faultId: number;
  fault: Fault;
  /** The server did the write (the fault came after it): a retry may do it twice. */
  applied: boolean;
  /** What the client saw: `503`, `connection reset`. */
  outcome: string;
}

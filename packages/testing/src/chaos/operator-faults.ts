/**
 * Operator faults: what the proxy cannot do itself, because it does not run
 * the operator. When a schedule plays one, the proxy hands it to the test's
 * handler, which strikes a process (the leading replica, with SIGKILL, or
 * with SIGTERM while a reconcile is in flight) and says what it struck; the
 * proxy records that in the timeline as a hit, or as a miss when there was
 * nothing to strike, so that a seed replays operator faults at the same
 * offsets as the others.
 */
import type { OperatorFault } from './faults.js';

/**
 * What an operator fault did: `target` names what was struck (`SIGKILL
 * replica-2 (pid 4242), the leader`); without one it is recorded as a miss,
 * with `detail` saying why.
 *
 * @example
 * ```ts
 * import type { OperatorFaultOutcome } from '@operant/testing';
 *
 * const missed: OperatorFaultOutcome = { detail: 'no replica leads' };
 * ```
 */
export interface OperatorFaultOutcome {
  target?: string;
  detail: string;
}

/**
 * Carries out an operator fault; `window` aborts when the fault's window
 * closes (a handler waiting for a reconcile gives up then).
 *
 * @example
 * ```ts
 * import type { OperatorFaultHandler } from '@operant/testing';
 * import type { ChildProcess } from 'node:child_process';
 *
 * declare function leader(): Promise<ChildProcess | undefined>; // the replica that holds the Lease
 * const operator: OperatorFaultHandler = async (fault) => {
 *   const child = await leader();
 *   if (!child) return { detail: 'no replica leads' };
 *   child.kill(fault.kind === 'kill-leader' ? 'SIGKILL' : 'SIGTERM');
 *   return { target: `pid ${child.pid}`, detail: fault.kind === 'kill-leader' ? 'killed' : 'terminated' };
 * };
 * ```
 */
export type OperatorFaultHandler = (fault: OperatorFault, window: AbortSignal) => Promise<OperatorFaultOutcome>;

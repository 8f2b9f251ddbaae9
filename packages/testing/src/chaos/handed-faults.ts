/**
 * Faults the proxy hands over, because it can do neither itself: operator
 * faults (it does not run the operator: the test's handler strikes a process,
 * the leading replica with SIGKILL, or with SIGTERM while a reconcile is in
 * flight) and server faults (it does not run the API server: the test
 * environment that does restarts it). When a schedule plays one, the proxy
 * calls the handler as the fault's window opens, with a signal that aborts as
 * it closes, and records what it struck as a hit, or a miss when there was
 * nothing to strike, so that a seed replays these at the same offsets as the
 * others.
 */
import type { OperatorFault, ServerFault } from './faults.js';

/**
 * What a handed-over fault did: `target` names what was struck (`SIGKILL
 * replica-2 (pid 4242), the leader`); without one it is recorded as a miss,
 * with `detail` saying why.
 *
 * @example
 * ```ts
 * import type { FaultOutcome } from '@operant/testing';
 *
 * const missed: FaultOutcome = { detail: 'no replica leads' };
 * ```
 */
export interface FaultOutcome {
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
export type OperatorFaultHandler = (fault: OperatorFault, window: AbortSignal) => Promise<FaultOutcome>;

/**
 * Carries out a server fault: `restart-server` stops the API server when the
 * window opens and starts it again, with its data, when `window` aborts;
 * `compact` compacts its history. `env.faultProxy()` brings one.
 *
 * @example
 * ```ts
 * import type { ServerFaultHandler } from '@operant/testing';
 *
 * declare function stopServer(): Promise<void>;
 * declare function startServer(): Promise<void>;
 * const server: ServerFaultHandler = async (fault, window) => {
 *   if (fault.kind === 'compact') return { detail: 'this server cannot compact on demand' };
 *   await stopServer();
 *   await new Promise((resolve) => window.addEventListener('abort', resolve, { once: true }));
 *   await startServer();
 *   return { target: 'the API server', detail: 'down for the window' };
 * };
 * ```
 */
export type ServerFaultHandler = (fault: ServerFault, window: AbortSignal) => Promise<FaultOutcome>;

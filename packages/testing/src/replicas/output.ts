/**
 * What a replica's output tells, read a line at a time: that it took the
 * Lease, and which reconciles failed. An operator's leader election says
 * "successfully acquired lease" when it takes the Lease, in Operant's JSON
 * logs and in client-go's klog lines alike, so that line is what marks a
 * leader (its identity is then read from the Lease: client-go does not log
 * it). Reconcile errors are read from JSON log lines with
 * controller-runtime's messages (Operant's and zap's field names both).
 */
import type { ReconcileErrorRecord } from '../env/reconcile-errors.js';

/** What a replica's failed reconcile says, before the replica and the time are added. */
export type ReconcileErrorLine = Omit<ReconcileErrorRecord, 'at' | 'replica'>;

/** client-go's and Operant's words when an elector takes the Lease. */
export const acquiredLeaseLine = /successfully acquired lease/;

/** controller-runtime's messages for a failed reconcile (Operant's controller logs the same). */
const reconcileErrorMessages = new Set(['Reconciler error', 'Reconciler error (terminal, not retried)', 'Observed a panic in reconciler']);

/**
 * A reconcile error from a JSON log line of controller-runtime (zap: `error`
 * as a string) or Operant (pino: `err` as an object with a message); undefined
 * for any other line.
 *
 * @example
 * ```ts
 * import { controllerRuntimeReconcileError } from '@operant/testing';
 *
 * const line = '{"level":"error","msg":"Reconciler error","controller":"foo","namespace":"team-a","name":"web","error":"boom"}';
 * console.log(controllerRuntimeReconcileError(line)?.error); // boom
 * ```
 */
export function controllerRuntimeReconcileError(line: string): ReconcileErrorLine | undefined {
  const entry = jsonLine(line);
  if (!entry || typeof entry.msg !== 'string' || !reconcileErrorMessages.has(entry.msg)) return undefined;
  const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
  return {
    controller: text(entry.controller) ?? '(unnamed)',
    namespace: text(entry.namespace),
    name: text(entry.name),
    error: errorText(entry.err ?? entry.error),
    panic: entry.msg === 'Observed a panic in reconciler',
  };
}

/** A JSON object log line, or undefined for anything else (text, a partial line). */
export function jsonLine(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** An error as a log line carries it: a string, or an object with a message (pino's serializer). */
export function errorText(err: unknown): string {
  if (typeof err === 'string') return err;
  if (err !== null && typeof err === 'object' && typeof (err as { message?: unknown }).message === 'string') return (err as { message: string }).message;
  return err === undefined ? '' : JSON.stringify(err);
}

/** Splits a stream's chunks into lines, keeping a partial line until its end comes. */
export function lineReader(onLine: (line: string) => void): { chunk(data: Buffer): void; end(): void } {
  let partial = '';
  return {
    chunk(data) {
      const lines = (partial + data.toString()).split('\n');
      partial = lines.pop()!;
      for (const line of lines) onLine(line);
    },
    end() {
      if (partial) onLine(partial);
      partial = '';
    },
  };
}

/**
 * The reconcile errors of the operators a test environment runs, kept from
 * their log lines as they pass (the manager's logger is wrapped, and still
 * writes everything it wrote before), so that a failed `converges` can say
 * what the controllers last failed at, and a test can look at them.
 */
import { childLogger, type LogFields, type Logger, type LogMethods } from '@operant/runtime';

/**
 * One reconcile that failed, as its controller logged it.
 *
 * @example
 * ```ts
 * declare const running: import('@operant/testing').RunningManager;
 * for (const e of running.reconcileErrors()) console.log(`${e.controller} ${e.namespace}/${e.name}: ${e.error}`);
 * ```
 */
export interface ReconcileErrorRecord {
  /** When it was logged (`performance.now()`). */
  readonly at: number;
  readonly controller: string;
  readonly namespace?: string;
  readonly name?: string;
  /** The error's message. */
  readonly error: string;
  /** A panic in the reconciler, not an error it returned. */
  readonly panic: boolean;
  /** The replica process that logged it (`env.replicas`), when not a manager of this process. */
  readonly replica?: string;
}

/** The controller's messages for a failed reconcile (controller.ts). */
const errorMessages = new Set(['Reconciler error', 'Reconciler error (terminal, not retried)', 'Observed a panic in reconciler']);
/** How many are kept: the last ones are what a failure report needs. */
const kept = 50;

export class ReconcileErrorLog {
  private readonly records: ReconcileErrorRecord[] = [];

  /** A logger that writes everything to `inner` and keeps the reconcile errors that pass through it. */
  wrap(inner: LogMethods): Logger {
    return this.keeping(childLogger(inner, {}), {});
  }

  /** Keeps a record read elsewhere (a replica process's output). */
  add(record: ReconcileErrorRecord): void {
    this.records.push(record);
    if (this.records.length > kept) this.records.shift();
  }

  /** The errors kept, oldest first; with `since`, only those logged after it. */
  list(since = -Infinity): ReconcileErrorRecord[] {
    return this.records.filter((r) => r.at > since);
  }

  private keeping(inner: Logger, bindings: LogFields): Logger {
    return {
      debug: (fields, msg) => inner.debug(fields, msg),
      info: (fields, msg) => inner.info(fields, msg),
      warn: (fields, msg) => inner.warn(fields, msg),
      error: (fields, msg) => {
        if (errorMessages.has(msg)) this.keep({ ...bindings, ...fields }, msg);
        inner.error(fields, msg);
      },
      child: (more) => this.keeping(inner.child(more), { ...bindings, ...more }),
    };
  }

  private keep(fields: LogFields, msg: string): void {
    const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
    const err = fields.err;
    this.add({
      at: performance.now(),
      controller: text(fields.controller) ?? '(unnamed)',
      namespace: text(fields.namespace),
      name: text(fields.name),
      error: err instanceof Error ? err.message : String(err),
      panic: msg === 'Observed a panic in reconciler',
    });
  }
}

/** The records as a failure report's lines: the last `max` different ones, a repeated one once with its count. */
export function describeReconcileErrors(records: readonly ReconcileErrorRecord[], max = 5): string {
  const line = (r: ReconcileErrorRecord): string => {
    const key = r.name ? ` ${r.namespace ? `${r.namespace}/` : ''}${r.name}` : '';
    return `${r.replica ? `${r.replica} ` : ''}${r.controller}${key}: ${r.panic ? 'panic: ' : ''}${r.error}`;
  };
  // A failing reconcile is retried: its error comes again and again.
  const runs: Array<{ text: string; count: number }> = [];
  for (const r of records) {
    const text = line(r);
    const last = runs.at(-1);
    if (last?.text === text) last.count++;
    else runs.push({ text, count: 1 });
  }
  const shown = runs.slice(-max);
  const lines = shown.map((r) => `    ${r.text}${r.count > 1 ? ` (${r.count} times)` : ''}`);
  const more = runs.length > shown.length ? `, the last ${shown.length} of ${runs.length}` : '';
  return `  reconcile errors meanwhile (${records.length}${more}):\n${lines.join('\n')}`;
}

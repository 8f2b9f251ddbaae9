/**
 * What a chaos run tells: its seed first (to replay it), a timeline of the
 * faults (windows opening and closing, requests hit), and a summary: hits per
 * kind of fault and the writes that failed, those the server had done apart.
 */
import { allFaultKinds, describeFault, type FaultKind } from './faults.js';
import type { FailedWrite, FaultRecord } from './records.js';
import type { ChaosSchedule } from './schedule.js';

/**
 * The outcome of playing a schedule on a proxy. Times are milliseconds since
 * the schedule started.
 *
 * @example
 * ```ts
 * declare const report: import('@operant/testing').ChaosReport;
 * console.log(report.summary());
 * const duplicatesRisked = report.failedWrites.filter((w) => w.verb === 'create' && w.applied);
 * ```
 */
export interface ChaosReport {
  readonly seed: number;
  readonly schedule: ChaosSchedule;
  /** How long it ran (shorter than the schedule when stopped early). */
  readonly elapsedMs: number;
  readonly records: readonly FaultRecord[];
  readonly failedWrites: readonly FailedWrite[];
  /** Requests proxied while it ran. */
  readonly requests: number;
  /** One line per record. */
  timeline(): string;
  /** Counts per kind of fault, and the failed writes. */
  summary(): string;
  /**
   * The kinds of fault the schedule put in force that never struck: no window
   * of theirs acted on a request, an object or a process (a `hit` record).
   * Faults put in force beside the schedule (a handler's held write) do not
   * count. A run that means to prove every kind asserts this is empty.
   *
   * @example
   * ```ts
   * import assert from 'node:assert/strict';
   *
   * declare const report: import('@operant/testing').ChaosReport;
   * assert.deepEqual(report.unstruck(), [], `a kind of fault never struck:\n${report.summary()}`);
   * ```
   */
  unstruck(): FaultKind[];
}

const seconds = (ms: number): string => `+${(ms / 1000).toFixed(2)}s`;

/**
 * A record as one timeline line: `+1.42s  hit   #3 error: create deployments.apps team-a/web: answered 503`.
 *
 * @example
 * ```ts
 * import { FaultProxy, formatRecord } from '@operant/testing';
 * import { loadKubeConfig } from '@operant/runtime';
 *
 * // A live timeline, as `operant chaos` prints it.
 * const proxy = await FaultProxy.start({ upstream: await loadKubeConfig(), onRecord: (r) => console.log(formatRecord(r)) });
 * ```
 */
export function formatRecord(r: FaultRecord): string {
  const head = `${seconds(r.at).padStart(8)}  ${r.type.padEnd(5)} #${r.faultId}`;
  if (r.type === 'hit') return `${head} ${r.fault.kind}: ${r.request ?? ''}: ${r.detail ?? ''}`;
  return `${head} ${describeFault(r.fault)}${r.detail ? ` (${r.detail})` : ''}`;
}

/**
 * A failed write as one line: `+2.10s  create deployments.apps team-a/web-x7k2p: 504 (applied by the server)`.
 *
 * @example
 * ```ts
 * import { formatFailedWrite } from '@operant/testing';
 *
 * declare const report: import('@operant/testing').ChaosReport;
 * const repeatedCreates = report.failedWrites.filter((w) => w.applied && w.verb === 'create');
 * if (repeatedCreates.length > 0) console.log(`creates the operator may have repeated:\n${repeatedCreates.map(formatFailedWrite).join('\n')}`);
 * ```
 */
export function formatFailedWrite(w: FailedWrite): string {
  const object = [w.namespace, w.name].filter(Boolean).join('/');
  return `${seconds(w.at).padStart(8)}  ${w.verb} ${w.resource}${object ? ` ${object}` : ''}: ${w.outcome}${w.applied ? ' (applied by the server)' : ''}`;
}

/** What a report is made from: its data, without the views worked out from it. */
type ReportData = Omit<ChaosReport, 'timeline' | 'summary' | 'unstruck'>;

/** `windows`: the ids of the faults the schedule put in force (others in the records were injected beside it). */
export function makeReport(init: ReportData, windows: ReadonlySet<number>): ChaosReport {
  return {
    ...init,
    timeline: () => init.records.map(formatRecord).join('\n'),
    summary: () => summarize(init),
    unstruck: () => {
      const ours = init.records.filter((r) => windows.has(r.faultId));
      const struck = new Set(ours.filter((r) => r.type === 'hit').map((r) => r.fault.kind));
      const started = new Set(ours.filter((r) => r.type === 'start').map((r) => r.fault.kind));
      return allFaultKinds.filter((k) => started.has(k) && !struck.has(k));
    },
  };
}

function summarize(r: ReportData): string {
  const windows = new Map<FaultKind, number>();
  const hits = new Map<FaultKind, number>();
  for (const rec of r.records) {
    const map = rec.type === 'start' ? windows : rec.type === 'hit' ? hits : undefined;
    map?.set(rec.fault.kind, (map.get(rec.fault.kind) ?? 0) + 1);
  }
  const rows = allFaultKinds.filter((k) => windows.has(k) || hits.has(k)).map((k) => `  ${k.padEnd(15)} ${String(windows.get(k) ?? 0).padStart(4)} windows ${String(hits.get(k) ?? 0).padStart(6)} hits`);
  const applied = r.failedWrites.filter((w) => w.applied);
  return [
    `chaos summary: seed ${r.seed}, ran ${(r.elapsedMs / 1000).toFixed(1)} s of ${(r.schedule.duration / 1000).toFixed(1)} s, ${r.requests} requests proxied`,
    ...rows,
    `  failed writes: ${r.failedWrites.length}, of which ${applied.length} applied by the server (a retry may repeat them)`,
    ...applied.map((w) => `  ${formatFailedWrite(w)}`),
    `  replay: seed ${r.seed}`,
  ].join('\n');
}

/**
 * What a schedule did, for a failure report: the schedule as its play prints
 * it (the seed, then each fault at its offset), and, from a report of a play
 * that ended, the summary (windows and hits per kind, the failed writes).
 *
 * @example
 * ```ts
 * import { chaos, describePlayed } from '@operant/testing';
 *
 * console.log(describePlayed(chaos({ seed: 42, duration: 5_000 })));
 * // chaos schedule: seed 42, 5.00s, 9 faults
 * //   +  0.31s for   0.52s  error 503
 * //   ...
 * ```
 */
export function describePlayed(played: ChaosReport | ChaosSchedule): string {
  if (!('records' in played)) return played.describe();
  return `${played.schedule.describe()}\n${played.summary()}`;
}

/**
 * Playing a schedule on a proxy: each fault is put in force at its offset
 * and removed when its window closes, on timers from the moment the play
 * starts. The seed is printed first, whatever happens after, so that a
 * failing run can always be replayed.
 */
import type { InjectedFault } from './active-fault.js';
import type { OperatorFaultHandler } from './handed-faults.js';
import type { FaultProxy } from './proxy.js';
import { deriveSeed } from './prng.js';
import { makeReport, type ChaosReport } from './report.js';
import type { ChaosSchedule } from './schedule.js';

/**
 * Options of {@link FaultProxy.play}.
 *
 * @example
 * ```ts
 * import type { PlayOptions } from '@operant/testing';
 *
 * const ac = new AbortController();
 * const options: PlayOptions = { signal: ac.signal, log: (line) => console.log(line) };
 * ```
 */
export interface PlayOptions {
  /** Stops the schedule early (the faults in force are removed). */
  signal?: AbortSignal;
  /** Where the seed line goes; default standard error. */
  log?: (line: string) => void;
  /** Carries out the schedule's operator faults (see {@link OperatorFaultHandler}). */
  operator?: OperatorFaultHandler;
}

export async function playSchedule(proxy: FaultProxy, schedule: ChaosSchedule, options: PlayOptions = {}): Promise<ChaosReport> {
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  log(`chaos: seed ${schedule.seed}, ${(schedule.duration / 1000).toFixed(1)} s, ${schedule.entries.length} faults (replay: seed ${schedule.seed})`);
  const start = proxy.now();
  const firstRecord = proxy.records.length;
  const firstWrite = proxy.failedWrites.length;
  const firstRequest = proxy.requests;
  const timers: NodeJS.Timeout[] = [];
  const injected: InjectedFault[] = [];
  for (const entry of schedule.entries) {
    timers.push(
      setTimeout(() => {
        const f = proxy.inject(entry.fault, { seed: deriveSeed(schedule.seed, entry.index), operator: options.operator });
        injected.push(f);
        timers.push(setTimeout(() => f.remove(), entry.durationMs));
      }, entry.at),
    );
  }
  await new Promise<void>((resolve) => {
    const timer = setTimeout(finish, schedule.duration);
    function finish(): void {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', finish);
      resolve();
    }
    if (options.signal?.aborted) finish();
    else options.signal?.addEventListener('abort', finish, { once: true });
  });
  for (const t of timers) clearTimeout(t);
  for (const f of injected) f.remove();
  // A fault's aftermath (a restarted server coming back, a knob taken back) belongs to the schedule.
  await proxy.settled();
  const rebase = <T extends { at: number }>(x: T): T => ({ ...x, at: Math.max(0, Math.round(x.at - start)) });
  return makeReport({
    seed: schedule.seed,
    schedule,
    elapsedMs: proxy.now() - start,
    records: proxy.records.slice(firstRecord).map(rebase),
    failedWrites: proxy.failedWrites.slice(firstWrite).map(rebase),
    requests: proxy.requests - firstRequest,
  }, new Set(injected.map((f) => f.id)));
}

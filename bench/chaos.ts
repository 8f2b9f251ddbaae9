/**
 * The sample-controller under 60 s of every fault kind at once (issue 20):
 * the scenario of examples/sample-controller/test/chaos.apiserver.test.ts
 * (there 15 s), with the same seed, so that the long run begins with the
 * faults of the short one. Reports how long the Foos took to converge once
 * the faults stopped (against the one-second quiet period that convergence
 * needs at least), the faults put in force and their hits per kind, the
 * writes the proxy made fail, and the leader handovers. CHAOS_SEED replays
 * another seed.
 */
import { loadavg } from 'node:os';
import { allFaultKinds } from '@operant/testing';
import { runCombinedChaos } from '@operant/sample-controller/test/chaos-scenario.js';
import type { Row } from './table.js';

type Log = (text: string) => void;

const plain = (figure: string, ours: string, baseline = '', aim = ''): Row => ({ figure, ours, baseline, ratio: '', noise: '', aim });

export async function chaosSection(log: Log): Promise<Row[]> {
  const seed = Number(process.env.CHAOS_SEED ?? 20251234);
  const durationMs = 60_000;
  const convergeWithinMs = 120_000;
  log(`chaos: the sample-controller, 3 replicas, 3 simulated nodes, ${durationMs / 1000} s of every fault kind, seed ${seed}; load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  const result = await runCombinedChaos({ seed, durationMs, convergeWithinMs, maxFoos: 40, log: (line) => log(`  ${line}`) });
  const { report } = result;
  const converged = result.foos >= 0;
  log(`chaos: ${converged ? `${result.foos} Foos converged ${(result.convergedAfterMs / 1000).toFixed(1)} s after the faults stopped` : `not converged: ${result.problems.join('; ')}`}; load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);

  const windows = new Map<string, number>();
  const hits = new Map<string, number>();
  for (const r of report.records) {
    if (r.type === 'start') windows.set(r.fault.kind, (windows.get(r.fault.kind) ?? 0) + 1);
    if (r.type === 'hit') hits.set(r.fault.kind, (hits.get(r.fault.kind) ?? 0) + 1);
  }
  const applied = report.failedWrites.filter((w) => w.applied).length;
  const successors = result.leaders.slice(1);
  return [
    plain(
      `sample-controller: Foos converged after ${durationMs / 1000} s of every fault kind (seed ${seed})`,
      converged ? `${(result.convergedAfterMs / 1000).toFixed(1)} s` : `not within ${convergeWithinMs / 1000} s`,
      '1.0 s (the quiet period, the floor)',
      '',
    ),
    plain('  Foos alive at the end, all with one Deployment, all replicas available', converged ? String(result.foos) : `${result.problems.length} problems`),
    plain('  faults put in force (windows), hits', `${report.schedule.entries.length} windows, ${[...hits.values()].reduce((a, b) => a + b, 0)} hits`, `${report.requests} requests proxied`),
    ...allFaultKinds.map((k) => plain(`    ${k}`, `${windows.get(k) ?? 0} windows, ${hits.get(k) ?? 0} hits`)),
    plain('  kinds that never struck (windows that acted on nothing)', report.unstruck().join(', ') || 'none', '', 'none'),
    plain('  writes the proxy failed', `${report.failedWrites.length}`, `${applied} of them applied by the server`),
    plain(
      '  replicas\' watches that met 410 Expired and relisted',
      String(result.processes.reduce((n, p) => n + p.relists, 0)),
      `${hits.get('expire') ?? 0} answered 410 by the proxy's expire, the others by the server (1,000-event history)`,
    ),
    plain('  leaders (Lease transitions)', `${result.leaders.length} (${result.leaseTransitions})`, `${result.processes.length} replica processes started`),
    plain('  successors that reconciled', `${successors.filter((p) => p.synced > 0).length} of ${successors.length}`),
  ];
}

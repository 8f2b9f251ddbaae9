/** What Linux's /proc tells about a process: its resident memory and CPU time. */
import { readdirSync, readFileSync } from 'node:fs';

/** The process's resident set size, bytes. */
export function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

/**
 * The CPU time a process has run so far, all its threads, ms, from the scheduler's
 * nanosecond counts (/proc/<pid>/task/<tid>/schedstat): fine enough for a start-up
 * of some tens of ms, which stat's 10 ms ticks are not. NaN without /proc.
 */
export function schedCpuMsOf(pid: number): number {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // A thread that ended meanwhile.
      }
    }
    return ns / 1e6;
  } catch {
    return NaN;
  }
}

/** The process's CPU time so far (user + system), ms. */
export function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of stat(5), in clock ticks (100 per second on Linux).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** The read and write system calls a process has made so far (/proc/<pid>/io's syscr and syscw); NaN without /proc. */
export function syscallsOf(pid: number): { reads: number; writes: number } {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(io)?.[1] ?? NaN);
    return { reads: field('syscr'), writes: field('syscw') };
  } catch {
    return { reads: NaN, writes: NaN };
  }
}

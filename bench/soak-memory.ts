/**
 * Where a process's resident memory is, from /proc/PID/smaps (BENCH_SOAK_DIAG=1
 * in the soak bench): glibc's main heap (`[heap]`, what the main thread mallocs
 * below the mmap threshold), the 64 MiB-aligned heaps of glibc's other arenas
 * (other threads' mallocs), other anonymous memory (V8's pages, large mmapped
 * chunks, stacks) and file-backed memory (code). With gdb on the machine it also
 * asks glibc what of its heaps is in use (malloc_stats), and, with
 * BENCH_SOAK_TRIM=1, what malloc_trim(0) would give back: so a figure tells
 * memory the allocator keeps free from memory still allocated.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface SmapsBreakdown {
  /** glibc's main arena (brk heap). */
  brkHeap: number;
  /** glibc's other arenas (64 MiB-aligned anonymous heaps). */
  arenas: number;
  /** Other anonymous memory: V8's pages, mmapped chunks, stacks. */
  otherAnon: number;
  /** File-backed memory (code, mapped files). */
  file: number;
  total: number;
  /** The largest resident mappings of other anonymous memory: [start address, size, resident] bytes. */
  largestOther: Array<[string, number, number]>;
}

const arenaAlign = 64 * 1024 * 1024;

/** The process's resident memory by kind of mapping. */
export function smapsBreakdown(pid: number): SmapsBreakdown {
  const text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  const out: SmapsBreakdown = { brkHeap: 0, arenas: 0, otherAnon: 0, file: 0, total: 0, largestOther: [] };
  let current: [string, number, number] = ['', 0, 0];
  let kind: keyof SmapsBreakdown = 'otherAnon';
  let arenaStart = -1;
  for (const line of text.split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (head) {
      const start = Number.parseInt(head[1]!, 16);
      const name = head[4]!;
      const inode = head[3]!;
      if (name === '[heap]') kind = 'brkHeap';
      else if (inode !== '0' || name.startsWith('/')) kind = 'file';
      // A glibc arena's heap starts on a 64 MiB boundary (its header), and its tail (PROT_NONE) follows it.
      else if (name === '' && (start % arenaAlign === 0 || start - arenaStart < arenaAlign)) {
        if (start % arenaAlign === 0) arenaStart = start;
        kind = 'arenas';
      } else kind = 'otherAnon';
      current = [head[1]!, Number.parseInt(head[2]!, 16) - start, 0];
      if (kind === 'otherAnon') out.largestOther.push(current);
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) {
      const bytes = Number(rss[1]) * 1024;
      out[kind] += bytes;
      out.total += bytes;
      current[2] = bytes;
    }
  }
  out.largestOther = out.largestOther.sort((a, b) => b[2] - a[2]).slice(0, 12);
  return out;
}

/** glibc's own account of its arenas (malloc_stats, written to the process's stderr), via gdb; undefined without gdb. */
export function mallocStats(pid: number, trim: boolean): string | undefined {
  const args = ['-p', String(pid), '-batch', '-ex', 'call (void)malloc_stats()'];
  if (trim) args.push('-ex', 'call (int)malloc_trim(0)', '-ex', 'call (void)malloc_stats()');
  try {
    execFileSync('gdb', args, { stdio: 'ignore', timeout: 30_000 });
    return 'written';
  } catch {
    return undefined;
  }
}

const mib = (n: number): string => `${(n / 1024 / 1024).toFixed(1)}`;

export function formatBreakdown(b: SmapsBreakdown): string {
  const other = process.env.BENCH_SOAK_MAPS === '1' ? `\n    largest other anon (start size/rss KiB): ${b.largestOther.map(([a, size, rss]) => `${a} ${size >> 10}/${rss >> 10}`).join(', ')}` : '';
  return `rss ${mib(b.total)} = brk heap ${mib(b.brkHeap)} + arenas ${mib(b.arenas)} + other anon ${mib(b.otherAnon)} + file ${mib(b.file)} MiB${other}`;
}

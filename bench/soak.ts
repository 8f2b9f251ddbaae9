/**
 * `npm run bench soak` (issue 14): each attack the hardening issue found runs
 * for a bounded time against an `operant server` process while an ordinary
 * workload (one client GETting a ConfigMap in a loop) goes on beside it. For
 * each attack: the workload's GET p99 during it, against the same p99 idle
 * (aim: under 100 ms); the server's peak RSS during it (aim: under 1 GB); and
 * its RSS a moment after, against before (aim: back within 20%).
 *
 * "A moment" is long enough for the server's timed compaction (kube's
 * --etcd-compaction-interval) to drop the attack's events from the history:
 * two intervals. The bench shortens the interval from kube's 5m0s to the
 * length of an attack (BENCH_SOAK_COMPACTION: a Go duration, or `off` for
 * the server's default), and says so in its output. BENCH_SOAK_SETTLE_MS
 * sets the wait instead.
 *
 * The server runs with --expose-gc and a hook (soak-gc-hook.cjs) that, when
 * the bench asks, forces a full collection and reports the heap, the buffers
 * and RSS around it. Each attack's "before" is measured after one: so the
 * figures tell memory we still reference (heap or buffers up after a forced
 * collection) from memory only waiting for V8's next collection (down after
 * it) and from memory the allocator keeps (RSS up while heap and buffers are
 * down).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:https';
import { fileURLToPath } from 'node:url';
import { Client, readKubeconfig, type Endpoint } from './client.js';
import { cliMain, spawnReady, type ReadyProcess } from './processes.js';
import { formatBreakdown, mallocStats, smapsBreakdown } from './soak-memory.js';
import { fmt, type Row } from './table.js';

type Log = (text: string) => void;

const ns = 'soak';
const cm = `/api/v1/namespaces/${ns}/configmaps`;
const attackMs = Number(process.env.BENCH_SOAK_MS ?? 4_000);
/** The server's --etcd-compaction-interval here (kube's default is 5m0s); `off` leaves the default. */
const compaction = process.env.BENCH_SOAK_COMPACTION ?? `${attackMs}ms`;
/** Milliseconds of that interval, for the pause after an attack (a Go duration of ms, s or m: what the bench is given). */
function compactionMs(): number | undefined {
  if (compaction === 'off') return undefined;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(compaction);
  if (!m) throw new Error(`BENCH_SOAK_COMPACTION: ${compaction}: expected e.g. 4000ms, 4s, 1m, or off`);
  return Number(m[1]) * { ms: 1, s: 1_000, m: 60_000 }[m[2] as 'ms' | 's' | 'm'];
}

/** BENCH_SOAK_ONLY: a regular expression; only the attacks whose names match run. */
const only = process.env.BENCH_SOAK_ONLY === undefined ? undefined : new RegExp(process.env.BENCH_SOAK_ONLY, 'i');
/** BENCH_SOAK_DIAG=1: log where the server's memory is (smaps, V8's spaces, glibc's arenas) around each attack. */
const diag = process.env.BENCH_SOAK_DIAG === '1';
/** BENCH_SOAK_TRIM=1 (with BENCH_SOAK_DIAG): after each forced collection, malloc_trim(0) through gdb, to see what glibc keeps free. */
const trim = process.env.BENCH_SOAK_TRIM === '1';

interface MemoryUsage {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

/** `operant server` with the forced-collection hook (soak-gc-hook.cjs) preloaded. */
function startSoakServer(kubeconfig: string): Promise<ReadyProcess> {
  const hook = fileURLToPath(new URL('./soak-gc-hook.cjs', import.meta.url));
  const args = ['--expose-gc', '--require', hook, cliMain, 'server', '--port', '0', '--kubeconfig', kubeconfig];
  if (compaction !== 'off') args.push('--etcd-compaction-interval', compaction);
  return spawnReady(process.execPath, args);
}

/** Asks the server for a forced collection; its memory before and after (RSS after from /proc, once it is done). */
interface Collection {
  before: MemoryUsage;
  after: MemoryUsage;
  spacesBefore?: Record<string, [number, number]>;
  spacesAfter?: Record<string, [number, number]>;
}

async function forcedCollection(server: ReadyProcess): Promise<Collection> {
  const stderr = server.child.stderr!;
  const report = new Promise<Collection>((resolve) => {
    let text = '';
    const onData = (d: Buffer): void => {
      text += d.toString();
      const m = /^soak-gc (.*)$/m.exec(text);
      if (!m) return;
      stderr.off('data', onData);
      resolve(JSON.parse(m[1]!) as Collection);
    };
    stderr.on('data', onData);
  });
  server.child.kill('SIGUSR2');
  const c = await report;
  return { ...c, after: { ...c.after, rss: rss(server.child.pid!) } };
}

/** What glibc says of its arenas (malloc_stats through gdb), its totals: [system, in use] bytes; with `trimmed`, after malloc_trim(0) too. */
async function glibcTotals(server: ReadyProcess, withTrim: boolean): Promise<string> {
  const stderr = server.child.stderr!;
  let text = '';
  const onData = (d: Buffer): void => void (text += d.toString());
  stderr.on('data', onData);
  const pid = server.child.pid!;
  const rssBefore = rss(pid);
  if (mallocStats(pid, withTrim) === undefined) {
    stderr.off('data', onData);
    return 'no gdb';
  }
  await new Promise((r) => setTimeout(r, 300));
  stderr.off('data', onData);
  const totals = [...text.matchAll(/Total \(incl\. mmap\):\s*system bytes\s*=\s*(\d+)\s*in use bytes\s*=\s*(\d+)/g)].map((m) => `system ${mb(Number(m[1]))}, in use ${mb(Number(m[2]))}`);
  const arenas = (text.match(/^Arena \d+:/gm) ?? []).length;
  return `glibc (${arenas / (withTrim ? 2 : 1)} arenas): ${totals[0] ?? '?'}${withTrim ? `; malloc_trim(0): RSS ${mb(rssBefore)} -> ${mb(rss(pid))}, ${totals[1] ?? '?'}` : ''}`;
}

const mb = (n: number): string => `${(n / 1024 / 1024).toFixed(1)} MiB`;

function diagLine(label: string, server: ReadyProcess, c?: Collection): string {
  const b = formatBreakdown(smapsBreakdown(server.child.pid!));
  const sp = (s?: Record<string, [number, number]>) =>
    s ? Object.entries(s).filter(([, [size]]) => size > 0.5).map(([n, [size, used]]) => `${n.replace('_space', '')} ${size}/${used}`).join(', ') : '';
  const mem = (m: MemoryUsage) => `heapTotal ${mb(m.heapTotal)}, heapUsed ${mb(m.heapUsed)}, external ${mb(m.external)}, arrayBuffers ${mb(m.arrayBuffers)}`;
  return c ? `${label}: ${b}\n    before GC: ${mem(c.before)}; spaces MiB committed/used: ${sp(c.spacesBefore)}\n    after GC:  ${mem(c.after)}; spaces: ${sp(c.spacesAfter)}` : `${label}: ${b}`;
}

/** The server's resident memory now, from /proc. */
function rss(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

function quantile(xs: number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

/** The workload: sequential GETs of one ConfigMap for `ms`; their latencies. */
async function workload(client: Client, ms: number): Promise<number[]> {
  const times: number[] = [];
  const until = performance.now() + ms;
  while (performance.now() < until) {
    const t = performance.now();
    const r = await client.send('GET', `${cm}/probe`);
    if (r.status !== 200) throw new Error(`probe GET: ${r.status}`);
    times.push(performance.now() - t);
  }
  return times;
}

/**
 * The workload runs in a process of its own (this file forked with `--probe`),
 * so its GETs never wait while the attacker's process encrypts or decrypts the
 * attack: the figure is the server's latency, not the bench's.
 */
class Probe {
  private constructor(private readonly child: ChildProcess) {}

  static async start(kubeconfig: string): Promise<Probe> {
    const child = fork(fileURLToPath(import.meta.url), ['--probe', kubeconfig], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    await once(child, 'message');
    return new Probe(child);
  }

  /** GETs for `ms` in the probe's process; their latencies. */
  async run(ms: number): Promise<number[]> {
    this.child.send({ ms });
    const [reply] = (await once(this.child, 'message')) as [{ times?: number[]; error?: string }];
    if (reply.error !== undefined) throw new Error(reply.error);
    return reply.times ?? [];
  }

  async stop(): Promise<void> {
    const exited = once(this.child, 'exit');
    this.child.disconnect();
    await exited;
  }
}

/** The probe's side: one client, one workload per message. */
function serveProbe(kubeconfig: string): void {
  const client = new Client(readKubeconfig(kubeconfig), 1);
  process.on('message', (m: { ms: number }) => {
    workload(client, m.ms).then(
      (times) => process.send!({ times }),
      (e: unknown) => process.send!({ error: e instanceof Error ? e.message : String(e) }),
    );
  });
  process.on('disconnect', () => {
    client.close();
    process.exit(0);
  });
  process.send!({ ready: true });
}

/** Runs `attack` in loops of `concurrency` until the deadline (errors are the attack's business). */
async function repeat(ms: number, concurrency: number, attack: () => Promise<unknown>): Promise<void> {
  const until = performance.now() + ms;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) await attack().catch(() => undefined);
    }),
  );
}

/** A watch that never reads its response; closing destroys it. */
function unreadWatch(endpoint: Endpoint, path: string): Promise<{ close(): void }> {
  return new Promise((resolve) => {
    const req = request(new URL(path, endpoint.url), { ca: endpoint.caPem, headers: { authorization: `Bearer ${endpoint.token}` } });
    req.on('response', (res) => {
      res.pause();
      resolve({ close: () => req.destroy() });
    });
    req.on('error', () => resolve({ close: () => undefined }));
    req.end();
  });
}

/** A request whose body never ends. */
function endlessBody(endpoint: Endpoint): { close(): void } {
  const req = request(new URL(cm, endpoint.url), {
    method: 'POST',
    ca: endpoint.caPem,
    headers: { authorization: `Bearer ${endpoint.token}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
  });
  req.on('error', () => undefined);
  req.write('{"metadata":');
  return { close: () => req.destroy() };
}

interface Attack {
  name: string;
  run(ms: number): Promise<void>;
}

export async function soakSection(workDir: string, log: Log): Promise<Row[]> {
  const kubeconfig = join(workDir, 'soak-kubeconfig');
  const server: ReadyProcess = await startSoakServer(kubeconfig);
  const pid = server.child.pid!;
  // Should the server die under an attack, say how (its last words), rather than fail on /proc.
  let lastWords = '';
  server.child.stderr!.on('data', (d: Buffer) => (lastWords = (lastWords + d.toString()).slice(-4_000)));
  server.child.once('exit', (code, signal) => {
    if (code !== 0 && signal !== 'SIGTERM') log(`soak: the server exited (${code ?? signal}):\n${lastWords}`);
  });
  const endpoint = readKubeconfig(kubeconfig);
  const probe = await Probe.start(kubeconfig);
  const attacker = new Client(endpoint, 32);
  try {
    await attacker.ok('POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: ns } }));
    await attacker.ok('POST', cm, JSON.stringify({ metadata: { name: 'probe' }, data: { a: '1' } }));
    log('soak: 2,000 ConfigMaps of 10 KB for the list attack');
    for (let i = 0; i < 2_000; i += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, j) => attacker.ok('POST', cm, JSON.stringify({ metadata: { name: `bulk-${i + j}` }, data: { v: 'x'.repeat(10_000) } }))));
    }
    let churns = 0;
    /** Replaces the ConfigMap's 1 MB value with another. */
    const churn = (name: string) => attacker.send('PATCH', `${cm}/${name}`, JSON.stringify({ data: { v: `${churns++ % 10}`.repeat(1_000_000) } }), 'application/merge-patch+json');
    /** Creates a small ConfigMap; its resourceVersion. */
    const createSmall = async (name: string): Promise<string> =>
      (JSON.parse((await attacker.ok('POST', cm, JSON.stringify({ metadata: { name }, data: { v: '0' } }))).toString('utf8')) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const interval = compactionMs();

    const attacks: Attack[] = [
      { name: 'deeply nested YAML (1M [)', run: (ms) => repeat(ms, 4, () => attacker.send('POST', cm, '['.repeat(1_000_000), 'application/yaml')) },
      {
        name: 'YAML alias amplification',
        run: (ms) => repeat(ms, 4, () => attacker.send('POST', cm, `metadata:\n  name: amp\ndata:\n  a: &x "${'x'.repeat(570_000)}"\n${Array.from({ length: 99 }, (_, i) => `  k${i}: *x`).join('\n')}\n`, 'application/yaml')),
      },
      { name: 'objects over 1.5 MiB', run: (ms) => repeat(ms, 4, () => attacker.send('POST', cm, JSON.stringify({ metadata: { generateName: 'huge-' }, data: { v: 'x'.repeat(1_600_000) } }))) },
      {
        name: '1 MiB ConfigMap updated in a loop, then deleted',
        run: async (ms) => {
          await createSmall('churn');
          await repeat(ms, 2, () => churn('churn'));
          await attacker.send('DELETE', `${cm}/churn`);
        },
      },
      {
        name: '50 watches from an old resourceVersion that never read',
        run: async (ms) => {
          // A history of 1 MiB events of its own to replay, written in under one compaction interval, so that
          // it is all still kept when the watches start (an event lives one to two intervals).
          const from = await createSmall('replay');
          const started = performance.now();
          await repeat(Math.min(ms, interval ?? ms) / 2, 2, () => churn('replay'));
          const watches = await Promise.all(Array.from({ length: 50 }, () => unreadWatch(endpoint, `${cm}?watch=1&resourceVersion=${from}`)));
          await new Promise((r) => setTimeout(r, Math.max(0, ms - (performance.now() - started))));
          for (const w of watches) w.close();
          await attacker.send('DELETE', `${cm}/replay`);
        },
      },
      { name: '10 concurrent lists of 20 MB', run: (ms) => repeat(ms, 10, () => attacker.send('GET', cm)) },
      {
        name: '2,000 watches and writes',
        run: async (ms) => {
          // Watches from now (as informers watch after their list), as the issue's 5,000 watches were.
          const now = (JSON.parse((await attacker.ok('GET', `${cm}?limit=1`)).toString('utf8')) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
          const watches = await Promise.all(Array.from({ length: 2_000 }, () => attacker.watch(`${cm}?watch=1&resourceVersion=${now}`, () => undefined).catch(() => ({ close: () => undefined }))));
          await attacker.send('POST', cm, JSON.stringify({ metadata: { name: 'churn-small' } }));
          let n = 0;
          await repeat(ms, 4, () => attacker.send('PATCH', `${cm}/churn-small`, JSON.stringify({ data: { n: String(n++) } }), 'application/merge-patch+json'));
          for (const w of watches) w.close();
        },
      },
      {
        name: '200 request bodies that never end',
        run: async (ms) => {
          const bodies = Array.from({ length: 200 }, () => endlessBody(endpoint));
          await new Promise((r) => setTimeout(r, ms));
          for (const b of bodies) b.close();
        },
      },
    ];

    log('soak: idle');
    await probe.run(500);
    const idle = quantile(await probe.run(attackMs), 0.99);
    // A moment to let go of what an attack made the server hold: its events leave the history within two compaction intervals.
    // BENCH_SOAK_SETTLE_MS waits longer, to see whether V8 and the allocator give memory back on their own.
    const settleMs = Number(process.env.BENCH_SOAK_SETTLE_MS ?? Math.max(1_500, interval === undefined ? 0 : 2 * interval + 500));
    const rows: Row[] = [
      {
        figure: 'Soak: server settings',
        ours: `--etcd-compaction-interval ${compaction === 'off' ? "5m0s (the default: no compaction during the bench)" : `${compaction} (shortened from kube's 5m0s, to observe recovery)`}; --expose-gc`,
        baseline: `RSS after measured ${fmt.ms(settleMs)} after each attack; before, after a forced collection`,
        ratio: '',
        noise: '',
        aim: '',
      },
    ];
    let heapBefore = (await forcedCollection(server)).after;
    if (diag) log(`soak diag: ${diagLine('start', server)}; ${await glibcTotals(server, false)}`);
    for (const attack of attacks) {
      if (only && !only.test(attack.name)) continue;
      log(`soak: ${attack.name}`);
      const before = rss(pid);
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, rss(pid))), 50);
      const [times] = await Promise.all([probe.run(attackMs), attack.run(attackMs)]);
      clearInterval(sampler);
      peak = Math.max(peak, rss(pid));
      await new Promise((r) => setTimeout(r, settleMs));
      const after = rss(pid);
      if (diag) log(`soak diag: ${diagLine(`${attack.name}: settled`, server)}`);
      const collection = await forcedCollection(server);
      const { before: uncollected, after: collected } = collection;
      if (diag) log(`soak diag: ${diagLine(`${attack.name}: after a forced GC`, server, collection)}\n    ${await glibcTotals(server, trim)}`);
      const p99 = quantile(times, 0.99);
      const heap = (m: MemoryUsage) => `heap ${fmt.bytes(m.heapUsed)}, buffers ${fmt.bytes(m.arrayBuffers)}`;
      rows.push({
        figure: `Soak: ${attack.name}`,
        ours: `GET p99 ${fmt.ms(p99)}; RSS peak ${fmt.bytes(peak)}, after ${fmt.bytes(after)} (${heap(uncollected)}); after a forced GC: RSS ${fmt.bytes(collected.rss)}, ${heap(collected)}`,
        baseline: `GET p99 ${fmt.ms(idle)} idle; RSS before ${fmt.bytes(before)}, ${heap(heapBefore)}`,
        ratio: fmt.ratio(p99 / idle),
        noise: `${times.length} GETs`,
        aim: `p99 < 100 ms ${p99 < 100 ? '(met)' : '(missed)'}; peak < 1 GB ${peak < 1024 ** 3 ? '(met)' : '(missed)'}; after within 20% ${after <= before * 1.2 ? '(met)' : '(missed)'}${after > before * 1.2 ? (collected.rss <= before * 1.2 ? ' (met after a forced GC)' : ' (missed after a forced GC too)') : ''}`,
      });
      heapBefore = collected;
    }
    return rows;
  } finally {
    await probe.stop();
    attacker.close();
    await server.stop();
  }
}

const probeIndex = process.argv.indexOf('--probe');
if (probeIndex > 0) serveProbe(process.argv[probeIndex + 1]!);

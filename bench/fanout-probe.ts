/**
 * Diagnostic for the watch fan-out tail (issue 10 aim 4), not part of `bench/run.ts`:
 * runs fan-out rounds (as watch-fanout.ts) against `operant server` (the CLI
 * given) and the bare server, each started with --trace-gc and bench/stall-probe.mjs,
 * and lines the late deliveries (at or over the round's p99) up with:
 * - each server's GC pauses (wall time, from --trace-gc);
 * - each server's event-loop stalls over 8 ms, split into the main thread's CPU
 *   and its wait on the run queue (/proc/thread-self/schedstat);
 * - the bench process's own GC pauses and stalls (it decrypts 100 watch streams
 *   and times every line, so its stalls land in both servers' figures).
 * A late sample "meets" a pause or stall that ended within its [sent, arrived] window.
 * Also, per round: whether the late samples' creates were late at their first watcher already
 * (the whole event late) or only at some; the spread of one create's deliveries; the first
 * delivery against the POST's answer (negative: the watchers were written before the answer, as
 * the bare server does); lines per read (events one watcher's chunk carried); when in the round
 * the late samples arrived (by tenths, and the first 2 s); the heap after GC and RSS over the
 * round; the full collections (with V8's reason) in the round and since the server's previous
 * round, and the idle reclaimer's collections (stall-probe.mjs reports them).
 * With --clis several API servers (two builds, or one with FANOUT_PROBE_NO_RECLAIM=1 through
 * --server-env) are measured alike in one run, the order turning each round.
 *
 * Usage: node --conditions=source --import tsx bench/fanout-probe.ts [--cli PATH | --clis LABEL=PATH,...] [--rate N] [--rounds N]
 *   [--server-env "LABEL:NAME=value;..."]
 *   [--changes N] [--only ours|bare] [--server-flags "--max-semi-space-size=64 ..."]
 * (to run a server from source: --cli packages/cli/src/main.ts --server-flags "--conditions=source --import tsx").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver, monitorEventLoopDelay } from 'node:perf_hooks';
import { Client, closedLoop, readKubeconfig } from './client.js';
import { configMap } from './fixtures.js';
import { schedCpuMsOf } from './proc.js';
import { cliMain, repoRoot } from './processes.js';

const argv = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const cli = opt('cli') ?? cliMain;
/** Several API servers measured alike, `label=path-to-cli,...` (each path as --cli takes it): e.g. two builds. */
const clis: Array<[string, string]> = opt('clis')
  ? opt('clis')!.split(',').map((x) => x.split('=') as [string, string])
  : [['ours', cli]];
/** Extra environment for each labelled server, `label:NAME=value;...` (e.g. ours2:FANOUT_PROBE_NO_RECLAIM=1). */
const serverEnv = new Map<string, Record<string, string>>();
for (const item of (opt('server-env') ?? '').split(';').filter(Boolean)) {
  const [label, kv] = item.split(/:(.*)/s) as [string, string];
  const [k, v] = kv.split(/=(.*)/s) as [string, string];
  serverEnv.set(label, { ...(serverEnv.get(label) ?? {}), [k]: v });
}
const rate = opt('rate') ? Number(opt('rate')) : undefined;
const rounds = Number(opt('rounds') ?? '2');
const serverFlags = (opt('server-flags') ?? '').split(' ').filter(Boolean);
const only = opt('only');
const watchers = 100;
const changes = Number(opt('changes') ?? '10000');

interface Gc {
  /** performance.now() of the bench process when the line arrived (the GC's end, about). */
  at: number;
  ms: number;
  kind: string;
  /** Heap after it, MB (NaN for the client's). */
  after?: number;
  /** V8's reason, from --trace-gc. */
  reason?: string;
}

interface Stall {
  at: number;
  ms: number;
  cpu: number;
  wait: number;
}

interface Proc {
  child: ChildProcess;
  url: string;
  gcs: Gc[];
  stalls: Stall[];
  /** The idle reclaimer's collections (stall-probe.mjs), when their lines arrived. */
  reclaims: Array<{ at: number; what: string }>;
  stop(): Promise<void>;
}

function startTraced(args: string[], env?: NodeJS.ProcessEnv): Promise<Proc> {
  const child = spawn(process.execPath, ['--trace-gc', '--import', join(repoRoot, 'bench', 'stall-probe.mjs'), ...serverFlags, ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: env ?? process.env, cwd: repoRoot });
  const gcs: Gc[] = [];
  const stalls: Stall[] = [];
  const reclaims: Array<{ at: number; what: string }> = [];
  return new Promise((resolve, reject) => {
    let rest = '';
    let url: string | undefined;
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (d: string) => {
      const at = performance.now();
      const text = rest + d;
      const lines = text.split('\n');
      rest = lines.pop()!;
      for (const line of lines) {
        // [pid:0x...]   1234 ms: Scavenge 12.3 (20.1) -> 11.0 (21.1) MB, 1.23 / 0.00 ms  (average mu = ...
        const m = /ms: (Scavenge|Mark-Compact|Mark-sweep|Minor Mark-Sweep|Minor Mark-Compact)[^,]*, ([0-9.]+) \/ ([0-9.]+) ms/.exec(line);
        if (m) {
          const h = /-> ([0-9.]+) \(/.exec(line);
          const why = /mu = [0-9.]+, current mu = [0-9.]+\) (.*)$/.exec(line) ?? /ms  ?\(([^)]*)\)\s*(.*)$/.exec(line);
          gcs.push({ at, ms: Number(m[2]), kind: m[1]!, after: h ? Number(h[1]) : NaN, reason: why ? why[why.length - 1]!.trim() : '' });
        }
        const rc = /^reclaim (.*)$/.exec(line);
        if (rc) reclaims.push({ at, what: rc[1]! });
        const st = /^stall ([0-9.]+) cpu ([0-9.]+) wait ([0-9.]+)/.exec(line);
        if (st) stalls.push({ at, ms: Number(st[1]), cpu: Number(st[2]), wait: Number(st[3]) });
        const r = /^ready(?: (\S+))?$/.exec(line);
        if (r && url === undefined) {
          url = r[1] ?? '';
          resolve({
            child,
            url,
            gcs,
            stalls,
            reclaims,
            stop: async () => {
              child.kill('SIGTERM');
              await new Promise((res) => child.once('exit', res));
            },
          });
        }
      }
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}`)));
  });
}

/** VmRSS of a process, MB. */
const rssMb = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;

/** Where the previous round of each server ended (bench clock): what the server did in between is reported with the next. */
const lastRoundEnd = new Map<Proc, number>();

async function round(client: Client, collection: string, rv: string | undefined, tag: string, pid: number, server: Proc) {
  const n = watchers * changes;
  // Per sample: the create it carries, its watcher, when it was sent and arrived, and the chunk (data event) it came in.
  const sentAt = new Float64Array(n);
  const arrived = new Float64Array(n);
  const createOf = new Int32Array(n);
  const chunkOf = new Int32Array(n);
  const chunkLines = new Uint16Array(n);
  let chunks = 0;
  let received = 0;
  // Per create: when its POST was answered, and its first and last delivery.
  const ackAt = new Float64Array(changes).fill(NaN);
  const firstAt = new Float64Array(changes).fill(Infinity);
  const lastAt = new Float64Array(changes).fill(-Infinity);
  const query = `?watch=true${rv ? `&resourceVersion=${rv}` : ''}`;
  const pattern = /"sent":"([0-9.]+)"/;
  const namePattern = new RegExp(`"name":"${tag}-([0-9]+)"`);
  const streams = await Promise.all(
    Array.from({ length: watchers }, () => {
      let chunkAt = -1;
      let chunk = -1;
      return client.watch(`${collection}${query}`, (line, at) => {
        const m = pattern.exec(line);
        const nm = namePattern.exec(line);
        if (!m || !nm) return;
        if (at !== chunkAt) {
          chunkAt = at;
          chunk = chunks++;
        }
        const i = Number(nm[1]);
        const k = received++;
        sentAt[k] = Number(m[1]);
        arrived[k] = at;
        createOf[k] = i;
        chunkOf[k] = chunk;
        chunkLines[chunk]++;
        if (at < firstAt[i]!) firstAt[i] = at;
        if (at > lastAt[i]!) lastAt[i] = at;
      });
    }),
  );
  const clientGcs: Gc[] = [];
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) clientGcs.push({ at: e.startTime + e.duration, ms: e.duration, kind: String(((e as unknown as { detail?: { kind?: number } }).detail)?.kind ?? '') });
  });
  obs.observe({ entryTypes: ['gc'] });
  const lag = monitorEventLoopDelay({ resolution: 1 });
  lag.enable();
  const clientStalls: Stall[] = [];
  const readSs = () => readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ').map(Number);
  let cLast = performance.now();
  let [cCpu, cWait] = readSs();
  const cTimer = setInterval(() => {
    const now = performance.now();
    const [c, w] = readSs();
    if (now - cLast > 8) clientStalls.push({ at: now, ms: now - cLast, cpu: (c - cCpu) / 1e6, wait: (w - cWait) / 1e6 });
    cLast = now;
    cCpu = c;
    cWait = w;
  }, 2);
  const stallFrom = server.stalls.length;
  const gcFrom = server.gcs.length;
  const rss0 = rssMb(pid);
  const t0 = performance.now();
  const cpu0 = schedCpuMsOf(pid);
  const clientCpu0 = process.cpuUsage();
  await closedLoop(4, { total: changes }, async (_w, i) => {
    if (rate !== undefined) {
      const wait = t0 + (i * 1000) / rate - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    }
    await client.ok('POST', collection, configMap(`${tag}-${i}`, { sent: String(performance.now()) }));
    ackAt[i] = performance.now();
  });
  const deadline = performance.now() + 60_000;
  while (received < n && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  const t1 = performance.now();
  const cpuMs = schedCpuMsOf(pid) - cpu0;
  const clientCpu = process.cpuUsage(clientCpu0);
  const rss1 = rssMb(pid);
  lag.disable();
  clearInterval(cTimer);
  const serverStalls = server.stalls.slice(stallFrom).filter((g) => g.at >= t0 && g.at <= t1);
  obs.disconnect();
  for (const s of streams) s.close();
  const lat = new Float64Array(received);
  for (let k = 0; k < received; k++) lat[k] = arrived[k]! - sentAt[k]!;
  const sorted = Float64Array.from(lat).sort();
  const p = (q: number): number => sorted[Math.ceil(q * sorted.length) - 1]!;
  const p99 = p(0.99);
  const serverGcs = server.gcs.slice(gcFrom).filter((g) => g.at >= t0 && g.at <= t1);
  // A late sample "meets" a GC when the GC ended inside its [sent, at] window.
  const lateIdx: number[] = [];
  for (let k = 0; k < received; k++) if (lat[k]! >= p99) lateIdx.push(k);
  const late = lateIdx.map((k) => ({ sent: sentAt[k]!, at: arrived[k]! }));
  const meets = (gcs: Gc[], minMs: number) => late.filter((s) => gcs.some((g) => g.ms >= minMs && g.at >= s.sent && g.at - g.ms <= s.at)).length / late.length;
  const meetsStall = (st: Stall[], pick: (x: Stall) => boolean) => late.filter((s) => st.some((g) => pick(g) && g.at >= s.sent && g.at - g.ms <= s.at)).length / late.length;
  const stallSum = (st: Stall[]) => `n=${st.length} wall=${st.reduce((a, g) => a + g.ms, 0).toFixed(0)} cpu=${st.reduce((a, g) => a + g.cpu, 0).toFixed(0)} wait=${st.reduce((a, g) => a + g.wait, 0).toFixed(0)} ms`;
  const sum = (gcs: Gc[]) => gcs.reduce((a, g) => a + g.ms, 0);
  const byKind = (gcs: Gc[]) => {
    const k: Record<string, { n: number; ms: number; max: number }> = {};
    for (const g of gcs) {
      const e = (k[g.kind] ??= { n: 0, ms: 0, max: 0 });
      e.n++;
      e.ms += g.ms;
      e.max = Math.max(e.max, g.ms);
    }
    return Object.entries(k).map(([kind, e]) => `${kind} n=${e.n} sum=${e.ms.toFixed(0)}ms max=${e.max.toFixed(1)}`).join('; ');
  };
  // Late windows: group late samples by arrival into 20 ms bins.
  const bins = new Map<number, number>();
  for (const s of late) bins.set(Math.floor((s.at - t0) / 20), (bins.get(Math.floor((s.at - t0) / 20)) ?? 0) + 1);
  const topBins = [...bins.entries()].sort((a, b) => b[1] - a[1]).slice(0, 6);
  const binInfo = topBins
    .map(([b, n]) => {
      const from = t0 + b * 20;
      const sg = serverGcs.filter((g) => g.at >= from - 60 && g.at <= from + 20).map((g) => `${g.kind[0]}${g.ms.toFixed(1)}@${(g.at - t0).toFixed(0)}`);
      const ss = serverStalls.filter((g) => g.at >= from - 60 && g.at <= from + 20).map((g) => `${g.ms.toFixed(0)}(c${g.cpu.toFixed(0)}/w${g.wait.toFixed(0)})@${(g.at - t0).toFixed(0)}`);
      const cs = clientStalls.filter((g) => g.at >= from - 60 && g.at <= from + 20).map((g) => `${g.ms.toFixed(0)}(c${g.cpu.toFixed(0)}/w${g.wait.toFixed(0)})@${(g.at - t0).toFixed(0)}`);
      const cg = clientGcs.filter((g) => g.at >= from - 60 && g.at <= from + 20).map((g) => `${g.ms.toFixed(1)}@${(g.at - t0).toFixed(0)}`);
      return `  bin ${b * 20}ms: ${n} late; server gc ${sg.join(',') || '-'}; client gc ${cg.join(',') || '-'}; server stalls ${ss.join(',') || '-'}; client stalls ${cs.join(',') || '-'}`;
    })
    .join('\n');
  // Whole events late or single watchers late: how many of the late samples' creates reached even
  // their first watcher at or over p99, and how far apart a create's first and last deliveries are.
  const lateCreates = new Set(lateIdx.map((k) => createOf[k]!));
  let wholeLate = 0;
  for (const k of lateIdx) if (firstAt[createOf[k]!]! - sentAt[k]! >= p99) wholeLate++;
  const spreads = Float64Array.from({ length: changes }, (_, i) => lastAt[i]! - firstAt[i]!).sort();
  const lateSpreads = Float64Array.from([...lateCreates].map((i) => lastAt[i]! - firstAt[i]!)).sort();
  const med = (a: Float64Array): number => (a.length ? a[Math.floor(a.length / 2)]! : NaN);
  // The first delivery against the POST's answer: negative when the server wrote the watchers first (the bare server does).
  const firstVsAck = Float64Array.from({ length: changes }, (_, i) => firstAt[i]! - ackAt[i]!).sort();
  const firstVsSent: number[] = [];
  // Lines per data event the client read: overall, and for the late samples.
  const linesOverall = received / Math.max(1, chunks);
  const linesLate = lateIdx.reduce((a, k) => a + chunkLines[chunkOf[k]!]!, 0) / Math.max(1, lateIdx.length);
  // Late samples by the tenth of the round they arrived in (a slow start after idle shows in the first).
  const span = t1 - t0;
  const deciles = new Array<number>(10).fill(0);
  for (const s of late) deciles[Math.min(9, Math.floor(((s.at - t0) / span) * 10))]++;
  void firstVsSent;
  // Heap after GC (MB) at the round's first and last collection; what the server did since its previous round.
  const heapFirst = serverGcs.find((g) => !Number.isNaN(g.after ?? NaN))?.after ?? NaN;
  const heapLast = [...serverGcs].reverse().find((g) => !Number.isNaN(g.after ?? NaN))?.after ?? NaN;
  const since = lastRoundEnd.get(server) ?? -Infinity;
  const between = server.gcs.filter((g) => g.at > since && g.at < t0 && g.kind !== 'Scavenge');
  const reclaimsBetween = server.reclaims.filter((r) => r.at > since && r.at < t0).map((r) => r.what);
  const reclaimsIn = server.reclaims.filter((r) => r.at >= t0 && r.at <= t1).map((r) => `${r.what}@${(r.at - t0).toFixed(0)}`);
  lastRoundEnd.set(server, t1);
  const reasons = (gcs: Gc[]) => {
    const k = new Map<string, number>();
    for (const g of gcs) if (g.kind !== 'Scavenge') k.set(`${g.kind}: ${g.reason}`, (k.get(`${g.kind}: ${g.reason}`) ?? 0) + 1);
    return [...k].map(([r, c]) => `${c}x ${r}`).join(' | ') || '-';
  };
  const first2s = Float64Array.from(lat.filter((_, k) => arrived[k]! - t0 < 2000)).sort();
  const q = (a: Float64Array, x: number): number => a[Math.max(0, Math.ceil(x * a.length) - 1)] ?? NaN;
  return {
    line:
      `p50 ${p(0.5).toFixed(1)} p99 ${p99.toFixed(1)} max ${sorted[sorted.length - 1]!.toFixed(1)} ms; CPU ${((cpuMs * 1000) / n).toFixed(2)} us/event; ` +
      `client CPU ${(((clientCpu.user + clientCpu.system) / n)).toFixed(2)} us/event; rate ${((changes / span) * 1000).toFixed(0)}/s; ` +
      `server GC ${sum(serverGcs).toFixed(0)} ms [${byKind(serverGcs)}]; client GC ${sum(clientGcs).toFixed(0)} ms [${byKind(clientGcs)}]; ` +
      `client loop delay p99 ${(lag.percentile(99) / 1e6).toFixed(1)} max ${(lag.max / 1e6).toFixed(1)} ms; ` +
      `late samples whose window holds a server GC >=1ms ${(100 * meets(serverGcs, 1)).toFixed(0)}% >=3ms ${(100 * meets(serverGcs, 3)).toFixed(0)}%, a client GC >=1ms ${(100 * meets(clientGcs, 1)).toFixed(0)}%; ` +
      `server stalls ${stallSum(serverStalls)}, client stalls ${stallSum(clientStalls)}; late samples meeting a server stall ${(100 * meetsStall(serverStalls, () => true)).toFixed(0)}% (mostly waiting ${(100 * meetsStall(serverStalls, (g) => g.wait > g.cpu)).toFixed(0)}%), a client stall ${(100 * meetsStall(clientStalls, () => true)).toFixed(0)}% (mostly waiting ${(100 * meetsStall(clientStalls, (g) => g.wait > g.cpu)).toFixed(0)}%), either ${(100 * late.filter((s) => [...serverStalls, ...clientStalls].some((g) => g.at >= s.sent && g.at - g.ms <= s.at)).length / late.length).toFixed(0)}% (load ${loadavg()[0].toFixed(1)})`,
    detail:
      `  late: ${late.length} samples of ${lateCreates.size} creates; ${((100 * wholeLate) / late.length).toFixed(0)}% of them from creates whose first delivery was already late; ` +
      `first-to-last delivery spread median ${med(spreads).toFixed(1)} ms (late creates ${med(lateSpreads).toFixed(1)}), p99 ${q(spreads, 0.99).toFixed(1)} ms; ` +
      `first delivery minus POST answer p1/p50/p99 ${q(firstVsAck, 0.01).toFixed(1)}/${q(firstVsAck, 0.5).toFixed(1)}/${q(firstVsAck, 0.99).toFixed(1)} ms; ` +
      `lines per read ${linesOverall.toFixed(2)} (late samples' reads ${linesLate.toFixed(2)})\n` +
      `  late by tenth of the round: ${deciles.join(' ')}; first 2 s p50/p99 ${q(first2s, 0.5).toFixed(1)}/${q(first2s, 0.99).toFixed(1)} ms (${first2s.length} samples)\n` +
      `  server heap after GC ${heapFirst.toFixed(0)} -> ${heapLast.toFixed(0)} MB, RSS ${rss0.toFixed(0)} -> ${rss1.toFixed(0)} MB; full GCs in the round: ${reasons(serverGcs)}; reclaims in the round: ${reclaimsIn.join(', ') || '-'}\n` +
      `  since its previous round: full GCs ${reasons(between)}; reclaims ${reclaimsBetween.join(', ') || '-'}`,
    bins: binInfo,
  };
}

const work = mkdtempSync(join(tmpdir(), 'fanout-probe-'));
try {
  const collection = '/api/v1/namespaces/fanout/configmaps';
  const started: Array<{ label: string; proc: Proc; run: (tag: string) => Promise<Awaited<ReturnType<typeof round>>>; close(): void }> = [];
  if (only !== 'bare') {
    for (const [label, path] of clis) {
      const kc = join(work, `kc-${label}`);
      const proc = await startTraced([path, 'server', '--port', '0', '--kubeconfig', kc], { ...process.env, ...(serverEnv.get(label) ?? {}) });
      const c = new Client(readKubeconfig(kc), 4);
      await c.ok('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fanout' } }));
      const run = async (tag: string) => {
        const list = JSON.parse((await c.ok('GET', `${collection}?limit=1`)).toString('utf8')) as { metadata: { resourceVersion: string } };
        return round(c, collection, list.metadata.resourceVersion, tag, proc.child.pid!, proc);
      };
      started.push({ label, proc, run, close: () => c.close() });
    }
  }
  if (only !== 'ours') {
    // The bare server with the API server's certificate is not at hand: it gets its own self-signed pair from a data dir server.
    const pkiServer = await startTraced([clis[0]![1], 'server', '--port', '0', '--kubeconfig', join(work, 'kc2'), '--data-dir', join(work, 'data')]);
    await pkiServer.stop();
    const pki = join(work, 'data', 'pki');
    const bare = await startTraced(['--import', 'tsx', join(repoRoot, 'bench', 'bare-server.ts'), join(pki, 'apiserver.crt'), join(pki, 'apiserver.key')], { ...process.env, OPERANT_BARE_KUBE_FIELDS: '1' });
    const bc = new Client({ url: bare.url, caPem: readFileSync(join(pki, 'ca.crt'), 'utf8'), token: 'x' }, 4);
    started.unshift({ label: 'bare', proc: bare, run: (tag) => round(bc, collection, undefined, tag, bare.child.pid!, bare), close: () => bc.close() });
  }
  for (const s of started) await s.run(`warm${s.label}`);
  for (let r = 0; r < rounds; r++) {
    // The order turns each round, as the bench's alternates: each server sometimes runs right after its own round.
    const order = started.map((_, i) => started[(i + r) % started.length]!);
    for (const s of order) {
      const o = await s.run(`${s.label}${r}`);
      console.log(`round ${r + 1} ${s.label}: ${o.line}\n${o.detail}\n${o.bins}`);
    }
  }
  for (const s of started) s.close();
  for (const s of started) {
    s.proc.child.kill('SIGTERM');
    await new Promise((res) => (s.proc.child.exitCode !== null ? res(undefined) : s.proc.child.once('exit', res)));
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

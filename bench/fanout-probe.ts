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
 *
 * Usage: node --conditions=source --import tsx bench/fanout-probe.ts [--cli PATH] [--rate N] [--rounds N]
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
  stop(): Promise<void>;
}

function startTraced(args: string[], env?: NodeJS.ProcessEnv): Promise<Proc> {
  const child = spawn(process.execPath, ['--trace-gc', '--import', join(repoRoot, 'bench', 'stall-probe.mjs'), ...serverFlags, ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: env ?? process.env, cwd: repoRoot });
  const gcs: Gc[] = [];
  const stalls: Stall[] = [];
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
        if (m) gcs.push({ at, ms: Number(m[2]), kind: m[1]! });
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

interface Sample {
  sent: number;
  at: number;
}

async function round(client: Client, collection: string, rv: string | undefined, tag: string, pid: number, server: Proc) {
  const samples: Sample[] = new Array(watchers * changes);
  let received = 0;
  const query = `?watch=true${rv ? `&resourceVersion=${rv}` : ''}`;
  const pattern = /"sent":"([0-9.]+)"/;
  const streams = await Promise.all(
    Array.from({ length: watchers }, () =>
      client.watch(`${collection}${query}`, (line, at) => {
        const m = pattern.exec(line);
        if (m) samples[received++] = { sent: Number(m[1]), at };
      }),
    ),
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
  const t0 = performance.now();
  const cpu0 = schedCpuMsOf(pid);
  await closedLoop(4, { total: changes }, async (_w, i) => {
    if (rate !== undefined) {
      const wait = t0 + (i * 1000) / rate - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    }
    await client.ok('POST', collection, configMap(`${tag}-${i}`, { sent: String(performance.now()) }));
  });
  const deadline = performance.now() + 60_000;
  while (received < watchers * changes && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  const t1 = performance.now();
  const cpuMs = schedCpuMsOf(pid) - cpu0;
  lag.disable();
  clearInterval(cTimer);
  const serverStalls = server.stalls.slice(stallFrom).filter((g) => g.at >= t0 && g.at <= t1);
  obs.disconnect();
  for (const s of streams) s.close();
  const lat = samples.slice(0, received).map((s) => s.at - s.sent);
  const sorted = Float64Array.from(lat).sort();
  const p = (q: number): number => sorted[Math.ceil(q * sorted.length) - 1]!;
  const p99 = p(0.99);
  const serverGcs = server.gcs.slice(gcFrom).filter((g) => g.at >= t0 && g.at <= t1);
  // A late sample "meets" a GC when the GC ended inside its [sent, at] window.
  const late = samples.slice(0, received).filter((s) => s.at - s.sent >= p99);
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
  return {
    line:
      `p50 ${p(0.5).toFixed(1)} p99 ${p99.toFixed(1)} max ${sorted[sorted.length - 1]!.toFixed(1)} ms; CPU ${((cpuMs * 1000) / (watchers * changes)).toFixed(2)} us/event; ` +
      `server GC ${sum(serverGcs).toFixed(0)} ms [${byKind(serverGcs)}]; client GC ${sum(clientGcs).toFixed(0)} ms [${byKind(clientGcs)}]; ` +
      `client loop delay p99 ${(lag.percentile(99) / 1e6).toFixed(1)} max ${(lag.max / 1e6).toFixed(1)} ms; ` +
      `late samples whose window holds a server GC >=1ms ${(100 * meets(serverGcs, 1)).toFixed(0)}% >=3ms ${(100 * meets(serverGcs, 3)).toFixed(0)}%, a client GC >=1ms ${(100 * meets(clientGcs, 1)).toFixed(0)}%; ` +
      `server stalls ${stallSum(serverStalls)}, client stalls ${stallSum(clientStalls)}; late samples meeting a server stall ${(100 * meetsStall(serverStalls, () => true)).toFixed(0)}% (mostly waiting ${(100 * meetsStall(serverStalls, (g) => g.wait > g.cpu)).toFixed(0)}%), a client stall ${(100 * meetsStall(clientStalls, () => true)).toFixed(0)}% (mostly waiting ${(100 * meetsStall(clientStalls, (g) => g.wait > g.cpu)).toFixed(0)}%), either ${(100 * late.filter((s) => [...serverStalls, ...clientStalls].some((g) => g.at >= s.sent && g.at - g.ms <= s.at)).length / late.length).toFixed(0)}% (load ${loadavg()[0].toFixed(1)})`,
    bins: binInfo,
  };
}

const work = mkdtempSync(join(tmpdir(), 'fanout-probe-'));
try {
  const ours = await startTraced([cli, 'server', '--port', '0', '--kubeconfig', join(work, 'kc')]);
  const ep = readKubeconfig(join(work, 'kc'));
  const oc = new Client(ep, 4);
  // The bare server with the API server's certificate is not at hand: it gets its own self-signed pair from a data dir server.
  const pkiServer = await startTraced([cli, 'server', '--port', '0', '--kubeconfig', join(work, 'kc2'), '--data-dir', join(work, 'data')]);
  await pkiServer.stop();
  const pki = join(work, 'data', 'pki');
  const bare = await startTraced(['--import', 'tsx', join(repoRoot, 'bench', 'bare-server.ts'), join(pki, 'apiserver.crt'), join(pki, 'apiserver.key')], { ...process.env, OPERANT_BARE_KUBE_FIELDS: '1' });
  const bc = new Client({ url: bare.url, caPem: readFileSync(join(pki, 'ca.crt'), 'utf8'), token: 'x' }, 4);
  const collection = '/api/v1/namespaces/fanout/configmaps';
  await oc.ok('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fanout' } }));
  const oursRound = async (tag: string) => {
    const list = JSON.parse((await oc.ok('GET', `${collection}?limit=1`)).toString('utf8')) as { metadata: { resourceVersion: string } };
    return round(oc, collection, list.metadata.resourceVersion, tag, ours.child.pid!, ours);
  };
  const bareRound = (tag: string) => round(bc, collection, undefined, tag, bare.child.pid!, bare);
  if (only !== 'ours') await bareRound('warm');
  if (only !== 'bare') await oursRound('warm');
  for (let r = 0; r < rounds; r++) {
    if (only !== 'ours') {
      const b = await bareRound(`b${r}`);
      console.log(`round ${r + 1} bare: ${b.line}\n${b.bins}`);
    }
    if (only !== 'bare') {
      const o = await oursRound(`o${r}`);
      console.log(`round ${r + 1} ours: ${o.line}\n${o.bins}`);
    }
  }
  oc.close();
  bc.close();
  await ours.stop();
  await bare.stop();
} finally {
  rmSync(work, { recursive: true, force: true });
}

/**
 * A/B for the paced watch fan-out (issue 10 aim 4), not part of `bench/run.ts`: fan-out rounds
 * as watch-fanout.ts runs them (100 watchers, creates at one offered rate) against several builds
 * of `operant server` (each a CLI bin, as `--clis label=path,...` names them; a copy of
 * packages/cli/bin and dist/bundle with the packages' dist/ beside it runs as well) and the bare
 * server, in one run, the order turning each round. Per round: p50, p99, the server's CPU per
 * event delivered, the events per read of a watcher (several per read: the rounds batched, which
 * lowers CPU per event, so compare rounds alike), the context switches per create of the server's
 * main thread and of this process; then the medians. With --no-watch-creates N, also the server's
 * CPU per create with no watcher open (the create path alone, steadier under load).
 *
 * Usage: node --conditions=source --import tsx bench/fanout-ab.ts --clis a=PATH,b=PATH [--rate N] [--rounds N]
 *   [--changes N] [--no-watch-creates N] [--no-bare]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, closedLoop, readKubeconfig } from './client.js';
import { configMap } from './fixtures.js';
import { schedCpuMsOf } from './proc.js';
import { spawnReady, startBareServer, startOperant, type ReadyProcess } from './processes.js';

interface FanoutRun {
  p50: number;
  p99: number;
  writesPerSecond: number;
  serverCpuUsPerEvent: number;
  /** Events per read of a watcher (1: each event came on its own). */
  eventsPerRead: number;
  /** The server's context switches per create (voluntary: it slept in epoll and was woken). */
  serverSwitchesPerCreate: number;
  /** The bench process's voluntary context switches per create. */
  clientSwitchesPerCreate: number;
}

/** Voluntary context switches of a process (or `self`), from /proc. */
const switchesOf = (pid: number | 'self'): number => Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);

const sentPattern = /"sent":"([0-9.]+)"/;

/** watch-fanout.ts's round, also counting the reads (chunks) the watchers' events came in. */
async function fanout(client: Client, path: string, startRevision: string | undefined, opts: { watchers: number; changes: number; tag: string; serverPid: number; ratePerSecond: number }): Promise<FanoutRun> {
  const latencies = new Float64Array(opts.watchers * opts.changes);
  let received = 0;
  let reads = 0;
  const query = `?watch=true${startRevision ? `&resourceVersion=${startRevision}` : ''}`;
  const streams = await Promise.all(
    Array.from({ length: opts.watchers }, () => {
      let lastAt = -1;
      return client.watch(`${path}${query}`, (line, at) => {
        const m = sentPattern.exec(line);
        if (!m) return;
        if (at !== lastAt) {
          lastAt = at;
          reads++;
        }
        latencies[received++] = at - Number(m[1]);
      });
    }),
  );
  const expected = opts.watchers * opts.changes;
  try {
    const t0 = performance.now();
    const cpu0 = schedCpuMsOf(opts.serverPid);
    const sw0 = switchesOf(opts.serverPid);
    const csw0 = switchesOf('self');
    const writes = await closedLoop(4, { total: opts.changes }, async (_w, i) => {
      const wait = t0 + (i * 1000) / opts.ratePerSecond - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      await client.ok('POST', path, configMap(`${opts.tag}-${i}`, { sent: String(performance.now()) }));
    });
    const deadline = performance.now() + 60_000;
    while (received < expected && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    const serverCpuMs = schedCpuMsOf(opts.serverPid) - cpu0;
    const serverSwitches = switchesOf(opts.serverPid) - sw0;
    const clientSwitches = switchesOf('self') - csw0;
    if (received < expected) throw new Error(`watchers received ${received} of ${expected} events`);
    const sorted = latencies.sort();
    const at = (p: number): number => sorted[Math.ceil(p * sorted.length) - 1]!;
    return { p50: at(0.5), p99: at(0.99), writesPerSecond: writes.perSecond, serverCpuUsPerEvent: (serverCpuMs * 1000) / expected, eventsPerRead: received / reads, serverSwitchesPerCreate: serverSwitches / opts.changes, clientSwitchesPerCreate: clientSwitches / opts.changes };
  } finally {
    for (const s of streams) s.close();
  }
}

const argv = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const clis = (opt('clis') ?? '').split(',').filter(Boolean).map((x) => x.split('=') as [string, string]);
const rate = Number(opt('rate') ?? '600');
const rounds = Number(opt('rounds') ?? '3');
const changes = Number(opt('changes') ?? '10000');
const noWatchCreates = Number(opt('no-watch-creates') ?? '0');
const withBare = !argv.includes('--no-bare');
const collection = '/api/v1/namespaces/fanout/configmaps';

interface Side {
  label: string;
  proc: ReadyProcess;
  client: Client;
  startRevision: () => Promise<string | undefined>;
  runs: FanoutRun[];
  createCpuUs: number[];
}

const work = mkdtempSync(join(tmpdir(), 'fanout-ab-'));
const sides: Side[] = [];
try {
  for (const [label, cli] of clis) {
    const kc = join(work, `kc-${label}`);
    const proc = await spawnReady(process.execPath, [cli, 'server', '--port', '0', '--kubeconfig', kc]);
    const client = new Client(readKubeconfig(kc), 4);
    await client.ok('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fanout' } }));
    const startRevision = async () => (JSON.parse((await client.ok('GET', `${collection}?limit=1`)).toString('utf8')) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    sides.push({ label, proc, client, startRevision, runs: [], createCpuUs: [] });
  }
  if (withBare) {
    const pkiDir = join(work, 'pki-source');
    await (await startOperant(join(work, 'kc-pki'), pkiDir)).stop();
    const pki = join(pkiDir, 'pki');
    const proc = await startBareServer({ certFile: join(pki, 'apiserver.crt'), keyFile: join(pki, 'apiserver.key'), kubeFields: true });
    const client = new Client({ url: proc.url, caPem: readFileSync(join(pki, 'ca.crt'), 'utf8'), token: 'unused' }, 4);
    sides.push({ label: 'bare', proc, client, startRevision: async () => undefined, runs: [], createCpuUs: [] });
  }
  const run = async (s: Side, tag: string, r?: number): Promise<FanoutRun> =>
    fanout(s.client, collection, await s.startRevision(), { watchers: 100, changes, tag: `${s.label}-${tag}`, serverPid: s.proc.child.pid!, ratePerSecond: r ?? rate });
  /** Server CPU per create with no watcher, paced as the fan-out rounds. */
  const createsAlone = async (s: Side, tag: string): Promise<number> => {
    const t0 = performance.now();
    const cpu0 = schedCpuMsOf(s.proc.child.pid!);
    await closedLoop(4, { total: noWatchCreates }, async (_w, i) => {
      const wait = t0 + (i * 1000) / rate - performance.now();
      if (wait > 1) await new Promise((res) => setTimeout(res, wait));
      await s.client.ok('POST', collection, configMap(`${s.label}-${tag}-${i}`, { sent: String(performance.now()) }));
    });
    return ((schedCpuMsOf(s.proc.child.pid!) - cpu0) * 1000) / noWatchCreates;
  };
  for (const s of sides) await run(s, 'warm', rate);
  const fmt = (x: FanoutRun) => `p50 ${x.p50.toFixed(1)} p99 ${x.p99.toFixed(1)} ms CPU ${x.serverCpuUsPerEvent.toFixed(2)} us/event, ${x.eventsPerRead.toFixed(2)} events/read, switches/create server ${x.serverSwitchesPerCreate.toFixed(2)} bench ${x.clientSwitchesPerCreate.toFixed(2)} (${x.writesPerSecond.toFixed(0)}/s)`;
  for (let r = 0; r < rounds; r++) {
    const order = sides.map((_, i) => sides[(i + r) % sides.length]!);
    for (const s of order) {
      const x = await run(s, `r${r}`, rate);
      s.runs.push(x);
      let alone = '';
      if (noWatchCreates > 0) {
        const us = await createsAlone(s, `n${r}`);
        s.createCpuUs.push(us);
        alone = `; no watcher: ${us.toFixed(0)} us/create`;
      }
      console.log(`round ${r + 1} ${s.label}: ${fmt(x)}${alone} (load ${loadavg()[0].toFixed(1)})`);
    }
  }
  const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
  for (const s of sides) {
    console.log(
      `median ${s.label}: p50 ${med(s.runs.map((x) => x.p50)).toFixed(1)} p99 ${med(s.runs.map((x) => x.p99)).toFixed(1)} ms CPU ${med(s.runs.map((x) => x.serverCpuUsPerEvent)).toFixed(2)} us/event, ${med(s.runs.map((x) => x.eventsPerRead)).toFixed(2)} events/read, switches/create server ${med(s.runs.map((x) => x.serverSwitchesPerCreate)).toFixed(2)} bench ${med(s.runs.map((x) => x.clientSwitchesPerCreate)).toFixed(2)}` +
        (s.createCpuUs.length ? `; no watcher ${med(s.createCpuUs).toFixed(0)} us/create` : ''),
    );
  }
} finally {
  for (const s of sides) s.client.close();
  for (const s of sides) await s.proc.stop();
  rmSync(work, { recursive: true, force: true });
}

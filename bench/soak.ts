/**
 * `npm run bench soak` (issue 14): each attack the hardening issue found runs
 * for a bounded time against an `operant server` process while an ordinary
 * workload (one client GETting a ConfigMap in a loop) goes on beside it. For
 * each attack: the workload's GET p99 during it, against the same p99 idle
 * (aim: under 100 ms); the server's peak RSS during it (aim: under 1 GB); and
 * its RSS a moment after, against before (aim: back within 20%).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:https';
import { fileURLToPath } from 'node:url';
import { Client, readKubeconfig, type Endpoint } from './client.js';
import { startOperant, type ReadyProcess } from './processes.js';
import { fmt, type Row } from './table.js';

type Log = (text: string) => void;

const ns = 'soak';
const cm = `/api/v1/namespaces/${ns}/configmaps`;
const attackMs = Number(process.env.BENCH_SOAK_MS ?? 4_000);

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
  const server: ReadyProcess = await startOperant(kubeconfig);
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
    const big = await attacker.ok('POST', cm, JSON.stringify({ metadata: { name: 'churn' }, data: { v: '0' } }));
    const churnFrom = (JSON.parse(big.toString('utf8')) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    let churns = 0;
    const churn = () => attacker.send('PATCH', `${cm}/churn`, JSON.stringify({ data: { v: `${churns++ % 10}`.repeat(1_000_000) } }), 'application/merge-patch+json');

    const attacks: Attack[] = [
      { name: 'deeply nested YAML (1M [)', run: (ms) => repeat(ms, 4, () => attacker.send('POST', cm, '['.repeat(1_000_000), 'application/yaml')) },
      {
        name: 'YAML alias amplification',
        run: (ms) => repeat(ms, 4, () => attacker.send('POST', cm, `metadata:\n  name: amp\ndata:\n  a: &x "${'x'.repeat(570_000)}"\n${Array.from({ length: 99 }, (_, i) => `  k${i}: *x`).join('\n')}\n`, 'application/yaml')),
      },
      { name: 'objects over 1.5 MiB', run: (ms) => repeat(ms, 4, () => attacker.send('POST', cm, JSON.stringify({ metadata: { generateName: 'huge-' }, data: { v: 'x'.repeat(1_600_000) } }))) },
      { name: '1 MiB ConfigMap updated in a loop', run: (ms) => repeat(ms, 2, churn) },
      {
        name: '50 watches from an old resourceVersion that never read',
        run: async (ms) => {
          const watches = await Promise.all(Array.from({ length: 50 }, () => unreadWatch(endpoint, `${cm}?watch=1&resourceVersion=${churnFrom}`)));
          await new Promise((r) => setTimeout(r, ms));
          for (const w of watches) w.close();
        },
      },
      { name: '10 concurrent lists of 20 MB', run: (ms) => repeat(ms, 10, () => attacker.send('GET', cm)) },
      {
        name: '2,000 watches and writes',
        run: async (ms) => {
          // Watches from now (as informers watch after their list), as the 5,000 watches were.
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
    const rows: Row[] = [];
    for (const attack of attacks) {
      log(`soak: ${attack.name}`);
      const before = rss(pid);
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, rss(pid))), 50);
      const [times] = await Promise.all([probe.run(attackMs), attack.run(attackMs)]);
      clearInterval(sampler);
      peak = Math.max(peak, rss(pid));
      // A moment to let go of what the attack made the server hold.
      await new Promise((r) => setTimeout(r, 1_500));
      const after = rss(pid);
      const p99 = quantile(times, 0.99);
      rows.push({
        figure: `Soak: ${attack.name}`,
        ours: `GET p99 ${fmt.ms(p99)}; RSS peak ${fmt.bytes(peak)}, after ${fmt.bytes(after)}`,
        baseline: `GET p99 ${fmt.ms(idle)} idle; RSS before ${fmt.bytes(before)}`,
        ratio: fmt.ratio(p99 / idle),
        noise: `${times.length} GETs`,
        aim: `p99 < 100 ms ${p99 < 100 ? '(met)' : '(missed)'}; peak < 1 GB ${peak < 1024 ** 3 ? '(met)' : '(missed)'}; after within 20% ${after <= before * 1.2 ? '(met)' : '(missed)'}`,
      });
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

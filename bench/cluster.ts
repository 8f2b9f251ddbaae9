/**
 * `npm run bench cluster`: the simulated cluster at scale. A Deployment on
 * 100 simulated nodes is scaled from 0 to 10,000 pods; the figure is the
 * time until all of them are Running and Ready (the Deployment's
 * readyReplicas, watched), and the server's writes/s meanwhile (its
 * apiserver_request_total for create, update, patch and delete). The
 * baseline is the same server's bare create rate, measured in the same run
 * on a fresh server: pods created as fast as 16 connections can, with
 * nothing watching. The simulated cluster runs in a child process, as
 * `operant server --nodes` runs it. The machine is shared: the load average
 * is printed. BENCH_CPU_PROF=<dir> writes V8 CPU profiles there: the
 * server's from the scale-up to the last pod Ready (not the bare creates),
 * and the cluster process's whole life (node --cpu-prof, passed on to the fork).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer } from '@operant/apiserver';
import { startSimulatedClusterProcess } from '@operant/controllers';
import { Client, Deployment, loadKubeConfig, Namespace, Pod } from '@operant/runtime';
import { Client as RawClient, readKubeconfig } from './client.js';
import { cpuMsOf, rssOf, syscallsOf } from './proc.js';
import { fmt, row, type Row } from './table.js';

type Log = (text: string) => void;

const nodes = 100;
const pods = 10_000;
/** How long to wait for all pods to be Ready (BENCH_CLUSTER_TIMEOUT_S, default 600): past it, the figure is the pods Ready by then. */
const timeoutMs = Number(process.env.BENCH_CLUSTER_TIMEOUT_S ?? 600) * 1000;

const profileDir = process.env.BENCH_CPU_PROF;

/** Starts profiling this process; the returned function writes the profile to profileDir. */
async function startProfile(): Promise<() => Promise<void>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(profileDir!, { recursive: true });
    writeFileSync(join(profileDir!, `server-${process.pid}-${Date.now()}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  };
}

const pod = (namespace: string, i: number) => ({ metadata: { name: `bare-${i}`, namespace }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } });

/** Pods created per second on a fresh server with 16 connections, for `ms`, and the CPU each took (the server's and its client's: one process). */
async function bareCreateRate(ms: number): Promise<{ rate: number; cpuMs: number }> {
  const server = await startApiServer({ port: 0 });
  const client = Client.fromConfig(await loadKubeConfig({ kubeconfigText: server.kubeconfig }), { qps: Infinity });
  try {
    await client.create(Namespace, { metadata: { name: 'bare' } });
    let next = 0;
    const cpuBefore = cpuMsOf(process.pid);
    const deadline = performance.now() + ms;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (performance.now() < deadline) await client.create(Pod, pod('bare', next++));
      }),
    );
    return { rate: next / ((performance.now() - start) / 1000), cpuMs: (cpuMsOf(process.pid) - cpuBefore) / next };
  } finally {
    client.close();
    await server.stop();
  }
}

/** The server's writes so far by verb and resource (`POST pods`, `PUT pods/status`), from its /metrics. */
async function writesSoFar(raw: RawClient): Promise<Map<string, number>> {
  const text = (await raw.ok('GET', '/metrics')).toString('utf8');
  const writes = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const label = (name: string) => new RegExp(`[{,]${name}="([^"]*)"`).exec(line)?.[1] ?? '';
    const verb = label('verb').toUpperCase();
    if (!['POST', 'PUT', 'PATCH', 'DELETE', 'CREATE', 'UPDATE', 'APPLY'].includes(verb)) continue;
    const what = `${verb} ${label('resource')}${label('subresource') ? `/${label('subresource')}` : ''}`;
    writes.set(what, (writes.get(what) ?? 0) + (Number(line.slice(line.lastIndexOf(' ') + 1)) || 0));
  }
  return writes;
}

const sum = (m: ReadonlyMap<string, number>): number => [...m.values()].reduce((a, b) => a + b, 0);

/** `after - before` by key, largest first. */
function difference(after: ReadonlyMap<string, number>, before: ReadonlyMap<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of after) if (v - (before.get(k) ?? 0) > 0) out.set(k, v - (before.get(k) ?? 0));
  return new Map([...out].sort((a, b) => b[1] - a[1]));
}

export async function clusterSection(log: Log): Promise<Row[]> {
  log(`cluster: bare pod creates/s on a fresh server (16 connections, 3 s)`);
  const { rate: bare, cpuMs: bareCpuMs } = await bareCreateRate(3000);
  log(`  ${fmt.rate(bare)}, ${bareCpuMs.toFixed(2)} ms of CPU each; now ${pods.toLocaleString('en-US')} pods on ${nodes} nodes, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  // As `operant server --nodes` runs it, the cluster on the server's private socket; BENCH_CLUSTER_TLS=1: over HTTPS at its URL.
  const overTls = process.env.BENCH_CLUSTER_TLS === '1';
  const server = await startApiServer({ port: 0, privateSocket: !overTls });
  const client = Client.fromConfig(await loadKubeConfig({ kubeconfigText: server.kubeconfig }), { qps: Infinity });
  const dir = mkdtempSync(join(tmpdir(), 'operant-bench-cluster-'));
  writeFileSync(join(dir, 'kubeconfig'), server.kubeconfig);
  const raw = new RawClient(readKubeconfig(join(dir, 'kubeconfig')), 1);
  // The cluster in a process of its own, as `operant server --nodes` runs it: the server keeps this one's core.
  // The child is forked with this process's execArgv (NODE_OPTIONS refuses --cpu-prof).
  const execArgv = [...process.execArgv];
  if (profileDir) process.execArgv.push('--cpu-prof', `--cpu-prof-dir=${profileDir}`);
  const cluster = await startSimulatedClusterProcess({ kubeconfig: { kubeconfigText: server.kubeconfig }, socketPath: server.socketPath, nodes }).finally(() => {
    process.execArgv.splice(0, Infinity, ...execArgv);
  });
  try {
    const labels = { app: 'web' };
    await client.create(Deployment, {
      metadata: { name: 'web', namespace: 'default' },
      spec: { replicas: 0, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } } },
    });
    const list = await client.list(Deployment, { namespace: 'default' });
    const writesBefore = await writesSoFar(raw);
    const cpuBefore = { server: cpuMsOf(process.pid), cluster: cpuMsOf(cluster.pid) };
    const syscallsBefore = { server: syscallsOf(process.pid), cluster: syscallsOf(cluster.pid) };
    const stopProfile = profileDir ? await startProfile() : undefined;
    const start = performance.now();
    await client.patch(Deployment, 'web', { spec: { replicas: pods } }, { namespace: 'default' });
    let lastReport = start;
    let ready = 0;
    try {
      for await (const e of client.watch(Deployment, { namespace: 'default', resourceVersion: list.metadata.resourceVersion, signal: AbortSignal.timeout(timeoutMs) })) {
        if (e.type !== 'MODIFIED' && e.type !== 'ADDED') continue;
        ready = e.object.status?.readyReplicas ?? 0;
        if (performance.now() - lastReport > 5000) {
          lastReport = performance.now();
          log(`  ${((lastReport - start) / 1000).toFixed(0)} s: ${ready} ready, load average ${loadavg()[0]!.toFixed(1)}`);
        }
        if (ready >= pods && e.object.spec?.replicas === pods) break;
      }
    } catch (err) {
      // The watch may end quietly or with the signal's error when the time is up.
      if (!(err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError'))) throw err;
    }
    const seconds = (performance.now() - start) / 1000;
    await stopProfile?.();
    // CPU time per pod Ready: what the machine's load does not change as much as it changes wall time.
    const cpu = { server: cpuMsOf(process.pid) - cpuBefore.server, cluster: cpuMsOf(cluster.pid) - cpuBefore.cluster };
    const syscalls = { server: syscallsOf(process.pid), cluster: syscallsOf(cluster.pid) };
    const byKind = difference(await writesSoFar(raw), writesBefore);
    const writes = sum(byKind);
    const all = (await client.list(Pod, { namespace: 'default' })).items;
    const running = all.filter((p) => p.status?.phase === 'Running').length;
    const created = Math.max(1, all.length);
    if (ready < pods) log(`  gave up after ${(timeoutMs / 1000).toFixed(0)} s`);
    log(`  CPU per pod Ready: server ${(cpu.server / Math.max(1, ready)).toFixed(2)} ms (${(cpu.server / Math.max(1, ready) / bareCpuMs).toFixed(1)}x a bare create), cluster ${(cpu.cluster / Math.max(1, ready)).toFixed(2)} ms (${(cpu.server / 1000).toFixed(1)} s and ${(cpu.cluster / 1000).toFixed(1)} s of CPU in ${seconds.toFixed(1)} s); RSS server ${fmt.bytes(rssOf(process.pid))}, cluster ${fmt.bytes(rssOf(cluster.pid))}`);
    const perReady = (n: number) => (n / Math.max(1, ready)).toFixed(1);
    log(
      `  system calls per pod Ready: server ${perReady(syscalls.server.writes - syscallsBefore.server.writes)} writes, ${perReady(syscalls.server.reads - syscallsBefore.server.reads)} reads; ` +
        `cluster ${perReady(syscalls.cluster.writes - syscallsBefore.cluster.writes)} writes, ${perReady(syscalls.cluster.reads - syscallsBefore.cluster.reads)} reads`,
    );
    log(`  writes per pod created: ${[...byKind].map(([k, n]) => `${k} ${(n / created).toFixed(2)}`).join(', ')}`);
    log(`  ${ready.toLocaleString('en-US')} of ${pods.toLocaleString('en-US')} ready in ${seconds.toFixed(1)} s (${all.length} created, ${running} Running), ${writes.toLocaleString('en-US')} writes, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
    const what = '(bare pod creates/s, fresh server)';
    const done = ready >= pods;
    return [
      row(
        `Deployment 0→${pods.toLocaleString('en-US')} pods on ${nodes} nodes, ${done ? 'all Ready' : `${ready.toLocaleString('en-US')} Ready when it gave up`}`,
        [seconds],
        [pods / bare],
        (v: number) => `${v.toFixed(1)} s`,
        '(time to create them bare)',
        '≤ 20 s',
        (v) => done && v <= 20,
      ),
      row('  pods Ready/s', [ready / seconds], [bare], fmt.rate, what),
      row('  server writes/s meanwhile', [writes / seconds], [bare], fmt.rate, what),
      row('  server CPU per pod Ready', [cpu.server / Math.max(1, ready)], [bareCpuMs], fmt.ms, '(CPU per bare pod create)'),
      row('  cluster CPU per pod Ready', [cpu.cluster / Math.max(1, ready)], [bareCpuMs], fmt.ms, '(CPU per bare pod create)'),
    ];
  } finally {
    client.close();
    raw.agent.destroy();
    await cluster.stop();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

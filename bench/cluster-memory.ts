/**
 * Memory per pod of the server and of the simulated cluster's process, at a
 * few pod counts on many nodes: what bench/cluster-steady.ts projects to
 * 100,000 pods, measured with and without a forced collection, and with heap
 * snapshots on request to see what holds it. Each count is measured three
 * ways: the RSS as it is, after a forced collection in both processes, and
 * the server's after its event history is compacted as well (in the steady
 * state the Lease renewals of 1,000 nodes, 100 a second, push every pod
 * revision out of the history within minutes, so what a pod costs there is
 * the compacted figure). Run with --expose-gc:
 *
 *   node --expose-gc --conditions=source --import tsx bench/cluster-memory.ts
 *
 * Environment: BENCH_CLUSTER_MEMORY_NODES (default 1000),
 * BENCH_CLUSTER_MEMORY_PODS (counts to step through, default "5000,10000"),
 * BENCH_CLUSTER_MEMORY_HOLD_S (seconds held at each count before measuring,
 * default 15), BENCH_CLUSTER_MEMORY_SNAPSHOTS (a directory: a heap snapshot
 * of each process at the last count is written there).
 */
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { startApiServer } from '@operant/apiserver';
import { Client, Deployment, loadKubeConfig } from '@operant/runtime';
import type { FromChild, ToChild } from './cluster-memory-child.js';
import { cpuMsOf, rssOf } from './proc.js';
import { settle } from './settle.js';

const nodes = Number(process.env.BENCH_CLUSTER_MEMORY_NODES ?? 1000);
const counts = (process.env.BENCH_CLUSTER_MEMORY_PODS ?? '5000,10000').split(',').map(Number);
const holdMs = Number(process.env.BENCH_CLUSTER_MEMORY_HOLD_S ?? 15) * 1000;
const snapshotDir = process.env.BENCH_CLUSTER_MEMORY_SNAPSHOTS;
const deployments = 10;
const mib = (v: number): string => `${(v / 1024 / 1024).toFixed(1)} MiB`;
const kib = (v: number): string => `${(v / 1024).toFixed(1)} KiB`;
const load = (): string => loadavg().map((x) => x.toFixed(1)).join(' ');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const server = await startApiServer({ port: 0 });
const client = Client.fromConfig(await loadKubeConfig({ kubeconfigText: server.kubeconfig }), { qps: Infinity });
const child = fork(new URL('./cluster-memory-child.ts', import.meta.url), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
let nextId = 0;
function ask<T extends FromChild>(m: ToChild & { id: number }): Promise<T> {
  return new Promise((resolve) => {
    const on = (a: FromChild): void => {
      if ('id' in a && a.id === m.id) {
        child.off('message', on);
        resolve(a as T);
      }
    };
    child.on('message', on);
    child.send(m);
  });
}
child.send({ type: 'start', kubeconfigText: server.kubeconfig, nodes } satisfies ToChild);
await once(child, 'message');

interface Figures {
  pods: number;
  raw: { server: number; cluster: number };
  gc: { server: number; cluster: number };
  heap: { server: number; cluster: number };
  external: { server: number; cluster: number };
  /** The server after its event history is compacted away (as it is in the steady state, where Lease renewals alone fill it). */
  compacted: { rss: number; heap: number; external: number };
}

async function measure(pods: number): Promise<Figures> {
  const raw = { server: rssOf(process.pid), cluster: rssOf(child.pid!) };
  const s = await settle();
  const { external: ext, heapTotal } = process.memoryUsage();
  const c = await ask<Extract<FromChild, { type: 'memory' }>>({ type: 'memory', gc: true, id: nextId++ });
  server.compact();
  const k = await settle();
  const compacted = { rss: k.rss, heap: k.heap, external: process.memoryUsage().external };
  const f = { pods, raw, gc: { server: s.rss, cluster: c.rss }, heap: { server: s.heap, cluster: c.heap }, external: { server: ext, cluster: c.external }, compacted };
  console.log(
    `${pods} pods: RSS server ${mib(raw.server)}, cluster ${mib(raw.cluster)}; after GC: RSS ${mib(s.rss)} / ${mib(c.rss)}, heap ${mib(s.heap)} / ${mib(c.heap)}, external ${mib(ext)} / ${mib(c.external)}, heap committed ${mib(heapTotal)} / ${mib(c.heapTotal)}; brk heap + anon RSS ${smaps(process.pid)} / ${smaps(child.pid!)}; load ${load()}`,
  );
  console.log(`  history compacted: server RSS ${mib(compacted.rss)}, heap ${mib(compacted.heap)}, external ${mib(compacted.external)}`);
  return f;
}

/** RSS of the process's brk heap (glibc's main arena) and of its other anonymous mappings, from /proc/PID/smaps. */
function smaps(pid: number): string {
  let heap = 0;
  let anon = 0;
  let current = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) current = line.split(/\s+/)[5] ?? '';
    else if (line.startsWith('Rss:')) {
      const kb = Number(line.split(/\s+/)[1]) * 1024;
      if (current === '[heap]') heap += kb;
      else if (current === '') anon += kb;
    }
  }
  return `${mib(heap)} + ${mib(anon)}`;
}

async function readyPods(): Promise<{ ready: number; existing: number }> {
  const list = await client.list(Deployment, { namespace: 'default' });
  return { ready: list.items.reduce((n, d) => n + (d.status?.readyReplicas ?? 0), 0), existing: list.items.reduce((n, d) => n + (d.status?.replicas ?? 0), 0) };
}

await sleep(holdMs);
const figures: Figures[] = [await measure(0)];
const cpu0 = { server: cpuMsOf(process.pid), cluster: cpuMsOf(child.pid!) };
for (const [step, total] of counts.entries()) {
  const each = Math.ceil(total / deployments);
  const start = performance.now();
  for (let d = 0; d < deployments; d++) {
    const replicas = Math.min(each, total - d * each);
    const labels = { app: `mem-${d}` };
    if (step === 0) {
      await client.create(Deployment, {
        metadata: { name: `mem-${d}`, namespace: 'default' },
        spec: { replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } } },
      });
    } else {
      await client.patch(Deployment, `mem-${d}`, { spec: { replicas } }, { namespace: 'default' });
    }
  }
  for (;;) {
    const { ready, existing } = await readyPods();
    if (ready >= total) break;
    console.log(`  ${((performance.now() - start) / 1000).toFixed(0)} s: ${existing} pods, ${ready} Ready; load ${load()}`);
    await sleep(10_000);
  }
  console.log(`  ${total} Ready in ${((performance.now() - start) / 1000).toFixed(0)} s; CPU so far server ${(cpuMsOf(process.pid) - cpu0.server) / 1000} s, cluster ${(cpuMsOf(child.pid!) - cpu0.cluster) / 1000} s`);
  await sleep(holdMs);
  figures.push(await measure(total));
}

const base = figures[0];
console.log(`\nper pod (from 0 pods), ${nodes} nodes:`);
console.log('pods | raw server | raw cluster | raw total | GC server | GC cluster | GC total | heap server | heap cluster | ext server | compacted: RSS server | heap server | ext server');
for (const f of figures.slice(1)) {
  const per = (a: number, b: number): string => kib((a - b) / f.pods);
  console.log(
    `${f.pods} | ${per(f.raw.server, base.raw.server)} | ${per(f.raw.cluster, base.raw.cluster)} | ${per(f.raw.server + f.raw.cluster, base.raw.server + base.raw.cluster)} | ` +
      `${per(f.gc.server, base.gc.server)} | ${per(f.gc.cluster, base.gc.cluster)} | ${per(f.gc.server + f.gc.cluster, base.gc.server + base.gc.cluster)} | ` +
      `${per(f.heap.server, base.heap.server)} | ${per(f.heap.cluster, base.heap.cluster)} | ${per(f.external.server, base.external.server)} | ` +
      `${per(f.compacted.rss, base.compacted.rss)} | ${per(f.compacted.heap, base.compacted.heap)} | ${per(f.compacted.external, base.compacted.external)}`,
  );
}
if (figures.length > 2) {
  const [a, b] = figures.slice(-2);
  const d = b.pods - a.pods;
  console.log(
    `between ${a.pods} and ${b.pods}: raw ${kib((b.raw.server - a.raw.server) / d)} + ${kib((b.raw.cluster - a.raw.cluster) / d)}, ` +
      `GC ${kib((b.gc.server - a.gc.server) / d)} + ${kib((b.gc.cluster - a.gc.cluster) / d)}, heap ${kib((b.heap.server - a.heap.server) / d)} + ${kib((b.heap.cluster - a.heap.cluster) / d)}, ` +
      `compacted server RSS ${kib((b.compacted.rss - a.compacted.rss) / d)}, heap ${kib((b.compacted.heap - a.compacted.heap) / d)}, external ${kib((b.compacted.external - a.compacted.external) / d)}`,
  );
}
if (snapshotDir) {
  console.log(`server snapshot: ${writeHeapSnapshot(join(snapshotDir, 'server.heapsnapshot'))}`);
  const c = await ask<Extract<FromChild, { type: 'snapshot' }>>({ type: 'snapshot', file: join(snapshotDir, 'cluster.heapsnapshot'), id: nextId++ });
  console.log(`cluster snapshot: ${c.file}`);
}
child.send({ type: 'stop' } satisfies ToChild);
await once(child, 'exit');
client.close();
await server.stop();

/**
 * How cost grows with the stored data (issue 10, aim 6): one data dir grown to
 * 1,000, 10,000 and 100,000 pods; at each size, a restart on it (time to
 * `ready`, and RSS then), a list of all the pods, a watch that sends them all
 * as initial events, and creates/s. Reported as time per object at each size:
 * nothing may grow worse than linearly (the per-object time stays flat), and a
 * restart on 100,000 objects must be ready in under 2 s.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { Client, closedLoop, readKubeconfig } from './client.js';
import { pod } from './fixtures.js';
import { repoRoot, startOperant, type ReadyProcess } from './processes.js';
import { cpuMsOf, rssOf, schedCpuMsOf } from './proc.js';

export interface ScalePoint {
  objects: number;
  /** Restart to `ready`, ms (each run): wall time, and the server's CPU time (user + system), which a shared machine disturbs less. */
  startMs: number[];
  startCpuMs: number[];
  /** RSS right after ready, and after the list and watch, bytes. */
  rssReady: number;
  rssAfter: number;
  /** Time to list all the pods, ms (each run), and the server's CPU time for it (all threads). */
  listMs: number[];
  listCpuMs: number[];
  /** Time for a watch from resourceVersion 0 to deliver every pod as ADDED, ms (each run), and the server's CPU time for it. */
  watchMs: number[];
  watchCpuMs: number[];
  /** Creates per second with this many objects stored, and the server's CPU time per create, ms. */
  createsPerSecond: number;
  createCpuMs: number;
}

const namespace = 'scale';


function populate(dataDir: string, templateFile: string, from: number, to: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', join(repoRoot, 'bench', 'scale-populate.ts'), dataDir, namespace, templateFile, String(from), String(to)], {
      cwd: repoRoot,
      stdio: ['ignore', 'inherit', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`scale-populate exited with ${code}: ${err}`))));
  });
}

/** Opens a watch from resourceVersion 0 and resolves when `count` events have arrived. */
function watchAll(client: Client, count: number): Promise<number> {
  const url = new URL(client.endpoint.url);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: `/api/v1/namespaces/${namespace}/pods?watch=true&resourceVersion=0`,
        ca: client.endpoint.caPem,
        headers: { Authorization: `Bearer ${client.endpoint.token}`, Accept: 'application/json' },
      },
      (res) => {
        let events = 0;
        res.on('data', (chunk: Buffer) => {
          for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) events++;
          if (events >= count) {
            resolve(performance.now() - started);
            req.destroy();
          }
        });
        res.on('error', () => {});
      },
    );
    req.on('error', (e) => {
      if (!req.destroyed) reject(e);
    });
    req.end();
  });
}

async function measure(workDir: string, dataDir: string, objects: number, runs: number, connections: number): Promise<ScalePoint> {
  const startMs: number[] = [];
  const startCpuMs: number[] = [];
  const listMs: number[] = [];
  const listCpuMs: number[] = [];
  const watchMs: number[] = [];
  const watchCpuMs: number[] = [];
  let rssReady = 0;
  let rssAfter = 0;
  let createsPerSecond = 0;
  let createCpuMs = NaN;
  for (let run = 0; run < runs; run++) {
    const kubeconfig = join(workDir, `kc-scale-${objects}-${run}`);
    const server: ReadyProcess = await startOperant(kubeconfig, dataDir);
    try {
      startMs.push(server.readyMs);
      startCpuMs.push(cpuMsOf(server.child.pid!));
      rssReady = rssOf(server.child.pid!);
      const client = new Client(readKubeconfig(kubeconfig), connections);
      // The server's CPU time (all threads) over each step: wall time means little on a loaded machine.
      // After a restart the server reads its objects in the background for a few seconds (the garbage
      // collector's graph), which the first run's steps share.
      const cpu = (): number => schedCpuMsOf(server.child.pid!);
      let c0 = cpu();
      const t0 = performance.now();
      const list = await client.ok('GET', `/api/v1/namespaces/${namespace}/pods`);
      listMs.push(performance.now() - t0);
      listCpuMs.push(cpu() - c0);
      const listed = (JSON.parse(list.toString('utf8')) as { items: unknown[] }).items.length;
      if (listed < objects) throw new Error(`listed ${listed} pods, expected at least ${objects}`);
      c0 = cpu();
      watchMs.push(await watchAll(client, listed));
      watchCpuMs.push(cpu() - c0);
      rssAfter = rssOf(server.child.pid!);
      // Creates on the last run only: they add objects (a few hundred, against the sizes measured).
      if (run === runs - 1) {
        c0 = cpu();
        const r = await closedLoop(connections, { durationMs: 2000 }, async (w, i) => {
          await client.ok('POST', '/api/v1/namespaces/scale-extra/configmaps', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${objects}-${w}-${i}` }, data: { k: 'v' } }));
        });
        createCpuMs = (cpu() - c0) / r.ops;
        createsPerSecond = r.perSecond;
      }
      client.close();
    } finally {
      await server.stop();
    }
  }
  return { objects, startMs, startCpuMs, rssReady, rssAfter, listMs, listCpuMs, watchMs, watchCpuMs, createsPerSecond, createCpuMs };
}

/** Grows one data dir through `sizes` and measures at each. */
export async function scale(workDir: string, opts: { sizes: number[]; runs: number; connections: number; log: (text: string) => void }): Promise<ScalePoint[]> {
  const dataDir = join(workDir, 'scale-data');
  // A template pod as the server stores it (defaults, uid, managedFields), and the namespaces.
  const kubeconfig = join(workDir, 'kc-scale-template');
  const server = await startOperant(kubeconfig, dataDir);
  const client = new Client(readKubeconfig(kubeconfig), 1);
  for (const ns of [namespace, 'scale-extra']) await client.ok('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));
  const template = await client.ok('POST', `/api/v1/namespaces/${namespace}/pods`, pod('template', 0));
  await client.ok('DELETE', `/api/v1/namespaces/${namespace}/pods/template?gracePeriodSeconds=0`);
  client.close();
  await server.stop();
  const templateFile = join(workDir, 'scale-template.json');
  writeFileSync(templateFile, template);

  const points: ScalePoint[] = [];
  let have = 0;
  for (const size of opts.sizes) {
    const t0 = performance.now();
    await populate(dataDir, templateFile, have, size);
    opts.log(`  scale: grew to ${size.toLocaleString('en-US')} pods in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    have = size;
    const point = await measure(workDir, dataDir, size, opts.runs, opts.connections);
    opts.log(
      `  ${size.toLocaleString('en-US')} pods: ready ${point.startMs.map((v) => v.toFixed(0)).join('/')} ms (CPU ${point.startCpuMs.map((v) => v.toFixed(0)).join('/')} ms), list ${point.listMs.map((v) => v.toFixed(0)).join('/')} ms (CPU ${point.listCpuMs.map((v) => v.toFixed(0)).join('/')} ms), ` +
        `watch ${point.watchMs.map((v) => v.toFixed(0)).join('/')} ms (CPU ${point.watchCpuMs.map((v) => v.toFixed(0)).join('/')} ms), ${point.createsPerSecond.toFixed(0)} creates/s (CPU ${(point.createCpuMs * 1000).toFixed(0)} us each), RSS ${(point.rssReady / 2 ** 20).toFixed(0)} MiB ready, ${(point.rssAfter / 2 ** 20).toFixed(0)} MiB after`,
    );
    points.push(point);
  }
  return points;
}

/** Per-object time in µs, each run. */
export function perObjectUs(ms: number[], objects: number): number[] {
  return ms.map((v) => (v * 1000) / objects);
}

/**
 * Server-side apply against the plain update path (issue 13's benchmark), on
 * one `operant server` process, in the same run:
 *
 * - writes/s of an apply (PATCH application/apply-patch+yaml, one manager per
 *   object) against an update (PUT of the same object with its resourceVersion),
 *   each request changing one field, for a Deployment and for a custom resource
 *   with the `crd` benchmark's schema (and its CEL rules, on both paths); and the
 *   server process's CPU time per write, which a loaded machine disturbs less;
 * - the heap that metadata.managedFields add to a stored object, against the
 *   object without them, in an embedded server (apply-memory-child.ts, a fresh
 *   process with --expose-gc). The reset that removes them writes every object
 *   again, whose new copy is laid out a little differently: the figure is exact
 *   to about half a KiB (it reads slightly negative when managedFields cost less).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, closedLoop, readKubeconfig } from './client.js';
import { applications, applyType, deployments, installApplicationCrd, manager, type Target } from './apply-fixtures.js';
import { measuringChild } from './memory.js';
import { startOperant } from './processes.js';
import { median } from './stats.js';
import { fmt, row, type Row } from './table.js';

type Log = (text: string) => void;

const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const durationMs = 2000;
/** Objects stored for the memory figure, per kind. */
const memoryCount = 2000;

/**
 * CPU time (user + system, all threads) a process has used, in ms, from
 * /proc (Linux; clock ticks of 10 ms): less sensitive to the machine's load
 * than a rate, since time waiting for a core is not counted.
 */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  // After "pid (comm) ", utime and stime are the 12th and 13th fields.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

interface PathRound {
  perSecond: number;
  /** The server's CPU time per write, in ms. */
  cpuPerWrite: number;
}

/** Writes/s of one path: each of `connections` workers writes its own object, changing it every time. */
async function writesPerSecond(client: Client, serverPid: number, target: Target, path: 'apply' | 'update', tag: string, ms: number): Promise<PathRound> {
  const versions: string[] = [];
  const names = Array.from({ length: connections }, (_, w) => `${path}-${tag}-${w}`);
  // Each worker's object exists before timing starts, made the way the path writes it.
  await Promise.all(
    names.map(async (name, w) => {
      const obj = JSON.stringify(target.object(name, 0));
      const body =
        path === 'apply'
          ? await client.ok('PATCH', `${target.collection}/${name}?fieldManager=${manager}`, obj, applyType)
          : await client.ok('POST', `${target.collection}?fieldManager=${manager}`, obj);
      versions[w] = (JSON.parse(body.toString('utf8')) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    }),
  );
  const cpuBefore = cpuMs(serverPid);
  const r = await closedLoop(connections, { durationMs: ms }, async (w, i) => {
    const name = names[w]!;
    const obj = target.object(name, i + 1);
    let reply: Buffer;
    if (path === 'apply') {
      reply = await client.ok('PATCH', `${target.collection}/${name}?fieldManager=${manager}`, JSON.stringify(obj), applyType);
    } else {
      (obj.metadata as { resourceVersion?: string }).resourceVersion = versions[w];
      reply = await client.ok('PUT', `${target.collection}/${name}?fieldManager=${manager}`, JSON.stringify(obj));
    }
    // Both paths read the answer, as a client would.
    versions[w] = (JSON.parse(reply.toString('utf8')) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  });
  return { perSecond: r.perSecond, cpuPerWrite: (cpuMs(serverPid) - cpuBefore) / r.ops };
}

interface MemoryFigures {
  count: number;
  gc: boolean;
  heapWith: number;
  heapWithout: number;
  jsonWith: number;
  jsonWithout: number;
}

export async function applySection(workDir: string, rounds: number, log: Log): Promise<Row[]> {
  log(`apply: writes/s of server-side apply vs update (PUT), Deployment and CR; ${rounds} rounds of ${durationMs / 1000} s, ${connections} connections`);
  const server = await startOperant(join(workDir, 'kc-apply'));
  const client = new Client(readKubeconfig(join(workDir, 'kc-apply')), connections);
  const rows: Row[] = [];
  try {
    await installApplicationCrd(client);
    const pid = server.child.pid!;
    for (const target of [deployments, applications]) {
      // Warm-up: TLS handshakes, JIT, both paths' code.
      await writesPerSecond(client, pid, target, 'update', 'warm', 300);
      await writesPerSecond(client, pid, target, 'apply', 'warm', 300);
      const results = { apply: [] as PathRound[], update: [] as PathRound[] };
      for (let round = 0; round < rounds; round++) {
        // Alternate which path goes first, so drift in the machine's load falls on both.
        const order = round % 2 ? (['apply', 'update'] as const) : (['update', 'apply'] as const);
        for (const path of order) results[path].push(await writesPerSecond(client, pid, target, path, `r${round}`, durationMs));
      }
      const rates = (path: 'apply' | 'update'): number[] => results[path].map((x) => x.perSecond);
      const cpu = (path: 'apply' | 'update'): number[] => results[path].map((x) => x.cpuPerWrite);
      for (const path of ['apply', 'update'] as const) {
        log(`  ${target.name}, ${path}: ${results[path].map((x) => `${fmt.rate(x.perSecond)} (${fmt.ms(x.cpuPerWrite)} server CPU per write)`).join(', ')}`);
      }
      const updates = median(rates('update'));
      const what = '(update: PUT, same object and change)';
      rows.push(row(`${target.name} writes/s, apply`, rates('apply'), rates('update'), fmt.rate, what, '≥ 0.5× update', (v) => v / updates >= 0.5));
      rows.push(row(`${target.name} server CPU per write, apply`, cpu('apply'), cpu('update'), fmt.ms, what));
    }
    const runs = Math.max(2, rounds - 1);
    for (const target of [deployments, applications]) {
      log(`apply: managedFields heap per stored ${target.name}: ${memoryCount} objects applied, then their managedFields reset, in an embedded server (${runs} fresh child processes with --expose-gc)`);
      const m: MemoryFigures[] = [];
      for (let r = 0; r < runs; r++) m.push(await measuringChild<MemoryFigures>('apply-memory-child.ts', [target === deployments ? 'deployments' : 'applications', String(memoryCount)]));
      const extra = m.map((f) => f.heapWith - f.heapWithout);
      const object = m.map((f) => f.heapWithout);
      log(`  heap per object ${m.map((f) => `${fmt.bytes(f.heapWith)} with, ${fmt.bytes(f.heapWithout)} without`).join('; ')}; JSON ${fmt.bytes(m[0]!.jsonWith)} with, ${fmt.bytes(m[0]!.jsonWithout)} without`);
      const base = median(object);
      rows.push(
        row(`${target.name} managedFields, heap per object`, extra, object, fmt.bytes, `(the stored object without them${m[0]!.gc ? '' : '; no gc: rough'})`, '< 30% of the object', (v) => v / base < 0.3),
      );
    }
  } finally {
    client.close();
    await server.stop();
  }
  return rows;
}

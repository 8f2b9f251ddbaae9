/**
 * Listing 10,000 pods: the time for one full JSON list over HTTPS, against a
 * bare Node HTTPS server sending the same JSON bytes (the transfer ceiling).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, closedLoop } from './client.js';
import { pod } from './fixtures.js';
import { startBareServer, type ReadyProcess } from './processes.js';

export interface ListResult {
  count: number;
  bytes: number;
  /** ms per list */
  ours: number[];
  bare: number[];
  /** ms to create the pods (for information) */
  populateMs: number;
}

const path = '/api/v1/namespaces/default/pods';

async function timeList(client: Client, expected: number, repeats: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < repeats + 1; i++) {
    const t0 = performance.now();
    const body = await client.ok('GET', path);
    const ms = performance.now() - t0;
    if (i === 0) {
      const count = (JSON.parse(body.toString('utf8')) as { items: unknown[] }).items.length;
      if (count !== expected) throw new Error(`listed ${count} pods, expected ${expected}`);
      continue; // warm-up
    }
    times.push(ms);
  }
  return times;
}

export async function listPods(
  ours: Client,
  bare: { certFile: string; keyFile: string; caPem: string },
  opts: { count: number; repeats: number; workDir: string },
): Promise<ListResult> {
  const t0 = performance.now();
  await closedLoop(16, { total: opts.count }, async (_w, i) => {
    await ours.ok('POST', path, pod(`pod-${String(i).padStart(5, '0')}`, i));
  });
  const populateMs = performance.now() - t0;
  const oursTimes = await timeList(ours, opts.count, opts.repeats);

  const body = await ours.ok('GET', path);
  const listFile = join(opts.workDir, 'pods.json');
  writeFileSync(listFile, body);
  let server: ReadyProcess | undefined;
  let client: Client | undefined;
  try {
    server = await startBareServer({ certFile: bare.certFile, keyFile: bare.keyFile, listFile });
    client = new Client({ url: server.url, caPem: bare.caPem, token: 'unused' }, 1);
    const bareTimes = await timeList(client, opts.count, opts.repeats);
    return { count: opts.count, bytes: body.length, ours: oursTimes, bare: bareTimes, populateMs };
  } finally {
    client?.close();
    await server?.stop();
  }
}

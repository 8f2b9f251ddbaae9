/**
 * Memory per stored pod, measured in a fresh process (run with --expose-gc):
 *
 *   memory-child.ts server N FILE   heap and RSS of an embedded server before
 *                                   and after storing N pods over HTTPS; the
 *                                   stored list is written to FILE
 *   memory-child.ts plain FILE      the baseline: the same pods parsed into a
 *                                   Map by key, the least a JavaScript store
 *                                   can hold
 *
 * Prints one JSON line: { count, gc, heapPerPod, rssPerPod, jsonBytesPerPod }.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { startApiServer } from '@operant/apiserver';
import { Client, closedLoop } from './client.js';
import { pod } from './fixtures.js';
import { canCollect, settle } from './settle.js';

function report(count: number, before: { heap: number; rss: number }, after: { heap: number; rss: number }, jsonBytes: number): void {
  const figures = { count, gc: canCollect, heapPerPod: (after.heap - before.heap) / count, rssPerPod: (after.rss - before.rss) / count, jsonBytesPerPod: jsonBytes / count };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

async function serverMode(count: number, file: string): Promise<void> {
  const server = await startApiServer({ port: 0 });
  const endpoint = { url: server.url, caPem: server.caPem, token: server.adminToken };
  const path = '/api/v1/namespaces/default/pods';
  // Warm up every code path once, so lazily built state is not counted.
  let client = new Client(endpoint, 8);
  await client.ok('POST', path, pod('warm-up', 0));
  await client.ok('GET', path);
  await client.ok('DELETE', `${path}/warm-up`);
  client.close();
  client = new Client(endpoint, 8);
  const before = await settle();
  await closedLoop(8, { total: count }, async (_w, i) => {
    await client.ok('POST', path, pod(`pod-${String(i).padStart(5, '0')}`, i));
  });
  client.close();
  const after = await settle();
  client = new Client(endpoint, 1);
  const list = await client.ok('GET', path);
  client.close();
  writeFileSync(file, list);
  report(count, before, after, list.length);
  await server.stop();
}

async function plainMode(file: string): Promise<void> {
  const before = await settle();
  let text = readFileSync(file, 'utf8');
  const bytes = Buffer.byteLength(text);
  const map = new Map<string, unknown>();
  for (const o of (JSON.parse(text) as { items: Array<{ metadata: { namespace: string; name: string } }> }).items) {
    map.set(`/core/pods/${o.metadata.namespace}/${o.metadata.name}`, o);
  }
  text = '';
  const after = await settle();
  report(map.size, before, after, bytes);
}

const [mode, ...args] = process.argv.slice(2);
if (mode === 'server') await serverMode(Number(args[0]), args[1]);
else if (mode === 'plain') await plainMode(args[0]);
else throw new Error('usage: memory-child.ts server N FILE | plain FILE');
process.exit(0);

/**
 * The heap that metadata.managedFields cost per stored object, measured in an
 * embedded server in a fresh process (run with --expose-gc):
 *
 *   apply-memory-child.ts deployments|applications N
 *
 * applies N objects (one manager each, as an operator would), measures the
 * heap, then resets every object's managedFields (a merge patch of
 * `managedFields: [{}]`, which leaves them absent) and measures again. History
 * keeps one event, so replaced versions are not counted.
 *
 * Prints one JSON line: { count, gc, heapWith, heapWithout, jsonWith, jsonWithout },
 * heap and JSON bytes per object with and without managedFields.
 */
import { startApiServer } from '@operant/apiserver';
import { Client, closedLoop } from './client.js';
import { applications, applyType, deployments, installApplicationCrd, manager } from './apply-fixtures.js';
import { canCollect, settle } from './settle.js';

const [which, countArg] = process.argv.slice(2);
const target = which === 'deployments' ? deployments : which === 'applications' ? applications : undefined;
const count = Number(countArg);
if (!target || !Number.isInteger(count) || count < 1) throw new Error('usage: apply-memory-child.ts deployments|applications N');

const server = await startApiServer({ port: 0, historyCapacity: 1 });
const client = new Client({ url: server.url, caPem: server.caPem, token: server.adminToken }, 8);
if (target === applications) await installApplicationCrd(client);
const name = (i: number): string => `memory-${String(i).padStart(5, '0')}`;
const reset = JSON.stringify({ metadata: { managedFields: [{}] } });
// Warm up both code paths once, so lazily built state is not counted.
await client.ok('PATCH', `${target.collection}/warm?fieldManager=${manager}`, JSON.stringify(target.object('warm', 0)), applyType);
await client.ok('PATCH', `${target.collection}/warm`, reset, 'application/merge-patch+json');
const listBytes = async (): Promise<number> => (await client.ok('GET', `${target.collection}?labelSelector=${encodeURIComponent('app')}`)).length;

const before = await settle();
await closedLoop(8, { total: count }, async (_w, i) => {
  await client.ok('PATCH', `${target.collection}/${name(i)}?fieldManager=${manager}`, JSON.stringify(target.object(name(i), i)), applyType);
});
const withFields = await settle();
const jsonWith = await listBytes();
await closedLoop(8, { total: count }, async (_w, i) => {
  await client.ok('PATCH', `${target.collection}/${name(i)}`, reset, 'application/merge-patch+json');
});
const withoutFields = await settle();
const jsonWithout = await listBytes();
process.stdout.write(
  `${JSON.stringify({
    count,
    gc: canCollect,
    heapWith: (withFields.heap - before.heap) / count,
    heapWithout: (withoutFields.heap - before.heap) / count,
    jsonWith: jsonWith / (count + 1),
    jsonWithout: jsonWithout / (count + 1),
  })}\n`,
);
client.close();
await server.stop();
process.exit(0);

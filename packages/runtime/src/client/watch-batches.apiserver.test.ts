/**
 * Chunk-at-a-time watch delivery (readWatchEvents and ListerWatcher.watchBatches):
 * decoding over real HTTP with chunk boundaries a test controls, and the
 * client's ListerWatcher against the embedded API server.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, get, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeObject, Status } from '@operant/apimachinery';
import { TestEnv } from '@operant/testing';
import type { ListerWatcher, WatchEvent } from '../cache/list-watch.js';
import { defineKind } from '../kind.js';
import type { Client } from './client.js';
import { isNotFound } from './api-error.js';
import { readWatchEvents } from './watch-stream.js';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}
const ConfigMap = defineKind<ConfigMap>({ group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true });
const Namespace = defineKind({ group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false });
const Missing = defineKind({ group: 'nothing.example.com', version: 'v1', kind: 'Missing', plural: 'missings', namespaced: true });

const line = (type: string, name: string, rv: string): string => `${JSON.stringify({ type, object: { metadata: { name, resourceVersion: rv } } })}\n`;

/**
 * A local HTTP server whose single watch response the test writes piece by
 * piece; each write is flushed before the next, so pieces arrive as chunks.
 */
class ScriptedServer {
  private readonly server: Server;
  private readonly responses: Array<{ req: IncomingMessage; res: ServerResponse }> = [];
  private readonly waiting: Array<(r: { req: IncomingMessage; res: ServerResponse }) => void> = [];

  constructor() {
    this.server = createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.flushHeaders();
      const next = this.waiting.shift();
      if (next) next({ req, res });
      else this.responses.push({ req, res });
    });
  }

  async listen(): Promise<void> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
  }

  /** Opens a watch response; resolves with it and the server's side of the exchange. */
  async open(): Promise<{ res: IncomingMessage; server: { req: IncomingMessage; res: ServerResponse } }> {
    const { port } = this.server.address() as AddressInfo;
    const accepted = new Promise<{ req: IncomingMessage; res: ServerResponse }>((resolve) => {
      const ready = this.responses.shift();
      if (ready) resolve(ready);
      else this.waiting.push(resolve);
    });
    const res = await new Promise<IncomingMessage>((resolve, reject) => get({ host: '127.0.0.1', port, path: '/watch', agent: false }, resolve).on('error', reject));
    return { res, server: await accepted };
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }
}

/** Writes `text` and waits until the client has received something more. */
async function writeAndWait(res: ServerResponse, text: string, delivered: () => number): Promise<void> {
  const before = delivered();
  res.write(text);
  while (delivered() === before) await new Promise((r) => setImmediate(r));
}

describe('readWatchEvents over HTTP', () => {
  const scripted = new ScriptedServer();
  before(() => scripted.listen());
  after(() => scripted.close());

  test('events of one chunk come in one call; an event split across chunks is joined; the end settles it', async () => {
    const { res, server } = await scripted.open();
    const batches: string[][] = [];
    let pieces = 0;
    res.on('data', () => pieces++);
    const done = readWatchEvents<KubeObject>(res, 'test', undefined, (events) => batches.push(events.map((e) => `${e.type} ${e.object.metadata.name}`)));
    await writeAndWait(server.res, line('ADDED', 'a', '1') + line('ADDED', 'b', '2') + line('MODIFIED', 'a', '3'), () => batches.length);
    const split = line('DELETED', 'b', '4');
    await writeAndWait(server.res, split.slice(0, 20), () => pieces);
    assert.equal(batches.length, 1, 'half an event delivers nothing');
    // The rest of the event, then a blank line (skipped).
    await writeAndWait(server.res, split.slice(20) + '\n', () => batches.length);
    // A last event without its newline is still decoded when the response ends.
    server.res.end(line('BOOKMARK', '', '5').trimEnd());
    await done;
    assert.deepEqual(batches, [['ADDED a', 'ADDED b', 'MODIFIED a'], ['DELETED b'], ['BOOKMARK ']]);
  });

  test('an undecodable line: the events before it are delivered, then it rejects and the connection is closed', async () => {
    const { res, server } = await scripted.open();
    const batches: string[][] = [];
    const done = readWatchEvents<KubeObject>(res, 'GET /watch', undefined, (events) => batches.push(events.map((e) => e.object.metadata.name ?? '')));
    const closed = once(server.req.socket, 'close');
    server.res.write(line('ADDED', 'a', '1') + '{"type":"ADDED","object":\n' + line('ADDED', 'never', '2'));
    await assert.rejects(done, /watch GET \/watch: undecodable event/);
    assert.deepEqual(batches, [['a']]);
    await closed;
  });

  test('when the consumer throws, it rejects with that error, is called no more, and the connection is closed', async () => {
    const { res, server } = await scripted.open();
    const boom = new Error('consumer failed');
    let calls = 0;
    const done = readWatchEvents<KubeObject>(res, 'test', undefined, () => {
      calls++;
      throw boom;
    });
    const closed = once(server.req.socket, 'close');
    server.res.write(line('ADDED', 'a', '1'));
    await assert.rejects(done, (e) => e === boom);
    await closed;
    server.res.write(line('ADDED', 'b', '2'));
    await new Promise((r) => setImmediate(r));
    assert.equal(calls, 1);
  });

  test('a connection that breaks before the response ends rejects', async () => {
    const { res, server } = await scripted.open();
    let delivered = 0;
    const done = readWatchEvents<KubeObject>(res, 'test', undefined, (events) => (delivered += events.length));
    await writeAndWait(server.res, line('ADDED', 'a', '1'), () => delivered);
    server.req.socket.destroy();
    await assert.rejects(done);
    assert.equal(delivered, 1);
  });

  test('aborting the signal resolves at once and closes the connection; an aborted signal reads nothing', async () => {
    const { res, server } = await scripted.open();
    const ac = new AbortController();
    const names: string[] = [];
    const done = readWatchEvents<KubeObject>(res, 'test', ac.signal, (events) => names.push(...events.map((e) => e.object.metadata.name ?? '')));
    await writeAndWait(server.res, line('ADDED', 'a', '1'), () => names.length);
    const closed = once(server.req.socket, 'close');
    ac.abort();
    await done;
    await closed;
    assert.deepEqual(names, ['a']);

    const second = await scripted.open();
    let called = false;
    const secondClosed = once(second.server.req.socket, 'close');
    second.server.res.write(line('ADDED', 'b', '2'));
    await readWatchEvents<KubeObject>(second.res, 'test', AbortSignal.abort(), () => (called = true));
    await secondClosed;
    assert.equal(called, false);
  });
});

describe('ListerWatcher.watchBatches against the embedded server', () => {
  let env: TestEnv;
  let client: Client;
  let lw: ListerWatcher<ConfigMap>;

  before(async () => {
    env = await TestEnv.start({ server: { historyCapacity: 50 } });
    client = env.client;
    lw = client.listerWatcher(ConfigMap);
    for (const name of ['batches', 'abort', 'old']) await client.create(Namespace, { metadata: { name } });
  });
  after(() => env?.stop());

  test('the client ListerWatcher offers it: a backlog arrives in order, then it resolves at the server timeout', async () => {
    assert.ok(lw.watchBatches, 'the client ListerWatcher delivers by chunk');
    const { resourceVersion } = await lw.list({ namespace: 'batches' });
    for (let i = 0; i < 30; i++) await client.create(ConfigMap, { metadata: { name: `cm-${String(i).padStart(2, '0')}`, namespace: 'batches' }, data: { i: String(i) } });
    await client.delete(ConfigMap, 'cm-00', { namespace: 'batches' });
    const batches: WatchEvent<ConfigMap>[][] = [];
    await lw.watchBatches({ namespace: 'batches', resourceVersion, timeoutSeconds: 1 }, (events) => batches.push(events));
    const events = batches.flat();
    assert.deepEqual(
      events.filter((e) => e.type !== 'BOOKMARK').map((e) => `${e.type} ${e.object.metadata.name}`),
      [...Array.from({ length: 30 }, (_, i) => `ADDED cm-${String(i).padStart(2, '0')}`), 'DELETED cm-00'],
    );
  });

  test('aborting ends it quietly, and an ERROR event (410 for a compacted revision) is delivered like any other', async () => {
    const ac = new AbortController();
    const seen: string[] = [];
    const watching = lw.watchBatches!({ namespace: 'abort', resourceVersion: (await lw.list({ namespace: 'abort' })).resourceVersion, signal: ac.signal }, (events) => {
      seen.push(...events.map((e) => `${e.type} ${e.object.metadata.name}`));
      if (seen.length === 1) ac.abort();
    });
    await client.create(ConfigMap, { metadata: { name: 'first', namespace: 'abort' } });
    await watching;
    assert.deepEqual(seen, ['ADDED first']);

    const { resourceVersion } = await lw.list({ namespace: 'old' });
    for (let i = 0; i < 60; i++) await client.create(ConfigMap, { metadata: { name: `late-${i}`, namespace: 'old' } });
    const errors: Status[] = [];
    await lw.watchBatches!({ namespace: 'old', resourceVersion, timeoutSeconds: 5 }, (events) => {
      for (const e of events) if (e.type === 'ERROR') errors.push(e.object as unknown as Status);
    });
    assert.equal(errors.length, 1);
    assert.equal(errors[0]!.code, 410);
  });

  test('a refused watch rejects with the ApiError', async () => {
    const missing = client.listerWatcher(Missing);
    await assert.rejects(
      missing.watchBatches!({ namespace: 'batches', resourceVersion: '' }, () => assert.fail('no events expected')),
      (e) => isNotFound(e),
    );
  });
});

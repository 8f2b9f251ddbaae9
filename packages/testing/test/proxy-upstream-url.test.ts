/**
 * The fault proxy in front of an API server at its URL (as `operant chaos`
 * runs it: no private socket, no server in its process). A request no fault
 * can act on goes through the proxy's lean client, not undici (a watch, and a
 * request a fault covers, still go through undici), over kept-alive
 * connections that are reused as undici would reuse them: the server's
 * `Keep-Alive: timeout` less 2 s, none after an answer that leaves less, a
 * new one after `Connection: close`. Each request carries the Host header
 * undici sends, and a server that cannot be reached gets the 502 it got
 * through undici, naming the connection's error.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import { request as httpRequest } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Client, ConfigMap, loadKubeConfig } from '@operant/runtime';
import { FaultProxy, TestEnv } from '../src/index.js';

/** Counts the requests undici makes while `body` runs. */
async function undiciRequests(body: () => Promise<void>): Promise<number> {
  let made = 0;
  const onCreate = (): void => void made++;
  diagnostics.subscribe('undici:request:create', onCreate);
  try {
    await body();
  } finally {
    diagnostics.unsubscribe('undici:request:create', onCreate);
  }
  return made;
}

describe('in front of a server at its HTTPS URL', () => {
  let env: TestEnv;
  let proxy: FaultProxy;
  let client: Client;
  before(async () => {
    env = await TestEnv.start();
    proxy = await FaultProxy.start({ upstream: env.kubeconfig.config });
    client = Client.fromConfig(await proxy.clientConfig(), { qps: Infinity });
  });
  after(async () => {
    client.close();
    await proxy.stop();
    await env.stop();
  });

  test('requests no fault acts on go through the lean client; a watch and a request under a fault go through undici', async () => {
    const namespace = (await env.namespace()).name;
    const lean = await undiciRequests(async () => {
      await client.create(ConfigMap, { metadata: { name: 'a', namespace }, data: { k: 'v' } });
      assert.deepEqual((await client.get(ConfigMap, 'a', { namespace })).data, { k: 'v' });
      await client.patch(ConfigMap, 'a', { data: { k: 'w' } }, { namespace });
      assert.equal((await client.list(ConfigMap, { namespace })).items.length, 1);
    });
    assert.equal(lean, 0);

    const watched = await undiciRequests(async () => {
      const stop = new AbortController();
      for await (const event of client.watch(ConfigMap, { namespace, signal: stop.signal })) {
        assert.equal(event.type, 'ADDED');
        break;
      }
      stop.abort();
      using slow = proxy.inject({ kind: 'latency', ms: 1, resources: ['configmaps'] });
      assert.deepEqual((await client.get(ConfigMap, 'a', { namespace })).data, { k: 'w' });
      assert.equal(slow.hits, 1);
    });
    assert.equal(watched, 2);
  });
});

/** A raw HTTP server that answers every request with `answer(path)`, recording the connections it accepted and each request's head. */
async function rawServer(answer: (path: string) => string): Promise<{ server: Server; port: number; accepted: Socket[]; heads: string[] }> {
  const accepted: Socket[] = [];
  const heads: string[] = [];
  const server = createServer((socket) => {
    accepted.push(socket);
    let text = '';
    socket.on('error', () => undefined);
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      for (let end = text.indexOf('\r\n\r\n'); end >= 0; end = text.indexOf('\r\n\r\n')) {
        const head = text.slice(0, end);
        text = text.slice(end + 4);
        heads.push(head);
        socket.write(answer(head.split(' ')[1]!));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, accepted, heads };
}

/** A proxy in plain HTTP in front of `http://127.0.0.1:<port>` with a token. */
async function proxyTo(port: number): Promise<FaultProxy> {
  const kubeconfig = [
    'apiVersion: v1',
    'kind: Config',
    'clusters: [{ name: c, cluster: { server: "http://127.0.0.1:' + port + '" } }]',
    'users: [{ name: u, user: { token: upstream-token } }]',
    'contexts: [{ name: x, context: { cluster: c, user: u } }]',
    'current-context: x',
  ].join('\n');
  return FaultProxy.start({ upstream: await loadKubeConfig({ kubeconfigText: kubeconfig }), plainHttp: true });
}

/** GET `path` through the proxy; its status and body. */
async function get(proxy: FaultProxy, path: string): Promise<{ status: number; body: string }> {
  const url = new URL(`${(await proxy.clientConfig()).server}${path}`);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const ok = (headers: string): string => `HTTP/1.1 200 OK\r\nContent-Length: 2\r\n${headers}\r\nok`;

describe('in front of a server at its HTTP URL', () => {
  test('sends the Host header undici sends and the upstream credentials; keeps the connection as undici keeps it', async (t) => {
    const raw = await rawServer((path) =>
      path === '/short' ? ok('Keep-Alive: timeout=2\r\n') : path === '/close' ? ok('Connection: close\r\n') : path === '/hinted' ? ok('Keep-Alive: timeout=3\r\n') : ok(''),
    );
    const proxy = await proxyTo(raw.port);
    t.after(async () => {
      await proxy.stop();
      for (const s of raw.accepted) s.destroy();
      raw.server.close();
    });

    assert.deepEqual(await get(proxy, '/plain'), { status: 200, body: 'ok' });
    const head = raw.heads[0]!.split('\r\n');
    assert.equal(head[0], 'GET /plain HTTP/1.1');
    assert.ok(head.includes(`host: 127.0.0.1:${raw.port}`), head.join(' | '));
    assert.ok(head.includes('authorization: Bearer upstream-token'), head.join(' | '));
    await get(proxy, '/plain');
    assert.equal(raw.accepted.length, 1, 'the second request went on the kept-alive connection');

    // timeout=2 leaves 2 s less 2 s: no reuse.
    await get(proxy, '/short');
    await get(proxy, '/plain');
    assert.equal(raw.accepted.length, 2, 'a new connection after an answer whose keep-alive leaves no time');
    await get(proxy, '/close');
    await get(proxy, '/plain');
    assert.equal(raw.accepted.length, 3, 'a new connection after Connection: close');

    // timeout=3 leaves 1 s: reused at once, closed after 1 s idle.
    await get(proxy, '/hinted');
    await get(proxy, '/hinted');
    assert.equal(raw.accepted.length, 3);
    const closed = new Promise<void>((resolve) => raw.accepted[2]!.once('close', () => resolve()));
    const started = performance.now();
    await closed;
    assert.ok(performance.now() - started >= 900, 'closed after about 1 s idle');
    await get(proxy, '/plain');
    assert.equal(raw.accepted.length, 4);
  });

  test('a server that cannot be reached: 502 naming the connection error, as through undici', async (t) => {
    const raw = await rawServer(() => ok(''));
    const { port } = raw;
    await new Promise((resolve) => raw.server.close(resolve));
    const proxy = await proxyTo(port);
    t.after(() => proxy.stop());
    const answer = await get(proxy, '/api');
    assert.equal(answer.status, 502);
    assert.equal(JSON.parse(answer.body).message, `chaos proxy: connect ECONNREFUSED 127.0.0.1:${port}`);
  });
});

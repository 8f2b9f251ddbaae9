/**
 * A request the fault proxy hands to the API server in its process
 * (`upstreamInProcess`) ends as the same request sent on over the server's
 * private socket would: when the server stops under it, the proxy answers 502
 * with the words its socket client uses for a connection the server closed;
 * and the server's request timeout applies, so that a body that stops coming
 * gets the 408 Timeout the server's own connections get, not the proxy
 * server's Node timeouts (300 s).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request, type IncomingMessage } from 'node:http';
import { startApiServer, type RunningApiServer } from '@operant/apiserver';
import { loadKubeConfig } from '@operant/runtime';
import { FaultProxy } from '../src/index.js';

/** A proxy in plain HTTP in front of `server`, handing requests over; `handed` resolves at each hand-over. */
async function proxyFor(server: RunningApiServer): Promise<{ proxy: FaultProxy; base: URL; handedOver: () => Promise<void> }> {
  let handed: (() => void) | undefined;
  const proxy = await FaultProxy.start({
    upstream: await loadKubeConfig({ kubeconfigText: server.kubeconfig }),
    plainHttp: true,
    upstreamSocket: server.socketPath!,
    upstreamInProcess: (req, res, cut) => {
      const taken = server.serveInProcess!(req, res, cut);
      if (taken) handed?.();
      return taken;
    },
  });
  const base = new URL(`${(await proxy.clientConfig()).server}/`);
  return { proxy, base, handedOver: () => new Promise<void>((resolve) => (handed = resolve)) };
}

/** Starts a create whose body stops coming after a few bytes; resolves with its answer, or how it was cut. */
function stalledCreate(options: { socketPath: string; authorization: string } | { base: URL }): { outcome: Promise<{ status: number; body: string } | { cut: string }> } {
  const path = '/api/v1/namespaces/default/configmaps';
  const headers = { 'Content-Type': 'application/json', 'Content-Length': '1000' };
  const req =
    'socketPath' in options
      ? request({ socketPath: options.socketPath, method: 'POST', path, headers: { ...headers, Authorization: options.authorization } })
      : request(new URL(path.slice(1), options.base), { method: 'POST', headers });
  const outcome = new Promise<{ status: number; body: string } | { cut: string }>((resolve) => {
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      res.on('error', (err) => resolve({ cut: err.message }));
    });
    req.on('error', (err) => resolve({ cut: err.message }));
  });
  req.write('{"metadata":');
  return { outcome };
}

test('a handed-over request under way when the server stops gets the 502 the socket route gives, not a reset', async () => {
  const server = await startApiServer({ port: 0, privateSocket: true });
  const { proxy, base, handedOver } = await proxyFor(server);
  try {
    const taken = handedOver();
    const { outcome } = stalledCreate({ base });
    await taken;
    await server.stop();
    const answer = await outcome;
    assert.ok('status' in answer, `cut instead of answered: ${JSON.stringify(answer)}`);
    assert.equal(answer.status, 502);
    const status = JSON.parse(answer.body) as { reason: string; message: string; code: number };
    assert.deepEqual(
      { reason: status.reason, message: status.message, code: status.code },
      { reason: 'InternalError', message: 'chaos proxy: the server closed the connection before answering', code: 502 },
    );
  } finally {
    await proxy.stop();
    await server.stop();
  }
});

test("a handed-over request whose body stops coming gets the server's request timeout and answer, as on its socket", async () => {
  const server = await startApiServer({ port: 0, privateSocket: true, requestTimeoutMs: 300 });
  const { proxy, base, handedOver } = await proxyFor(server);
  try {
    const direct = await stalledCreate({ socketPath: server.socketPath!, authorization: `Bearer ${server.adminToken}` }).outcome;
    assert.ok('status' in direct, `the socket cut the request: ${JSON.stringify(direct)}`);
    assert.equal(direct.status, 408);

    const taken = handedOver();
    const { outcome } = stalledCreate({ base });
    await taken;
    // Without the server's timeout, the proxy server's Node timeout (300 s) would end it.
    const noAnswer = new Promise<string>((resolve) => setTimeout(() => resolve('no answer within 30 s'), 30_000).unref());
    const handed = await Promise.race([outcome, noAnswer]);
    assert.deepEqual(handed, direct, 'the same answer as on the socket');
    assert.deepEqual(JSON.parse(direct.body), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Request Timeout', reason: 'Timeout', code: 408 });
  } finally {
    await proxy.stop();
    await server.stop();
  }
});

/**
 * The private socket (`privateSocket`): plain HTTP on a Unix domain socket for
 * the process that embeds the server (a test environment's fault proxy). Off
 * by default; the directory is 0700 and the socket 0600; requests on it are
 * authenticated as over HTTPS (no token, or a wrong one: 401 as a kube Status;
 * the admin token: served); stop() ends its connections, watches included,
 * and removes the directory. `serveInProcess` serves a request another server
 * of the process took in with the same handler (authenticated by its
 * Authorization header, its body read by the server), declines once the
 * server is stopping, and cuts one still under way at stop. A process that
 * exits without stopping its server leaves no directory; one killed outright
 * leaves one, which a later process's first socket sweeps away once nobody
 * listens on it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { startApiServer } from '../src/index.js';
import { leftoverAgeMs, sweepLeftovers } from '../src/http/private-socket.js';

/** A request on the socket; resolves when the answer's headers arrive. */
function onSocket(socketPath: string, path: string, authorization?: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path, headers: authorization ? { Authorization: authorization } : {} }, resolve);
    req.on('error', reject);
    req.end();
  });
}

async function text(res: IncomingMessage): Promise<string> {
  let body = '';
  res.setEncoding('utf8');
  for await (const chunk of res) body += chunk;
  return body;
}

test('off by default: no socket', async () => {
  const server = await startApiServer({ port: 0 });
  try {
    assert.equal(server.socketPath, undefined);
    assert.equal(server.serveInProcess, undefined);
    assert.match(server.url, /^https:/);
  } finally {
    await server.stop();
  }
});

test('a socket 0600 in a directory 0700 of its own; without a valid token 401 as a kube Status, with the admin token served; stop() ends a watch on it and removes the directory', async () => {
  const server = await startApiServer({ port: 0, privateSocket: true });
  const socketPath = server.socketPath!;
  let stopped = false;
  try {
    assert.ok(statSync(socketPath).isSocket(), socketPath);
    assert.equal(statSync(socketPath).mode & 0o777, 0o600);
    assert.equal(statSync(dirname(socketPath)).mode & 0o777, 0o700);
    // HTTPS is served as before, beside it.
    assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);

    for (const authorization of [undefined, 'Bearer not-the-token', `Basic ${Buffer.from(`admin:${server.adminToken}`).toString('base64')}`]) {
      const res = await onSocket(socketPath, '/api/v1/namespaces', authorization);
      assert.equal(res.statusCode, 401, String(authorization));
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.deepEqual(JSON.parse(await text(res)), {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Unauthorized',
        reason: 'Unauthorized',
        code: 401,
      });
    }

    const list = await onSocket(socketPath, '/api/v1/namespaces', `Bearer ${server.adminToken}`);
    assert.equal(list.statusCode, 200);
    const names = (JSON.parse(await text(list)) as { items: Array<{ metadata: { name: string } }> }).items.map((n) => n.metadata.name);
    assert.ok(names.includes('default') && names.includes('kube-system'), names.join(','));

    const watch = await onSocket(socketPath, '/api/v1/namespaces?watch=true', `Bearer ${server.adminToken}`);
    assert.equal(watch.statusCode, 200);
    const ended = new Promise<void>((resolve) => watch.once('close', () => resolve()));
    watch.resume();
    await server.stop();
    stopped = true;
    await ended;
    assert.equal(existsSync(dirname(socketPath)), false, 'the directory is removed');
  } finally {
    if (!stopped) await server.stop();
  }
});

test('serveInProcess: a request another server of the process took in is served by the same handler, authenticated by its Authorization header; one under way at stop is cut, and later ones are declined', async (t) => {
  const server = await startApiServer({ port: 0, privateSocket: true });
  t.after(() => server.stop());
  /** Resolved with each request the front server hands over. */
  let handed: (() => void) | undefined;
  const front = createServer((req, res) => {
    if (server.serveInProcess!(req, res)) return handed?.();
    res.writeHead(599, { 'Content-Type': 'text/plain' });
    res.end('declined');
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    front.closeAllConnections();
    front.close();
  });
  const port = (front.address() as AddressInfo).port;
  const admin = `Bearer ${server.adminToken}`;
  const send = (method: string, path: string, authorization?: string, body?: string): Promise<IncomingMessage> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = { ...(authorization ? { Authorization: authorization } : {}), ...(body ? { 'Content-Type': 'application/json' } : {}) };
      const req = request({ host: '127.0.0.1', port, method, path, headers }, resolve);
      req.on('error', reject);
      req.end(body);
    });

  for (const authorization of [undefined, 'Bearer not-the-token']) {
    const res = await send('GET', '/api/v1/namespaces', authorization);
    assert.equal(res.statusCode, 401, String(authorization));
    assert.equal((JSON.parse(await text(res)) as { reason: string }).reason, 'Unauthorized');
  }
  const created = await send('POST', '/api/v1/namespaces/default/configmaps', admin, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'handed' }, data: { a: '1' } }));
  assert.equal(created.statusCode, 201, await text(created));
  const read = await onSocket(server.socketPath!, '/api/v1/namespaces/default/configmaps/handed', admin);
  assert.equal(read.statusCode, 200);
  assert.deepEqual((JSON.parse(await text(read)) as { data: unknown }).data, { a: '1' }, 'the server read the body');

  // A create whose body is still coming when the server stops.
  const taken = new Promise<void>((resolve) => (handed = resolve));
  const pending = request({ host: '127.0.0.1', port, method: 'POST', path: '/api/v1/namespaces/default/configmaps', headers: { Authorization: admin, 'Content-Type': 'application/json', 'Content-Length': '1000' } });
  const outcome = new Promise<string>((resolve) => {
    pending.on('response', (res) => resolve(`answered ${res.statusCode}`));
    pending.on('error', (err) => resolve(`cut: ${err.message}`));
  });
  pending.write('{"metadata":');
  await taken;
  await server.stop();
  assert.match(await outcome, /^cut: /);
  const declined = await send('GET', '/api/v1/namespaces', admin);
  assert.equal(declined.statusCode, 599);
  assert.equal(await text(declined), 'declined');
});

const child = new URL('./support/private-socket-child.ts', import.meta.url).pathname;

/** Starts a server with a private socket in a child process whose temporary directory is `tmp`; resolves with its socket's path. */
async function serverProcess(tmp: string): Promise<{ proc: ChildProcess; socketPath: string; exited: Promise<void> }> {
  const proc = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', child], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, TMPDIR: tmp } });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  for await (const line of createInterface({ input: proc.stdout! })) {
    if (line.startsWith('socket ')) return { proc, socketPath: line.slice('socket '.length), exited };
  }
  throw new Error('the server process ended before its socket was open');
}

test('a process that exits without stopping its server leaves no socket directory behind', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'private-socket-exit-'));
  try {
    const { proc, socketPath, exited } = await serverProcess(tmp);
    assert.ok(socketPath.startsWith(tmp), socketPath);
    assert.ok(existsSync(socketPath));
    proc.stdin!.end('exit\n');
    await exited;
    assert.equal(existsSync(dirname(socketPath)), false, `${dirname(socketPath)} was left behind`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("a killed process's socket directory is swept once its socket is old and refuses connections; a live server's is kept", async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'private-socket-kill-'));
  const live = await serverProcess(tmp);
  try {
    const killed = await serverProcess(tmp);
    killed.proc.kill('SIGKILL');
    await killed.exited;
    assert.ok(existsSync(killed.socketPath), 'SIGKILL leaves the socket');
    // Young leftovers are kept: a process starting now may not listen yet.
    assert.deepEqual(await sweepLeftovers(tmp), []);
    const old = new Date(Date.now() - 2 * leftoverAgeMs);
    for (const path of [killed.socketPath, live.socketPath]) utimesSync(path, old, old);
    assert.deepEqual(await sweepLeftovers(tmp), [dirname(killed.socketPath)]);
    assert.equal(existsSync(dirname(killed.socketPath)), false);
    assert.ok(statSync(live.socketPath).isSocket(), 'the live server keeps its socket');
  } finally {
    live.proc.kill('SIGKILL');
    await live.exited;
    rmSync(tmp, { recursive: true, force: true });
  }
});

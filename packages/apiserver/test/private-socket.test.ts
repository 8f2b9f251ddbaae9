/**
 * The private socket (`privateSocket`): plain HTTP on a Unix domain socket for
 * the process that embeds the server (a test environment's fault proxy). Off
 * by default; the directory is 0700 and the socket 0600; requests on it are
 * authenticated as over HTTPS (no token, or a wrong one: 401 as a kube Status;
 * the admin token: served); stop() ends its connections, watches included,
 * and removes the directory.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { dirname } from 'node:path';
import { startApiServer } from '../src/index.js';

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

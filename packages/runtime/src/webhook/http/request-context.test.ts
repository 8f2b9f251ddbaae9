/**
 * The per-request context: its signal is made on first read, and a request
 * that ended (timed out, client gone) before the handler looked still shows
 * as aborted, with the first reason.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RequestContext } from './request-context.js';

/** A real response whose client goes away before it is answered, once its `close` has been emitted. */
async function abandonedResponse(): Promise<{ res: ServerResponse; done: () => Promise<void> }> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const arrived = once(server, 'request') as Promise<[unknown, ServerResponse]>;
  const client = request({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, method: 'POST' });
  client.on('error', () => undefined);
  client.write('{');
  const [, res] = await arrived;
  const closed = once(res, 'close');
  client.destroy();
  await closed;
  return { res, done: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

describe('RequestContext', () => {
  test('a signal read before the abort aborts with the reason', () => {
    const ctx = new RequestContext(quiet, undefined);
    const signal = ctx.signal;
    assert.equal(signal.aborted, false);
    assert.equal(ctx.signal, signal, 'one signal per request');
    ctx.abort(new Error('timed out'));
    assert.equal(signal.aborted, true);
    assert.equal((signal.reason as Error).message, 'timed out');
  });

  test('a signal first read after the abort is already aborted, with the first reason', () => {
    const ctx = new RequestContext(quiet, undefined);
    ctx.abort(new Error('the client closed the connection'));
    ctx.abort(new Error('timed out'));
    assert.equal(ctx.signal.aborted, true);
    assert.equal((ctx.signal.reason as Error).message, 'the client closed the connection');
  });

  test('a signal first read after the client went away is aborted, as if it had been listening', async () => {
    const { res, done } = await abandonedResponse();
    try {
      const ctx = new RequestContext(quiet, undefined, res);
      assert.equal(ctx.signal.aborted, true);
      assert.equal((ctx.signal.reason as Error).message, 'the client closed the connection');
    } finally {
      await done();
    }
  });

  test('a signal first read after the request was answered does not abort for the connection', async () => {
    const { res, done } = await abandonedResponse();
    try {
      const ctx = new RequestContext(quiet, undefined, res);
      ctx.finish();
      assert.equal(ctx.signal.aborted, false);
    } finally {
      await done();
    }
  });

  test('carries the logger it was given', () => {
    assert.equal(new RequestContext(quiet, undefined).log, quiet);
  });
});

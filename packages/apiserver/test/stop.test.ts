/**
 * Stopping the server: a connection that never finished its TLS handshake
 * (here: one that never began it) is closed with the others, so stop()
 * resolves at once. Before, the HTTP layer knew only connections that had got
 * as far as HTTP, and such a socket held stop() until Node's 120 s handshake
 * timeout, or for as long as its client kept it open: a test environment
 * restarting its server under clients that were reconnecting hung there.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { startApiServer } from '../src/index.js';

test('stop() closes connections still before their TLS handshake, and resolves at once', async () => {
  const server = await startApiServer({ port: 0 });
  const silent = connect(server.port, '127.0.0.1');
  silent.on('error', () => undefined);
  await once(silent, 'connect');
  const closed = once(silent, 'close');
  // Far below the handshake timeout (120 s) that held it before, far above a loaded machine's stop.
  const late = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), 10_000).unref());
  assert.equal(await Promise.race([server.stop().then(() => 'stopped' as const), late]), 'stopped');
  await closed;
  assert.equal(silent.destroyed, true);
});

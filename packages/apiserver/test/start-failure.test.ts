/**
 * A start that fails to listen (the port is taken) lets go of what it opened:
 * the data dir's database, so that a next start on the same data dir works.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request } from 'node:https';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { startApiServer } from '../src/server.js';

const dir = mkdtempSync(join(tmpdir(), 'operant-start-failure-'));
after(() => rmSync(dir, { recursive: true, force: true }));

it('a start on a taken port fails with EADDRINUSE and leaves the data dir free for the next start', async () => {
  const holder = await startApiServer({ port: 0 });
  try {
    const dataDir = join(dir, 'data');
    await assert.rejects(startApiServer({ port: holder.port, dataDir }), /EADDRINUSE/);
    const next = await startApiServer({ port: 0, dataDir });
    try {
      // A write through it: the database is the new server's.
      const created = await new Promise<number>((resolve, reject) => {
        const req = request(new URL('/api/v1/namespaces', next.url), { method: 'POST', ca: next.caPem, headers: { authorization: `Bearer ${next.adminToken}`, 'content-type': 'application/json' } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end(JSON.stringify({ metadata: { name: 'after-failed-start' } }));
      });
      assert.equal(created, 201);
    } finally {
      await next.stop();
    }
  } finally {
    await holder.stop();
  }
});

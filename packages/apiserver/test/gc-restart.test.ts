/**
 * The garbage collector after a restart on a data dir: it builds its graph of
 * the stored objects in slices after start-up, and must judge nothing an
 * orphan before the graph is whole. A dependent stored before its owner (the
 * owner in a later slice) is kept; a dependent whose owner vanished from the
 * disk (as if the server died between the owner's deletion and the
 * collection) is collected.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import Database from 'better-sqlite3';
import { TestApi, configMap } from './support/api-client.js';

const dataDir = join(mkdtempSync(join(tmpdir(), 'operant-gc-restart-')), 'data');
after(() => rmSync(join(dataDir, '..'), { recursive: true, force: true }));

const cms = '/api/v1/namespaces/gc/configmaps';
const secrets = '/api/v1/namespaces/gc/secrets';
/** More than one slice of the collector's start-up graph (2,000 objects). */
const fillers = 2100;

it('after a restart, a dependent whose owner comes in a later slice is kept, and one whose owner is gone is collected', async () => {
  const api = await TestApi.start({ dataDir });
  try {
    await api.createNamespace('gc');
    // Stored first: the dependents (no owner yet), then the fillers, then the owners, in a bucket of their own after them.
    await api.ok('POST', cms, configMap('kept'), 201);
    await api.ok('POST', cms, configMap('orphan'), 201);
    for (let i = 0; i < fillers; i += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, j) => api.ok('POST', cms, configMap(`filler-${i + j}`), 201)));
    }
    const owners: Record<string, string> = {};
    for (const name of ['owner-kept', 'owner-gone']) {
      const s = await api.ok('POST', secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name }, data: {} }, 201);
      owners[name] = s.metadata.uid;
    }
    for (const [dependent, owner] of [['kept', 'owner-kept'], ['orphan', 'owner-gone']]) {
      const ownerReferences = [{ apiVersion: 'v1', kind: 'Secret', name: owner, uid: owners[owner] }];
      await api.ok('PATCH', `${cms}/${dependent}`, { metadata: { ownerReferences } }, 200, { 'Content-Type': 'application/merge-patch+json' });
    }
  } finally {
    await api.stop();
  }

  // The owner vanishes from the disk while the server is down, before the collector could act.
  const db = new Database(join(dataDir, 'state.db'));
  try {
    const removed = db.prepare('DELETE FROM objects WHERE key = ?').run('/core/secrets/gc/owner-gone');
    assert.equal(removed.changes, 1);
  } finally {
    db.close();
  }

  const again = await TestApi.start({ dataDir });
  try {
    const deadline = Date.now() + 15_000;
    while ((await again.request('GET', `${cms}/orphan`)).status !== 404) {
      assert.ok(Date.now() < deadline, 'the orphan was not collected');
      await new Promise((r) => setTimeout(r, 50));
    }
    const kept = await again.ok('GET', `${cms}/kept`, undefined, 200);
    assert.equal(kept.metadata.ownerReferences[0].name, 'owner-kept');
    const list = await again.ok('GET', cms, undefined, 200);
    assert.equal(list.items.filter((o: { metadata: { name: string } }) => o.metadata.name.startsWith('filler-')).length, fillers);
  } finally {
    await again.stop();
  }
});

it('after a restart, deletions left half done on disk are finished: Foreground and Orphan owners, read from their stored text', async () => {
  const dir = join(dataDir, '..', 'half-done');
  const api = await TestApi.start({ dataDir: dir });
  let ownerUid = '';
  try {
    await api.createNamespace('gc');
    for (const name of ['fg-owner', 'orphan-owner']) {
      const s = await api.ok('POST', secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name }, data: {} }, 201);
      if (name === 'orphan-owner') ownerUid = s.metadata.uid;
    }
    const ownerReferences = [{ apiVersion: 'v1', kind: 'Secret', name: 'orphan-owner', uid: ownerUid }];
    await api.ok('POST', cms, { ...configMap('orphaned'), metadata: { name: 'orphaned', ownerReferences } }, 201);
  } finally {
    await api.stop();
  }

  // As if the server died just after each owner's deletion was recorded (deletionTimestamp and the
  // policy's finalizer), before the collector acted: the foreground owner has no dependents left, the
  // orphaning one still has its dependent.
  const db = new Database(join(dir, 'state.db'));
  try {
    for (const [name, finalizer] of [['fg-owner', 'foregroundDeletion'], ['orphan-owner', 'orphan']]) {
      const key = `/core/secrets/gc/${name}`;
      const row = db.prepare('SELECT value FROM objects WHERE key = ?').get(key) as { value: string };
      const obj = JSON.parse(row.value) as { metadata: Record<string, unknown> };
      obj.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
      obj.metadata.deletionGracePeriodSeconds = 0;
      obj.metadata.finalizers = [finalizer];
      db.prepare('UPDATE objects SET value = ? WHERE key = ?').run(JSON.stringify(obj), key);
    }
  } finally {
    db.close();
  }

  const again = await TestApi.start({ dataDir: dir });
  try {
    const deadline = Date.now() + 15_000;
    for (const name of ['fg-owner', 'orphan-owner']) {
      while ((await again.request('GET', `${secrets}/${name}`)).status !== 404) {
        assert.ok(Date.now() < deadline, `${name} was not finished`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    // Orphaned, not deleted: its reference to the owner is gone.
    const orphaned = await again.ok('GET', `${cms}/orphaned`, undefined, 200);
    assert.equal(orphaned.metadata.ownerReferences, undefined);
  } finally {
    await again.stop();
  }
});

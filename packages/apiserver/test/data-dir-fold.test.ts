/**
 * A commit writes only the event log; the objects table is brought up to date
 * from it later (the fold), and a start replays the events newer than the fold
 * over it. So after kill -9 the table is behind, and what a restart serves must
 * still be every acknowledged write: updates, deletes of objects the table
 * holds, keys created again. A data dir written when every commit wrote the
 * table too (no `folded` mark) opens as it was, and the writes made on it
 * survive kill -9 as well.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import Database from 'better-sqlite3';
import { StoreProcess, dataDirFromDump } from './support/store-process.js';

const root = mkdtempSync(join(tmpdir(), 'operant-fold-'));
after(() => {
  StoreProcess.killAll();
  rmSync(root, { recursive: true, force: true });
});

/** What a stopped store left on disk: the objects table (name -> `<data.blob>@<rev>`), the fold mark, and how many events. */
function onDisk(dataDir: string): { objects: Record<string, string>; folded: number | undefined; events: number } {
  const db = new Database(join(dataDir, 'state.db'), { readonly: true });
  try {
    const rows = db.prepare('SELECT rev, value FROM objects ORDER BY key').all() as Array<{ rev: number; value: string }>;
    const objects = Object.fromEntries(
      rows.map((r) => {
        const o = JSON.parse(r.value) as { metadata: { name: string }; data: { blob: string } };
        return [o.metadata.name, `${o.data.blob}@${r.rev}`];
      }),
    );
    const folded = (db.prepare("SELECT value FROM meta WHERE name = 'folded'").get() as { value: number } | undefined)?.value;
    const { events } = db.prepare('SELECT COUNT(*) AS events FROM events').get() as { events: number };
    return { objects, folded, events };
  } finally {
    db.close();
  }
}

/**
 * Starts the store on `dataDir` again and checks what it serves: the revision it loaded, the
 * objects (name -> `<data.blob>@<rev>`), and the events a watch from `from` replays.
 */
async function restartServing(dataDir: string, expected: { loaded: number; from: number; blobs: Record<string, string>; replayed: string[] }): Promise<StoreProcess> {
  const { store, loaded } = await StoreProcess.start(dataDir);
  assert.equal(loaded, expected.loaded);
  const state = await store.state(expected.from);
  assert.deepEqual(state.blobs, expected.blobs);
  assert.deepEqual(state.replayed, expected.replayed);
  return store;
}

it('after kill -9, the writes not yet folded into the objects table are replayed over it: updates, deletes, keys created again', async () => {
  const dataDir = join(root, 'replay');
  let { store } = await StoreProcess.start(dataDir);
  const a = await store.write('create a');
  const b = await store.write('create b');
  await store.write('create c');
  // A compaction during the delete's flush trims the whole log, and folds it first.
  const folded = await store.write('delete-compact c');
  const a2 = await store.write('update a a2');
  await store.write('delete b');
  const c = await store.write('create c');
  await store.write('create x');
  const last = await store.write('delete x');
  await store.kill9();

  // The table is as the fold left it; the five writes after it are only in the log.
  assert.deepEqual(onDisk(dataDir), { objects: { a: `@${a}`, b: `@${b}` }, folded, events: 5 });

  store = await restartServing(dataDir, { loaded: last, from: folded, blobs: { a: `a2@${a2}`, c: `@${c}` }, replayed: ['MODIFIED a', 'DELETED b', 'ADDED c', 'ADDED x', 'DELETED x'] });

  // A write on top of the replayed ones, and kill -9 again: both restarts' worth come back. (The
  // child keeps a history of 5 events: the replays from here on start after the update.)
  const y = await store.write('create y');
  await store.kill9();
  const restarted = { loaded: y, from: a2, blobs: { a: `a2@${a2}`, c: `@${c}`, y: `@${y}` }, replayed: ['DELETED b', 'ADDED c', 'ADDED x', 'DELETED x', 'ADDED y'] };
  store = await restartServing(dataDir, restarted);

  // A clean stop folds the log: the table then holds exactly the state, and a start reads it so.
  await store.stop();
  assert.deepEqual(onDisk(dataDir), { objects: { a: `a2@${a2}`, c: `@${c}`, y: `@${y}` }, folded: y, events: 6 });
  store = await restartServing(dataDir, restarted);
  await store.stop();
});

it('a data dir whose every commit wrote the objects table too opens as it was, and the writes made on it survive kill -9', async () => {
  const dataDir = join(root, 'both-tables');
  dataDirFromDump(dataDir, new URL('./support/both-tables-state.sql', import.meta.url));
  assert.deepEqual(onDisk(dataDir), { objects: { a: '@2', c: '@4', d: '@6' }, folded: undefined, events: 5 });

  let store = await restartServing(dataDir, { loaded: 6, from: 1, blobs: { a: '@2', c: '@4', d: '@6' }, replayed: ['ADDED a', 'ADDED b', 'ADDED c', 'DELETED b', 'ADDED d'] });

  const deleted = await store.write('delete a');
  const e = await store.write('create e');
  await store.kill9();
  // The first commit marked the table folded through the revision it was at; the writes are only in the log.
  assert.deepEqual(onDisk(dataDir), { objects: { a: '@2', c: '@4', d: '@6' }, folded: 6, events: 7 });

  // (The child keeps a history of 5 events.)
  store = await restartServing(dataDir, { loaded: e, from: 4, blobs: { c: '@4', d: '@6', e: `@${e}` }, replayed: ['DELETED b', 'ADDED d', 'DELETED a', 'ADDED e'] });
  assert.ok(deleted > 6 && e > deleted);
  await store.stop();
});

/**
 * The revision of a data dir never goes back: not across restarts, kill -9,
 * nor a compaction that trimmed the whole event log after the newest objects
 * were deleted (then no event and no object holds the newest revision, and the
 * store must still continue after it). Both on a data dir this storage made,
 * and on one from the storage that wrote the revision at every commit.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import Database from 'better-sqlite3';
import { StoreProcess, dataDirFromDump } from './support/store-process.js';

/** What the stopped store left on disk: how many events, and the newest revision an object holds. */
function onDisk(dataDir: string): { events: number; newestObject: number } {
  const db = new Database(join(dataDir, 'state.db'), { readonly: true });
  try {
    const { events } = db.prepare('SELECT COUNT(*) AS events FROM events').get() as { events: number };
    const { newest } = db.prepare('SELECT MAX(rev) AS newest FROM objects').get() as { newest: number | null };
    return { events, newestObject: newest ?? 0 };
  } finally {
    db.close();
  }
}

/** Trims the whole log right after deleting `name`, kills -9, and shows the revision held only by what the trim wrote. */
async function deleteTrimKill(store: StoreProcess, dataDir: string, name: string): Promise<number> {
  // 1,000 compactions make the next flush trim the log; the one made during the delete's flush reaches the delete itself.
  await store.compact(1000);
  const deleted = await store.write(`delete-compact ${name}`);
  await store.kill9();
  const disk = onDisk(dataDir);
  assert.equal(disk.events, 0, 'the trim emptied the log');
  assert.ok(disk.newestObject < deleted, `no object holds the delete's revision ${deleted} (newest ${disk.newestObject})`);
  return deleted;
}

/** Every step from a start: restarts see at least the last acknowledged revision, and write after it. */
async function neverBackwards(dataDir: string, startedAt: number): Promise<void> {
  let { store, loaded } = await StoreProcess.start(dataDir);
  assert.equal(loaded, startedAt);
  let acked = await store.write('create d');
  assert.ok(acked > startedAt, `the first write ${acked} is after the loaded revision ${startedAt}`);

  // kill -9 after an acknowledged write.
  await store.kill9();
  ({ store, loaded } = await StoreProcess.start(dataDir));
  assert.ok(loaded >= acked, `after kill -9: loaded ${loaded}, acknowledged ${acked}`);
  acked = await store.write('create e');

  // kill -9 right after a compaction that trimmed the whole log.
  acked = await deleteTrimKill(store, dataDir, 'e');
  ({ store, loaded } = await StoreProcess.start(dataDir));
  assert.ok(loaded >= acked, `after the trim and kill -9: loaded ${loaded}, acknowledged ${acked}`);
  const next = await store.write('create f');
  assert.ok(next > acked, `the next write ${next} is after ${acked}`);

  // A clean stop, and again a trim of everything, then a restart.
  await store.stop();
  ({ store, loaded } = await StoreProcess.start(dataDir));
  assert.ok(loaded >= next, `after a clean stop: loaded ${loaded}, acknowledged ${next}`);
  acked = await deleteTrimKill(store, dataDir, 'f');
  ({ store, loaded } = await StoreProcess.start(dataDir));
  assert.ok(loaded >= acked, `after the second trim and kill -9: loaded ${loaded}, acknowledged ${acked}`);
  assert.ok((await store.write('create g')) > acked);
  await store.stop();
}

const root = mkdtempSync(join(tmpdir(), 'operant-revision-'));
after(() => {
  StoreProcess.killAll();
  rmSync(root, { recursive: true, force: true });
});

it('on a new data dir, the revision never goes back across restarts, kill -9 and a trim of the whole log', async () => {
  const dataDir = join(root, 'new');
  const { store, loaded } = await StoreProcess.start(dataDir);
  assert.equal(loaded, 1);
  for (const name of ['a', 'b', 'c']) await store.write(`create ${name}`);
  const deleted = await deleteTrimKill(store, dataDir, 'c');
  await neverBackwards(dataDir, deleted);
});

it('on a data dir that wrote the revision at every commit, the revision it holds is where the store continues', async () => {
  const dataDir = join(root, 'old');
  dataDirFromDump(dataDir, new URL('./support/old-format-state.sql', import.meta.url));
  // Only the old format's meta row holds revision 5 (see the fixture).
  assert.deepEqual(onDisk(dataDir), { events: 0, newestObject: 3 });
  await neverBackwards(dataDir, 5);
});

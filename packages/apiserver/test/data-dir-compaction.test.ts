/**
 * The stored event log is trimmed as the history moves on (SqlitePersistence
 * .compact, in batches of 1,000 compactions), and a server restarted on the
 * trimmed data dir still has every object, continues the revisions, resumes
 * watches from a revision it kept, and answers 410 Expired for one it
 * trimmed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import Database from 'better-sqlite3';
import { TestApi } from './support/api-client.js';

const historyCapacity = 10;
/** SqlitePersistence trims the log once per this many compactions. */
const compactionBatch = 1000;

const dataDir = join(mkdtempSync(join(tmpdir(), 'operant-compact-')), 'data');
after(() => rmSync(dataDir, { recursive: true, force: true }));

function storedEvents(): { count: number; oldest: number } {
  const db = new Database(join(dataDir, 'state.db'), { readonly: true });
  try {
    const row = db.prepare('SELECT COUNT(*) AS count, MIN(rev) AS oldest FROM events').get() as { count: number; oldest: number };
    return row;
  } finally {
    db.close();
  }
}

it('the event log is trimmed, and a restart on it serves objects, revisions and watches as before', async () => {
  const writes = historyCapacity + compactionBatch + 5;
  let lastRevision = 0;
  let firstRevision = 0;
  const api = await TestApi.start({ dataDir, historyCapacity });
  try {
    await api.createNamespace('compact');
    const first = await api.ok('POST', '/api/v1/namespaces/compact/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-0' }, data: { n: '0' } }, 201);
    firstRevision = Number(first.metadata.resourceVersion);
    for (let i = 1; i < writes; i++) {
      const cm = await api.ok('PUT', '/api/v1/namespaces/compact/configmaps/cm-0', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-0' }, data: { n: String(i) } }, 200);
      lastRevision = Number(cm.metadata.resourceVersion);
    }
  } finally {
    await api.stop();
  }

  // More than a batch of compactions happened: the log was cut down, not kept whole (over 1,000 events).
  const stored = storedEvents();
  assert.ok(stored.count < compactionBatch, `${stored.count} events stored after ${writes} writes`);
  assert.ok(stored.oldest > firstRevision, `the oldest stored event (${stored.oldest}) is past the first write (${firstRevision})`);

  const again = await TestApi.start({ dataDir, historyCapacity });
  try {
    const cm = await again.ok('GET', '/api/v1/namespaces/compact/configmaps/cm-0', undefined, 200);
    assert.equal(cm.data.n, String(writes - 1));
    assert.equal(Number(cm.metadata.resourceVersion), lastRevision);

    // A watch from a revision still kept replays what came after it, then the next write.
    const watch = await again.watch(`/api/v1/namespaces/compact/configmaps?watch=1&resourceVersion=${lastRevision - 2}`);
    const replayed = await watch.take(2);
    assert.deepEqual(replayed.map((e) => [e.type, e.object.data.n]), [
      ['MODIFIED', String(writes - 2)],
      ['MODIFIED', String(writes - 1)],
    ]);
    const next = await again.ok('PUT', '/api/v1/namespaces/compact/configmaps/cm-0', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-0' }, data: { n: 'after restart' } }, 200);
    assert.ok(Number(next.metadata.resourceVersion) > lastRevision, 'revisions continue after the restart');
    const live = await watch.next();
    assert.deepEqual([live.type, live.object.data.n], ['MODIFIED', 'after restart']);
    watch.close();

    // A revision that was trimmed is gone: 410 Expired, as etcd's compaction makes kube answer.
    const expired = await again.watch(`/api/v1/namespaces/compact/configmaps?watch=1&resourceVersion=${firstRevision}`);
    const [gone] = await expired.take(1);
    expired.close();
    assert.equal(gone?.type, 'ERROR');
    assert.equal(gone?.object.code, 410);
    assert.equal(gone?.object.reason, 'Expired');
  } finally {
    await again.stop();
  }
});

it('a trim that fails (as on a full disk) costs no acknowledged write: each is stored, shown to watchers and kept across a restart; the next trim goes on', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'operant-compact-fail-')), 'data');
  // Room for what the server writes itself at each start (APIServices, FlowSchema status), so that
  // the watch below, from before the restart, is still served.
  const roomyHistory = 200;
  after(() => rmSync(dir, { recursive: true, force: true }));
  const cmPath = '/api/v1/namespaces/trim/configmaps';
  const put = (api: TestApi, n: string) => api.ok('PUT', `${cmPath}/cm`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { n } }, 200);
  const eventCount = (): number => {
    const db = new Database(join(dir, 'state.db'), { readonly: true });
    try {
      return (db.prepare('SELECT COUNT(*) AS count FROM events').get() as { count: number }).count;
    } finally {
      db.close();
    }
  };

  let api = await TestApi.start({ dataDir: dir, historyCapacity: roomyHistory });
  await api.createNamespace('trim');
  const created = await api.ok('POST', cmPath, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { n: 'created' } }, 201);
  await api.stop();
  // SQLite refuses every DELETE of the log from now on, as it refuses one on a full disk.
  const db = new Database(join(dir, 'state.db'));
  db.exec("CREATE TRIGGER refuse_trim BEFORE DELETE ON events BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END");
  db.close();

  const writes = roomyHistory + compactionBatch + 5;
  api = await TestApi.start({ dataDir: dir, historyCapacity: roomyHistory });
  let last = '';
  try {
    const watch = await api.watch(`${cmPath}?watch=1&resourceVersion=${created.metadata.resourceVersion}`);
    const seen: string[] = [];
    for (let i = 0; i < writes; i++) {
      last = (await put(api, String(i))).metadata.resourceVersion;
      // Read as it goes: a history of 10 leaves a watcher that lags behind with a 410, as etcd's compaction does.
      seen.push((await watch.next()).object.data.n);
    }
    watch.close();
    assert.deepEqual(seen, Array.from({ length: writes }, (_, i) => String(i)), 'the watch saw every acknowledged write, in order');
  } finally {
    await api.stop();
  }
  assert.ok(eventCount() > compactionBatch, 'the trim was refused: the log kept its events');

  // A restart on the untrimmed log serves the last acknowledged write and resumes watches.
  api = await TestApi.start({ dataDir: dir, historyCapacity: roomyHistory });
  try {
    const cm = await api.ok('GET', `${cmPath}/cm`, undefined, 200);
    assert.deepEqual([cm.data.n, cm.metadata.resourceVersion], [String(writes - 1), last]);
  } finally {
    await api.stop();
  }

  // Once the disk takes deletes again, the next batch trims the log.
  const fixed = new Database(join(dir, 'state.db'));
  fixed.exec('DROP TRIGGER refuse_trim');
  fixed.close();
  api = await TestApi.start({ dataDir: dir, historyCapacity: roomyHistory });
  try {
    for (let i = 0; i < compactionBatch + 5; i++) await put(api, `again-${i}`);
  } finally {
    await api.stop();
  }
  assert.ok(eventCount() < compactionBatch, `${eventCount()} events stored after the trim could run again`);
});

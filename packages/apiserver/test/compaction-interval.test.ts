/**
 * Timed compaction (etcdCompactionIntervalMs, kube-apiserver's
 * --etcd-compaction-interval): each tick compacts through the revision noted
 * at the tick before (etcd's Compact keeps that revision itself), so a watch
 * from before it gets 410 Expired with kube's "too old resource version"
 * text while one from the compacted revision goes on; with a data dir the
 * stored event log is trimmed at the same time, and a restart on it serves the
 * live data. The compactor's interval timer is driven by node:test's mock
 * timers, so each tick happens exactly when the test says.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, it, mock } from 'node:test';
import Database from 'better-sqlite3';
import { TestApi } from './support/api-client.js';

const intervalMs = 60_000;
const cmPath = '/api/v1/namespaces/compaction/configmaps';
const configMap = (name: string, n: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { n } });

beforeEach(() => mock.timers.enable({ apis: ['setInterval'] }));
afterEach(() => mock.timers.reset());

/** The store's revision now: a list's resourceVersion. */
async function currentRevision(api: TestApi): Promise<number> {
  return Number((await api.ok('GET', cmPath, undefined, 200)).metadata.resourceVersion);
}

async function expectExpired(api: TestApi, rv: number): Promise<string> {
  const watch = await api.watch(`${cmPath}?watch=1&resourceVersion=${rv}`);
  const [event] = await watch.take(1);
  watch.close();
  assert.equal(event?.type, 'ERROR');
  assert.equal(event?.object.code, 410);
  assert.equal(event?.object.reason, 'Expired');
  return event?.object.message as string;
}

it('each tick compacts through the revision noted at the tick before: older watches get 410 "too old resource version", newer ones are served', async () => {
  const api = await TestApi.start({ etcdCompactionIntervalMs: intervalMs });
  try {
    await api.createNamespace('compaction');
    const created = Number((await api.ok('POST', cmPath, configMap('a', '0'), 201)).metadata.resourceVersion);
    await api.ok('PUT', `${cmPath}/a`, configMap('a', '1'), 200);

    // The first tick only notes the revision (kube does not compact on bootstrap): the history is whole.
    const noted = await currentRevision(api);
    mock.timers.tick(intervalMs);
    const replay = await api.watch(`${cmPath}?watch=1&resourceVersion=${created - 1}`);
    assert.deepEqual((await replay.take(2)).map((e) => [e.type, e.object.data.n]), [
      ['ADDED', '0'],
      ['MODIFIED', '1'],
    ]);
    replay.close();

    const later = Number((await api.ok('PUT', `${cmPath}/a`, configMap('a', '2'), 200)).metadata.resourceVersion);
    mock.timers.tick(intervalMs);

    // Compacted through the noted revision - 1 (or a little later, should the server have written meanwhile).
    const message = await expectExpired(api, created - 1);
    const m = /^too old resource version: (\d+) \((\d+)\)$/.exec(message);
    assert.ok(m, message);
    assert.equal(Number(m[1]), created - 1);
    assert.ok(Number(m[2]) >= noted - 1 && Number(m[2]) < later, `compacted through ${m[2]}: the revision noted a tick earlier (${noted}) - 1`);
    // A list at a revision from before the compaction is expired too, as with etcd's.
    const exact = await api.request('GET', `${cmPath}?resourceVersion=${created - 1}&resourceVersionMatch=Exact`);
    assert.equal(exact.status, 410);
    assert.equal(exact.body.message, 'The resourceVersion for the provided list is too old.');

    // From the compacted revision on, watches are served: the events after it, then the next write.
    const compactedThrough = Number(m[2]);
    const fresh = await api.watch(`${cmPath}?watch=1&resourceVersion=${compactedThrough}`);
    await api.ok('PUT', `${cmPath}/a`, configMap('a', '3'), 200);
    const seen: string[] = [];
    while (seen.at(-1) !== '3') {
      const event = await fresh.next();
      assert.ok(Number(event.object.metadata.resourceVersion) > compactedThrough);
      seen.push(event.object.data.n);
    }
    fresh.close();
    assert.deepEqual(seen.slice(-2), ['2', '3'], `replayed ${seen.join(', ')}`);
  } finally {
    await api.stop();
  }
});

it('an interval of 0 never compacts', async () => {
  const api = await TestApi.start({ etcdCompactionIntervalMs: 0 });
  try {
    await api.createNamespace('compaction');
    const created = Number((await api.ok('POST', cmPath, configMap('a', '0'), 201)).metadata.resourceVersion);
    mock.timers.tick(10 * intervalMs);
    await api.ok('PUT', `${cmPath}/a`, configMap('a', '1'), 200);
    mock.timers.tick(10 * intervalMs);
    const watch = await api.watch(`${cmPath}?watch=1&resourceVersion=${created - 1}`);
    assert.deepEqual((await watch.take(2)).map((e) => e.type), ['ADDED', 'MODIFIED']);
    watch.close();
  } finally {
    await api.stop();
  }
});

it('with a data dir the event log is trimmed at each compaction, and a restart serves the live data and 410 for the trimmed revisions', async () => {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'operant-compaction-interval-')), 'data');
  try {
    let api = await TestApi.start({ dataDir, etcdCompactionIntervalMs: intervalMs });
    let created = 0;
    let noted = 0;
    let last = '';
    try {
      await api.createNamespace('compaction');
      created = Number((await api.ok('POST', cmPath, configMap('a', '0'), 201)).metadata.resourceVersion);
      for (let i = 1; i <= 5; i++) await api.ok('PUT', `${cmPath}/a`, configMap('a', String(i)), 200);
      noted = await currentRevision(api);
      mock.timers.tick(intervalMs);
      last = (await api.ok('PUT', `${cmPath}/a`, configMap('a', 'last'), 200)).metadata.resourceVersion;
      await api.ok('POST', cmPath, configMap('b', 'live'), 201);
      mock.timers.tick(intervalMs);
    } finally {
      await api.stop();
    }

    // Trimmed at the compaction (not at a later batch of 1,000): only the events after it are stored. It goes
    // through the revision noted at the tick before less one, so of the create and its five updates only the
    // last update's event may stay: when nothing else wrote meanwhile (the server's controllers' first writes
    // come with its bootstrap now), that update is the noted revision itself.
    const db = new Database(join(dataDir, 'state.db'), { readonly: true });
    const stored = db.prepare('SELECT MIN(rev) AS oldest, COUNT(*) AS count FROM events').get() as { oldest: number; count: number };
    db.close();
    assert.ok(stored.oldest >= noted - 1 && stored.oldest > created + 4, `the oldest stored event is ${stored.oldest}; compacted through ${noted - 1}`);
    assert.ok(stored.oldest <= Number(last), `the events after the compaction are kept (oldest ${stored.oldest}, last write ${last})`);

    api = await TestApi.start({ dataDir, etcdCompactionIntervalMs: intervalMs });
    try {
      const list = await api.ok('GET', cmPath, undefined, 200);
      assert.deepEqual(list.items.map((o: { metadata: { name: string }; data: { n: string } }) => [o.metadata.name, o.data.n]), [
        ['a', 'last'],
        ['b', 'live'],
      ]);
      const message = await expectExpired(api, created);
      assert.match(message, new RegExp(`^too old resource version: ${created} \\(\\d+\\)$`));
      const resumed = await api.watch(`${cmPath}?watch=1&resourceVersion=${Number(last) - 1}`);
      assert.deepEqual((await resumed.take(2)).map((e) => [e.type, e.object.metadata.name, e.object.data.n]), [
        ['MODIFIED', 'a', 'last'],
        ['ADDED', 'b', 'live'],
      ]);
      resumed.close();
    } finally {
      await api.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

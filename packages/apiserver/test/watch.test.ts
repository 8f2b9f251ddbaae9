/**
 * Watch over real HTTPS against the embedded server: selectors (objects
 * entering and leaving them), starting from a resourceVersion, expiry, bookmarks
 * and initial events, fan-out to many watchers, slow watchers, timeouts, field
 * selectors and Table events.
 */
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { TestApi, configMap, summary, type Json, type WatchEvent } from './support/api-client.js';

const historyCapacity = 600;
const maxWatchBufferBytes = 256 * 1024;
const bookmarkIntervalMs = 50;

let api: TestApi;

before(async () => {
  api = await TestApi.start({ historyCapacity, bookmarkIntervalMs, maxWatchBufferBytes });
});
after(async () => {
  await api?.stop();
});

const cms = (ns: string): string => `/api/v1/namespaces/${ns}/configmaps`;
const mergePatch = { 'Content-Type': 'application/merge-patch+json' };

async function patch(ns: string, name: string, body: unknown): Promise<Json> {
  return api.ok('PATCH', `${cms(ns)}/${name}`, body, 200, mergePatch);
}

async function create(ns: string, name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}): Promise<Json> {
  return api.ok('POST', cms(ns), configMap(name, labels, data), 201);
}

async function remove(ns: string, name: string): Promise<void> {
  await api.ok('DELETE', `${cms(ns)}/${name}`, undefined, 200);
}

async function currentRevision(ns: string): Promise<number> {
  const list = await api.ok('GET', cms(ns), undefined, 200);
  return Number(list.metadata.resourceVersion);
}

const rvOf = (obj: Json): number => Number(obj.metadata.resourceVersion);

describe('watch with a label selector', () => {
  it('sees only matching objects; leaving the selector is DELETED, entering it is ADDED', async () => {
    const ns = 'w-labels';
    await api.createNamespace(ns);
    const w = await api.watch(`${cms(ns)}?watch=true&labelSelector=${encodeURIComponent('app=web')}`);
    assert.equal(w.status, 200);
    assert.match(String(w.headers['content-type']), /^application\/json/);

    const a1 = await create(ns, 'a', { app: 'web' }, { v: '1' });
    await create(ns, 'b', { app: 'db' });
    const aOut = await patch(ns, 'a', { metadata: { labels: { app: 'db' } } });
    await patch(ns, 'b', { data: { v: '2' } }); // never matched: unseen
    await patch(ns, 'a', { data: { v: '3' } }); // out of the selector: unseen
    const aIn = await patch(ns, 'a', { metadata: { labels: { app: 'web' } } });
    const aMod = await patch(ns, 'a', { data: { v: '4' } });
    const bIn = await patch(ns, 'b', { metadata: { labels: { app: 'web', tier: 'x' } } });
    await remove(ns, 'a');
    const sentinel = await create(ns, 'c', { app: 'web' });

    const events = await w.until((e) => e.object.metadata.name === 'c');
    assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata.name}`), [
      'ADDED a',
      'DELETED a',
      'ADDED a',
      'MODIFIED a',
      'ADDED b',
      'DELETED a',
      'ADDED c',
    ]);
    assert.equal(rvOf(events[0].object), rvOf(a1));
    // kube's watch cache sends the object as it was when it last matched, at the event's resourceVersion.
    assert.equal(rvOf(events[1].object), rvOf(aOut));
    assert.deepEqual(events[1].object.metadata.labels, { app: 'web' });
    assert.deepEqual(events[1].object.data, { v: '1' });
    assert.equal(rvOf(events[2].object), rvOf(aIn));
    assert.deepEqual(events[2].object.data, { v: '3' });
    assert.equal(rvOf(events[3].object), rvOf(aMod));
    assert.deepEqual(events[4].object, bIn);
    const deletedRv = rvOf(events[5].object);
    assert.ok(deletedRv > rvOf(bIn) && deletedRv < rvOf(sentinel), `DELETED at ${deletedRv}, between ${rvOf(bIn)} and ${rvOf(sentinel)}`);
    assert.deepEqual(events[5].object.data, { v: '4' });
    assert.equal(rvOf(events[6].object), rvOf(sentinel));
    for (const e of events) assert.equal(e.object.kind, 'ConfigMap');
    w.close();
  });

  it('applies set-based selectors to watch events', async () => {
    const ns = 'w-setlabels';
    await api.createNamespace(ns);
    const w = await api.watch(`${cms(ns)}?watch=true&labelSelector=${encodeURIComponent('tier in (front,back),!legacy')}`);
    await create(ns, 'f', { tier: 'front' });
    await create(ns, 'm', { tier: 'middle' });
    await create(ns, 'l', { tier: 'back', legacy: 'yes' });
    await patch(ns, 'f', { metadata: { labels: { legacy: 'true' } } });
    await create(ns, 'z', { tier: 'back' });
    const events = await w.until((e) => e.object.metadata.name === 'z');
    assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED f', 'DELETED f', 'ADDED z']);
    w.close();
  });
});

describe('watch from a resourceVersion', () => {
  it('sees exactly the later events, in order, with their resourceVersions', async () => {
    const ns = 'w-from';
    await api.createNamespace(ns);
    await api.createNamespace('w-from-other');
    await create(ns, 'x1');
    const x2 = await create(ns, 'x2');
    const start = rvOf(x2);

    const expected: string[] = [];
    const m1 = await patch(ns, 'x1', { data: { k: 'v' } });
    expected.push(`MODIFIED x1 ${rvOf(m1)}`);
    await create('w-from-other', 'elsewhere'); // another namespace: not in this watch
    const x3 = await create(ns, 'x3');
    expected.push(`ADDED x3 ${rvOf(x3)}`);
    await remove(ns, 'x2');
    const m3 = await patch(ns, 'x3', { data: { k: 'w' } });
    // The delete's revision lies between its neighbours; the server is otherwise idle.
    expected.push(`DELETED x2 ${rvOf(m3) - 1}`);
    expected.push(`MODIFIED x3 ${rvOf(m3)}`);

    const w = await api.watch(`${cms(ns)}?watch=true&resourceVersion=${start}`);
    assert.equal(w.status, 200);
    const replayed = await w.take(expected.length);
    assert.deepEqual(replayed.map(summary), expected);
    // The next event is the next write: nothing else was replayed, nothing is missing.
    const x4 = await create(ns, 'x4');
    assert.equal(summary(await w.next()), `ADDED x4 ${rvOf(x4)}`);
    w.close();

    // Started from the last revision, a watch sees nothing old.
    const w2 = await api.watch(`${cms(ns)}?watch=true&resourceVersion=${rvOf(x4)}`);
    const x5 = await create(ns, 'x5');
    assert.equal(summary(await w2.next()), `ADDED x5 ${rvOf(x5)}`);
    w2.close();
  });

  it('gets HTTP 200 and one ERROR event with a 410 Expired Status for a compacted resourceVersion, then the stream ends', async () => {
    const ns = 'w-expired';
    await api.createNamespace(ns);
    const old = await currentRevision(ns);
    // Write past the retained history, in parallel batches.
    for (let i = 0; i < historyCapacity + 10; i += 50) {
      await Promise.all(Array.from({ length: Math.min(50, historyCapacity + 10 - i) }, (_, j) => create(ns, `e-${i + j}`)));
    }
    const w = await api.watch(`${cms(ns)}?watch=true&resourceVersion=${old}`);
    assert.equal(w.status, 200);
    assert.equal(await w.ended, 'end');
    assert.equal(w.events.length, 1);
    const [e] = w.events;
    assert.equal(e.type, 'ERROR');
    const { message, ...rest } = e.object;
    assert.deepEqual(rest, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Expired', code: 410 });
    const m = /^too old resource version: (\d+) \((\d+)\)$/.exec(message);
    assert.ok(m, `message: ${message}`);
    assert.equal(Number(m[1]), old);
    assert.ok(Number(m[2]) > old);

    // A list at that revision is also gone, and a watch from a recent revision still works.
    const list = await api.request('GET', `${cms(ns)}?resourceVersion=${old}&resourceVersionMatch=Exact`);
    assert.equal(list.status, 410);
    assert.equal(list.body.reason, 'Expired');
    const now = await currentRevision(ns);
    const w2 = await api.watch(`${cms(ns)}?watch=true&resourceVersion=${now}`);
    const fresh = await create(ns, 'fresh');
    assert.equal(summary(await w2.next()), `ADDED fresh ${rvOf(fresh)}`);
    w2.close();
  });
});

describe('bookmarks', () => {
  it('sends BOOKMARK events carrying only kind, apiVersion and metadata.resourceVersion when asked, and none otherwise', async () => {
    const ns = 'w-bookmarks';
    await api.createNamespace(ns);
    const b1 = await create(ns, 'b1');
    const asked = await api.watch(`${cms(ns)}?watch=true&resourceVersion=${rvOf(b1)}&allowWatchBookmarks=true`);
    const notAsked = await api.watch(`${cms(ns)}?watch=true&resourceVersion=${rvOf(b1)}`);
    const notFalse = await api.watch(`${cms(ns)}?watch=true&resourceVersion=${rvOf(b1)}&allowWatchBookmarks=false`);

    const bookmarks = await asked.take(2);
    for (const bm of bookmarks) {
      assert.equal(bm.type, 'BOOKMARK');
      assert.deepEqual(Object.keys(bm.object).sort(), ['apiVersion', 'kind', 'metadata']);
      assert.equal(bm.object.kind, 'ConfigMap');
      assert.equal(bm.object.apiVersion, 'v1');
      assert.deepEqual(Object.keys(bm.object.metadata), ['resourceVersion']);
      assert.ok(Number(bm.object.metadata.resourceVersion) >= rvOf(b1));
    }
    // Two bookmark intervals have passed: the other watchers got nothing in that time.
    const b2 = await create(ns, 'b2');
    assert.equal(summary(await notAsked.next()), `ADDED b2 ${rvOf(b2)}`);
    assert.equal(summary(await notFalse.next()), `ADDED b2 ${rvOf(b2)}`);
    const afterWrite = await asked.until((e) => e.type === 'ADDED');
    assert.equal(summary(afterWrite[afterWrite.length - 1]), `ADDED b2 ${rvOf(b2)}`);
    const later = await asked.until((e) => e.type === 'BOOKMARK');
    assert.equal(later.length, 1);
    assert.ok(Number(later[0].object.metadata.resourceVersion) >= rvOf(b2));
    assert.equal(notAsked.events.length, 1);
    assert.equal(notFalse.events.length, 1);
    for (const w of [asked, notAsked, notFalse]) w.close();
  });

  it('sendInitialEvents: ADDED for every existing object, then a BOOKMARK marking the end of the initial events', async () => {
    const ns = 'w-initial';
    await api.createNamespace(ns);
    const existing = [await create(ns, 'i1', { app: 'x' }), await create(ns, 'i2', { app: 'x' }), await create(ns, 'i3', { app: 'y' })];
    const listRv = await currentRevision(ns);
    const w = await api.watch(`${cms(ns)}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
    assert.equal(w.status, 200);
    const initial = await w.take(3);
    assert.deepEqual(initial.map((e) => e.type), ['ADDED', 'ADDED', 'ADDED']);
    assert.deepEqual(initial.map((e) => e.object).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name)), existing);
    const end = await w.next();
    assert.equal(end.type, 'BOOKMARK');
    assert.equal(end.object.kind, 'ConfigMap');
    assert.equal(end.object.apiVersion, 'v1');
    assert.deepEqual(end.object.metadata.annotations, { 'k8s.io/initial-events-end': 'true' });
    assert.ok(Number(end.object.metadata.resourceVersion) >= listRv);
    const i4 = await create(ns, 'i4');
    const rest = await w.until((e) => e.type !== 'BOOKMARK');
    assert.equal(summary(rest[rest.length - 1]), `ADDED i4 ${rvOf(i4)}`);
    w.close();

    // With a label selector, only the matching objects are sent initially.
    const sel = await api.watch(`${cms(ns)}?watch=true&labelSelector=app%3Dx&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
    const selInitial = await sel.until((e) => e.type === 'BOOKMARK');
    assert.deepEqual(selInitial.map((e) => `${e.type} ${e.object.metadata.name ?? ''}`).sort(), ['ADDED i1', 'ADDED i2', 'BOOKMARK ']);
    assert.equal(selInitial[selInitial.length - 1].type, 'BOOKMARK');
    sel.close();

    // Without allowWatchBookmarks kube serves the initial events too, and no bookmark ends them
    // (isInitialEventsEndBookmarkRequired): the next event is the next change.
    const noBookmarks = await api.watch(`${cms(ns)}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`);
    assert.equal(noBookmarks.status, 200);
    const plain = await noBookmarks.take(4);
    assert.deepEqual(plain.map((e) => `${e.type} ${e.object.metadata.name}`).sort(), ['ADDED i1', 'ADDED i2', 'ADDED i3', 'ADDED i4']);
    const i5 = await create(ns, 'i5');
    assert.equal(summary(await noBookmarks.next()), `ADDED i5 ${rvOf(i5)}`);
    noBookmarks.close();
  });

  it('sendInitialEvents=false: a watch from "" starts at the current revision with no initial events (kube\'s getStartResourceVersionForWatch)', async () => {
    const ns = 'w-initial-off';
    await api.createNamespace(ns);
    await create(ns, 'old');
    const w = await api.watch(`${cms(ns)}?watch=true&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
    assert.equal(w.status, 200);
    const fresh = await create(ns, 'fresh');
    const seen = await w.until((e) => e.type !== 'BOOKMARK');
    assert.deepEqual(seen.filter((e) => e.type !== 'BOOKMARK').map(summary), [`ADDED fresh ${rvOf(fresh)}`]);
    w.close();
  });

  it("watch options kube refuses (validateWatchOptions) are its 422 on ListOptions, word for word", async () => {
    const ns = 'w-initial-refused';
    await api.createNamespace(ns);
    const cases: Array<[string, string]> = [
      ['sendInitialEvents=true&allowWatchBookmarks=true', 'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'],
      ['resourceVersionMatch=NotOlderThan', 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'],
      [
        'sendInitialEvents=true&resourceVersionMatch=Exact&allowWatchBookmarks=true',
        '[resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]',
      ],
      ['sendInitialEvents=true&resourceVersionMatch=NotOlderThan&continue=abc', 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided'],
    ];
    for (const [query, message] of cases) {
      const res = await api.request('GET', `${cms(ns)}?watch=true&${query}`);
      assert.equal(res.status, 422, query);
      assert.equal(res.body.reason, 'Invalid', query);
      assert.equal(res.body.message, `ListOptions.meta.k8s.io "" is invalid: ${message}`, query);
      assert.deepEqual(Object.keys(res.body.details).sort(), ['causes', 'group', 'kind'], query);
      assert.deepEqual([res.body.details.group, res.body.details.kind], ['meta.k8s.io', 'ListOptions'], query);
    }
  });
});

describe('fan-out', () => {
  it('100 concurrent watchers started at successive revisions each see the suffix of one sequence', async () => {
    const ns = 'w-fanout';
    await api.createNamespace(ns);
    const base = await currentRevision(ns);
    const reference = await api.watch(`${cms(ns)}?watch=true&resourceVersion=${base}`);

    let n = 0;
    const write = async (i: number): Promise<void> => {
      // A mix of creates, updates and deletes.
      if (i % 5 === 3) await patch(ns, `o-${i - 1}`, { data: { at: String(i) } });
      else if (i % 5 === 4) await remove(ns, `o-${i - 3}`);
      else await create(ns, `o-${i}`, { n: String(n++) });
    };
    for (let i = 0; i < 100; i++) await write(i);
    const first = await reference.take(100);
    const starts = [base, ...first.slice(0, 99).map((e) => rvOf(e.object))];
    for (let i = 1; i < starts.length; i++) assert.equal(starts[i], starts[i - 1] + 1, 'successive revisions');

    // Start 100 watchers while 100 more writes happen.
    const writes = (async () => {
      for (let i = 100; i < 200; i++) await write(i);
    })();
    const watchers = await Promise.all(starts.map((rv) => api.watch(`${cms(ns)}?watch=true&resourceVersion=${rv}`)));
    await writes;
    const sentinel = await create(ns, 'sentinel');
    const isSentinel = (e: WatchEvent): boolean => e.object.metadata.name === 'sentinel';

    const full = [...first, ...(await reference.until(isSentinel))].map(summary);
    assert.equal(full.length, 201);
    assert.equal(full[200], `ADDED sentinel ${rvOf(sentinel)}`);
    const seen = await Promise.all(watchers.map((w) => w.until(isSentinel)));
    seen.forEach((events, i) => {
      assert.equal(watchers[i].status, 200);
      assert.deepEqual(events.map(summary), full.slice(i), `watcher ${i} started at ${starts[i]}`);
    });
    for (const w of [reference, ...watchers]) w.close();
  });
});

describe('slow watchers', () => {
  it('cuts off a watcher that stops reading, without blocking writers or buffering without bound', async (t) => {
    const ns = 'w-slow';
    await api.createNamespace(ns);
    const big = await create(ns, 'big', {}, { v: '' });
    const slow = await api.watch(`${cms(ns)}?watch=true&resourceVersion=${rvOf(big)}`);
    const fast = await api.watch(`${cms(ns)}?watch=true&resourceVersion=${rvOf(big)}`);
    slow.pause();

    // A burst of 320 updates of ~64 KiB each (each event well under the server's
    // 256 KiB bound, so a reader that keeps up is never cut): ~20 MiB for each
    // watcher, far past what the socket buffers between server and client hold.
    const payload = 'x'.repeat(64 * 1024);
    const writes = 320;
    // The slow watcher reads nothing until the burst is over: had writes waited for it, the loop would not end
    // (the file's test timeout fails it); a wall-clock bound here only measured the machine's load.
    const started = Date.now();
    let last: Json;
    for (let i = 0; i < writes; i++) last = await patch(ns, 'big', { data: { v: `${i}-${payload}` } });
    const burstMs = Date.now() - started;

    // The watcher that keeps reading gets every event.
    const received = await fast.take(writes);
    assert.equal(summary(received[writes - 1]), `MODIFIED big ${rvOf(last)}`);

    // The stuck one was cut off by the server: once it reads again it finds the
    // connection closed after what was already in flight, not the whole burst.
    slow.resume();
    assert.equal(await slow.ended, 'aborted');
    t.diagnostic(`slow watcher: ${slow.events.length} events, ${slow.bytes} bytes; fast: ${fast.bytes} bytes; burst ${burstMs} ms`);
    assert.ok(slow.events.length < writes, `slow watcher received ${slow.events.length} of ${writes} events`);
    assert.ok(slow.bytes < fast.bytes / 2, `slow watcher received ${slow.bytes} bytes, the fast one ${fast.bytes}`);
    // What it did get is a correct prefix.
    assert.deepEqual(slow.events.map(summary), received.slice(0, slow.events.length).map(summary));
    fast.close();
  });
});

describe('watch timeouts', () => {
  it('timeoutSeconds=1 ends the stream cleanly after about a second', async () => {
    const ns = 'w-timeout';
    await api.createNamespace(ns);
    const started = Date.now();
    const w = await api.watch(`${cms(ns)}?watch=true&timeoutSeconds=1`);
    assert.equal(w.status, 200);
    assert.equal(await w.ended, 'end');
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 900 && elapsed < 5000, `ended after ${elapsed} ms`);
    assert.equal(w.events.length, 0);
  });

  it('timeoutSeconds=0 means the server default, not an immediate end', async () => {
    const ns = 'w-timeout0';
    await api.createNamespace(ns);
    const w = await api.watch(`${cms(ns)}?watch=true&timeoutSeconds=0`);
    const oneSecond = await api.watch(`${cms(ns)}?watch=true&timeoutSeconds=1`);
    assert.equal(w.status, 200);
    assert.equal(await oneSecond.ended, 'end');
    assert.equal(w.done, false, 'the timeoutSeconds=0 watch is still open after the 1-second one ended');
    const o = await create(ns, 'o');
    assert.equal(summary(await w.next()), `ADDED o ${rvOf(o)}`);
    w.close();
  });
});

describe('field selectors on watch', () => {
  it('metadata.name=x sees only x', async () => {
    const ns = 'w-fields';
    await api.createNamespace(ns);
    const w = await api.watch(`${cms(ns)}?watch=true&fieldSelector=${encodeURIComponent('metadata.name=x')}`);
    await create(ns, 'y');
    const x1 = await create(ns, 'x');
    await patch(ns, 'y', { data: { a: '1' } });
    const x2 = await patch(ns, 'x', { data: { a: '1' } });
    await remove(ns, 'y');
    await remove(ns, 'x');
    const x3 = await create(ns, 'x');
    const events = await w.take(4);
    assert.deepEqual(events.map(summary), [
      `ADDED x ${rvOf(x1)}`,
      `MODIFIED x ${rvOf(x2)}`,
      `DELETED x ${rvOf(x3) - 1}`,
      `ADDED x ${rvOf(x3)}`,
    ]);
    w.close();
  });

  it('metadata.namespace on a cluster-wide watch', async () => {
    const ns = 'w-fields2';
    await api.createNamespace(ns);
    const all = await api.watch(`/api/v1/configmaps?watch=true&fieldSelector=${encodeURIComponent(`metadata.namespace=${ns},metadata.name!=skip`)}`);
    await create('w-fields', 'other-ns');
    await create(ns, 'skip');
    const k = await create(ns, 'keep');
    assert.equal(summary(await all.next()), `ADDED keep ${rvOf(k)}`);
    all.close();
  });

  it('refuses an unsupported field selector with 400', async () => {
    const r = await api.request('GET', `${cms('w-fields')}?watch=true&fieldSelector=${encodeURIComponent('spec.nope=1')}`);
    assert.equal(r.status, 400);
    assert.equal(r.body.kind, 'Status');
    assert.equal(r.body.reason, 'BadRequest');
  });
});

describe('Table watch events', () => {
  it('sends each event as a meta.k8s.io/v1 Table with one row', async () => {
    const ns = 'w-table';
    await api.createNamespace(ns);
    const accept = { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
    const w = await api.watch(`${cms(ns)}?watch=true`, accept);
    assert.equal(w.status, 200);
    const t1 = await create(ns, 't1', {}, { a: '1', b: '2' });
    await patch(ns, 't1', { data: { c: '3' } });
    await remove(ns, 't1');
    const events = await w.take(3);
    assert.deepEqual(events.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED']);
    for (const e of events) {
      assert.equal(e.object.kind, 'Table');
      assert.equal(e.object.apiVersion, 'meta.k8s.io/v1');
      assert.equal(e.object.rows.length, 1);
      assert.equal(e.object.rows[0].cells[0], 't1');
      assert.equal(e.object.rows[0].object.kind, 'PartialObjectMetadata');
      assert.equal(e.object.rows[0].object.metadata.name, 't1');
      assert.equal(e.object.rows[0].object.metadata.uid, t1.metadata.uid);
    }
    const cols = events[0].object.columnDefinitions as Array<{ name: string }>;
    assert.deepEqual(cols.map((c) => c.name), ['Name', 'Data', 'Age']);
    assert.deepEqual(events.map((e) => e.object.rows[0].cells[1]), [2, 3, 3]);
    w.close();

    const full = await api.watch(`${cms(ns)}?watch=true&includeObject=Object`, accept);
    const t2 = await create(ns, 't2');
    const e = await full.next();
    assert.equal(e.object.kind, 'Table');
    assert.deepEqual(e.object.rows[0].object, t2);
    full.close();
  });
});

describe('watch writes', () => {
  it('a backlog goes out several events per chunk, each event the bytes a GET of its object sends', async () => {
    const ns = 'w-chunks';
    await api.createNamespace(ns);
    const from = await currentRevision(ns);
    for (let i = 0; i < 30; i++) await create(ns, `cm-${String(i).padStart(2, '0')}`, {}, { text: 'é✓😀'.repeat(20) });
    const chunks = await new Promise<string[]>((resolve, reject) => {
      const got: string[] = [];
      const req = request(new URL(`${cms(ns)}?watch=true&resourceVersion=${from}&timeoutSeconds=1`, api.server.url), { ca: api.server.caPem, headers: { authorization: `Bearer ${api.server.adminToken}` } }, (res) => {
        res.on('data', (c: Buffer) => got.push(c.toString('utf8')));
        res.on('end', () => resolve(got));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    const lines = chunks.join('').split('\n').filter((l) => l !== '');
    assert.equal(lines.length, 30);
    // The replay (about 9 KB) is written at once: a client reads it in fewer pieces than events.
    assert.ok(chunks.length < 30, `30 events came in ${chunks.length} pieces`);
    for (const line of lines.slice(0, 3)) {
      const event = JSON.parse(line);
      assert.equal(event.type, 'ADDED');
      const get = await api.request('GET', `${cms(ns)}/${event.object.metadata.name}`);
      assert.equal(line, `{"type":"ADDED","object":${get.text}}`);
    }
  });
});

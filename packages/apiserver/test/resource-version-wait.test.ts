/**
 * Reads at a resourceVersion the server has not reached yet, as kube 1.32's
 * watch cache serves them: a GET, and a LIST with NotOlderThan semantics,
 * wait for the revision (up to 3 s, ending as soon as it is written), then
 * answer 504 Timeout "Too large resource version: N, current: M" with a
 * ResourceVersionTooLarge cause and Retry-After 1. A watch from such a
 * revision starts at once and sends what comes after it; a watch that sends
 * the initial state first waits as a list does, and ends with that 504 as an
 * ERROR event.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestApi, type Json } from './support/api-client.js';

let api: TestApi;
/** A server whose wait is short, for the answers after it. */
let brief: TestApi;
const briefWaitMs = 200;

before(async () => {
  api = await TestApi.start();
  brief = await TestApi.start({ resourceVersionWaitMs: briefWaitMs });
});
after(async () => {
  await api?.stop();
  await brief?.stop();
});

const cms = '/api/v1/namespaces/default/configmaps';
const cm = (name: string): Json => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
let made = 0;
/** Writes a ConfigMap; resolves with the revision it was written at. */
async function write(on: TestApi): Promise<number> {
  return Number((await on.ok('POST', cms, cm(`w${++made}`), 201)).metadata.resourceVersion);
}
async function revision(on: TestApi): Promise<number> {
  return Number((await on.ok('GET', cms)).metadata.resourceVersion);
}
const tooLarge = (requested: number, current: number): Json => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: `Timeout: Too large resource version: ${requested}, current: ${current}`,
  reason: 'Timeout',
  details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
  code: 504,
});

/** The Status is kube's for `requested`, its "current" the revision when the wait ended: `current` or later (the server writes too). */
function assertTooLarge(status: Json, requested: number, current: number): void {
  const now = Number(/current: (\d+)$/.exec(String(status.message))?.[1]);
  assert.ok(now >= current, String(status.message));
  assert.deepEqual(status, tooLarge(requested, now));
}

describe('GET and LIST at a resourceVersion not reached yet', () => {
  it('wait for it, and are answered as soon as a write reaches it', async () => {
    const name = `w${made + 1}`;
    const next = (await revision(api)) + 1;
    for (const path of [`${cms}/${name}?resourceVersion=${next}`, `${cms}?resourceVersion=${next}`, `${cms}?resourceVersion=${next}&resourceVersionMatch=NotOlderThan&limit=1`]) {
      const t = performance.now();
      const reading = api.request('GET', path);
      // The GET of an object that does not exist yet reads it once the write that makes it is there.
      if (path.includes(name)) await write(api);
      else setTimeout(() => void write(api), 50);
      const res = await reading;
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      assert.ok(performance.now() - t < 2500, `${path} was answered when the write came, not after the wait`);
      if (path.includes(name)) assert.equal(res.body.metadata.name, name);
      else assert.ok(Number(res.body.metadata.resourceVersion) >= next, res.body.metadata.resourceVersion);
    }
  });

  it("are answered 504 Too large resource version after kube's 3 s, with Retry-After 1", async () => {
    const current = await revision(api);
    const t = performance.now();
    const res = await api.request('GET', `${cms}?resourceVersion=${current + 100}`);
    const waited = performance.now() - t;
    assert.equal(res.status, 504);
    assertTooLarge(res.body, current + 100, current);
    assert.equal(res.headers['retry-after'], '1');
    assert.ok(waited >= 2900, `waited ${waited.toFixed(0)} ms`);
  });

  it('each kind of read that waits: a GET, a LIST with no match or NotOlderThan (with a limit too)', async () => {
    const current = await revision(brief);
    const far = current + 1000;
    for (const path of [`${cms}/w1?resourceVersion=${far}`, `${cms}?resourceVersion=${far}`, `${cms}?resourceVersion=${far}&resourceVersionMatch=NotOlderThan`, `${cms}?resourceVersion=${far}&resourceVersionMatch=NotOlderThan&limit=5`]) {
      const t = performance.now();
      const res = await brief.request('GET', path);
      assert.equal(res.status, 504, path);
      assertTooLarge(res.body, far, current);
      assert.ok(performance.now() - t >= briefWaitMs - 10, `${path} waited`);
    }
  });

  it('a read at a revision already reached, or at "0", never waits', async () => {
    const current = await revision(api);
    const t = performance.now();
    for (const rv of ['0', String(current), '1']) {
      assert.equal((await api.request('GET', `${cms}?resourceVersion=${rv}`)).status, 200);
    }
    assert.ok(performance.now() - t < 2000);
  });
});

describe('a watch from a resourceVersion not reached yet', () => {
  it('starts at once and sends only what comes after that revision, with no bookmark before it', async () => {
    const current = await revision(brief);
    const from = current + 2;
    const watch = await brief.watch(`${cms}?watch=true&allowWatchBookmarks=true&resourceVersion=${from}`);
    assert.equal(watch.status, 200);
    await write(brief);
    await write(brief);
    const third = await write(brief);
    assert.equal(third, from + 1);
    const e = await watch.next();
    assert.equal(e.type, 'ADDED');
    assert.equal(Number((e.object as Json).metadata.resourceVersion), third, 'the writes up to the revision asked for are not sent');
    watch.close();
  });

  it('that sends the initial state first waits as a list does: it gets the state once the revision comes, or an ERROR event with the 504', async () => {
    const current = await revision(brief);
    const path = (rv: number) => `${cms}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=${rv}`;
    const failed = await brief.watch(path(current + 1000));
    assert.equal(failed.status, 200);
    const error = await failed.next();
    assert.equal(error.type, 'ERROR');
    assertTooLarge(error.object as Json, current + 1000, current);
    assert.equal(await failed.ended, 'end');

    // The wait ends when the revision is written: the initial state, then the bookmark that ends it.
    const next = current + 1;
    const opening = brief.watch(path(next));
    setTimeout(() => void write(brief), 20);
    const listed = await opening;
    const events = await listed.until((e) => e.type === 'BOOKMARK');
    assert.ok(events.slice(0, -1).every((e) => e.type === 'ADDED'));
    assert.ok(Number((events.at(-1)!.object as Json).metadata.resourceVersion) >= next);
    listed.close();
  });
});

/**
 * Paginated lists over real HTTPS against the embedded server: every page of a
 * `limit`/`continue` walk reads the same snapshot while writes happen between
 * page requests, and a continue token older than the retained history gets
 * kube's 410.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestApi, configMap, seededRandom, type Json } from './support/api-client.js';

const historyCapacity = 1000;

let api: TestApi;

before(async () => {
  api = await TestApi.start({ historyCapacity });
});
after(async () => {
  await api?.stop();
});

const cms = (ns: string): string => `/api/v1/namespaces/${ns}/configmaps`;
const mergePatch = { 'Content-Type': 'application/merge-patch+json' };
const names = (list: Json): string[] => list.items.map((i: Json) => i.metadata.name);

/** Creates `count` ConfigMaps named `<prefix>-000`..., 50 requests at a time. */
async function createMany(ns: string, prefix: string, count: number, labels: (i: number) => Record<string, string> = () => ({})): Promise<void> {
  for (let i = 0; i < count; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, (_, j) =>
        api.ok('POST', cms(ns), configMap(`${prefix}-${String(i + j).padStart(3, '0')}`, labels(i + j), { n: String(i + j) }), 201),
      ),
    );
  }
}

/** Walks every page of a list with random limits, calling `between` after each page. */
async function walk(
  path: string,
  random: () => number,
  maxLimit: number,
  between: (page: Json, seen: number) => Promise<void>,
): Promise<{ pages: Json[]; items: Json[] }> {
  const pages: Json[] = [];
  const items: Json[] = [];
  let token: string | undefined;
  const sep = path.includes('?') ? '&' : '?';
  do {
    const limit = 1 + Math.floor(random() * maxLimit);
    const page = await api.ok('GET', `${path}${sep}limit=${limit}${token ? `&continue=${encodeURIComponent(token)}` : ''}`, undefined, 200);
    assert.ok(page.items.length <= limit, `page of ${page.items.length} items for limit ${limit}`);
    if (page.metadata.continue) assert.equal(page.items.length, limit, 'a page that is not the last one is full');
    pages.push(page);
    items.push(...page.items);
    token = page.metadata.continue;
    if (token) await between(page, items.length);
  } while (token);
  return { pages, items };
}

describe('paginated lists', () => {
  it('400 objects listed with random limits keep one snapshot across pages while creates, updates and deletes happen between them', async (t) => {
    const ns = 'l-pages';
    await api.createNamespace(ns);
    await createMany(ns, 'cm', 400);
    const seed = Date.now() % 1_000_000;
    t.diagnostic(`seed ${seed}`);
    const random = seededRandom(seed);

    const before = await api.ok('GET', cms(ns), undefined, 200);
    assert.equal(before.items.length, 400);
    const snapshotRv = before.metadata.resourceVersion;

    const alive = new Set<string>(names(before));
    let writes = 0;
    const { pages, items } = await walk(cms(ns), random, 40, async (_page, seen) => {
      // Between every two pages: create (names that sort into the unread part), update and delete.
      const pick = (): string => {
        const all = [...alive];
        return all[Math.floor(random() * all.length)];
      };
      const fresh = `cm-${String(Math.floor(random() * 400)).padStart(3, '0')}-new-${writes}`;
      await api.ok('POST', cms(ns), configMap(fresh, {}, { n: 'new' }), 201);
      alive.add(fresh);
      const updated = pick();
      await api.ok('PATCH', `${cms(ns)}/${updated}`, { data: { n: `updated-${writes}` } }, 200, mergePatch);
      const deleted = pick();
      await api.ok('DELETE', `${cms(ns)}/${deleted}`, undefined, 200);
      alive.delete(deleted);
      writes += 3;
      assert.ok(seen < 400);
    });
    t.diagnostic(`${pages.length} pages, ${writes} writes between them`);
    assert.ok(pages.length >= 10, `only ${pages.length} pages`);

    // Every page reports the first page's resourceVersion, and counts what remains of the snapshot.
    let seen = 0;
    for (const page of pages) {
      assert.equal(page.kind, 'ConfigMapList');
      assert.equal(page.metadata.resourceVersion, snapshotRv);
      seen += page.items.length;
      if (page.metadata.continue) assert.equal(page.metadata.remainingItemCount, 400 - seen);
      else assert.equal(page.metadata.remainingItemCount, undefined);
    }
    // The union of the pages is the list at that resourceVersion: same objects, same versions.
    assert.deepEqual(items, before.items);
    const exact = await api.ok('GET', `${cms(ns)}?resourceVersion=${snapshotRv}&resourceVersionMatch=Exact`, undefined, 200);
    assert.equal(exact.metadata.resourceVersion, snapshotRv);
    assert.deepEqual(exact.items, before.items);

    // Meanwhile the writes did happen.
    const now = await api.ok('GET', cms(ns), undefined, 200);
    assert.deepEqual(new Set(names(now)), alive);
    assert.ok(Number(now.metadata.resourceVersion) >= Number(snapshotRv) + writes);
  });

  it('keeps the snapshot with a label selector too (no remainingItemCount when a selector may hide items)', async (t) => {
    const ns = 'l-selector';
    await api.createNamespace(ns);
    await createMany(ns, 'cm', 120, (i) => ({ parity: i % 2 === 0 ? 'even' : 'odd' }));
    const seed = Date.now() % 1_000_000;
    t.diagnostic(`seed ${seed}`);
    const random = seededRandom(seed);
    const path = `${cms(ns)}?labelSelector=${encodeURIComponent('parity=even')}`;
    const before = await api.ok('GET', path, undefined, 200);
    assert.equal(before.items.length, 60);
    let n = 0;
    const { pages, items } = await walk(path, random, 12, async (page) => {
      // Relabel an unread even object to odd, and an odd one to even: neither shows in the snapshot.
      const last = page.items[page.items.length - 1].metadata.name as string;
      const idx = Number(last.slice(3));
      if (idx + 2 < 120) await api.ok('PATCH', `${cms(ns)}/cm-${String(idx + 2).padStart(3, '0')}`, { metadata: { labels: { parity: 'odd' } } }, 200, mergePatch);
      if (idx + 1 < 120) await api.ok('PATCH', `${cms(ns)}/cm-${String(idx + 1).padStart(3, '0')}`, { metadata: { labels: { parity: 'even' } } }, 200, mergePatch);
      await api.ok('POST', cms(ns), configMap(`cm-${String(idx).padStart(3, '0')}-z${n++}`, { parity: 'even' }), 201);
    });
    for (const page of pages) {
      assert.equal(page.metadata.resourceVersion, before.metadata.resourceVersion);
      assert.equal(page.metadata.remainingItemCount, undefined);
    }
    assert.deepEqual(items, before.items);
  });

  it('an expired continue token gets 410 Expired with kube\'s message', async () => {
    const ns = 'l-expired';
    await api.createNamespace(ns);
    await createMany(ns, 'cm', 30);
    const first = await api.ok('GET', `${cms(ns)}?limit=10`, undefined, 200);
    const token = first.metadata.continue as string;
    assert.ok(token);
    // The snapshot is still readable right now.
    const second = await api.ok('GET', `${cms(ns)}?limit=10&continue=${encodeURIComponent(token)}`, undefined, 200);
    assert.equal(second.metadata.resourceVersion, first.metadata.resourceVersion);

    // Write past the retained history (in another namespace: the history is global).
    await api.createNamespace('l-filler');
    await createMany('l-filler', 'f', historyCapacity + 1);
    // A write in the listed namespace, so that continuing at the latest revision is visibly different.
    await api.ok('POST', cms(ns), configMap('cm-015-late'), 201);

    const r = await api.request('GET', `${cms(ns)}?limit=10&continue=${encodeURIComponent(token)}`);
    assert.equal(r.status, 410);
    const { metadata, ...status } = r.body;
    assert.deepEqual(status, {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      message:
        'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
      reason: 'Expired',
      code: 410,
    });
    // As the message says, the Status carries a token that continues (inconsistently) at the latest revision.
    assert.equal(typeof metadata.continue, 'string');
    const rest = await api.ok('GET', `${cms(ns)}?limit=100&continue=${encodeURIComponent(metadata.continue)}`, undefined, 200);
    assert.deepEqual(names(rest), ['cm-010', 'cm-011', 'cm-012', 'cm-013', 'cm-014', 'cm-015', 'cm-015-late', ...Array.from({ length: 14 }, (_, i) => `cm-0${16 + i}`)]);
    assert.ok(Number(rest.metadata.resourceVersion) > Number(first.metadata.resourceVersion));

    // A list at an expired resourceVersion gets kube's other message.
    const old = await api.request('GET', `${cms(ns)}?resourceVersion=${first.metadata.resourceVersion}&resourceVersionMatch=Exact`);
    assert.equal(old.status, 410);
    assert.equal(old.body.reason, 'Expired');
    assert.equal(old.body.message, 'The resourceVersion for the provided list is too old.');
  });

  it('refuses malformed continue tokens and continue together with a resourceVersion', async () => {
    const ns = 'l-pages';
    const bad = await api.request('GET', `${cms(ns)}?limit=5&continue=not-a-token`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.reason, 'BadRequest');
    const first = await api.ok('GET', `${cms(ns)}?limit=5`, undefined, 200);
    const both = await api.request('GET', `${cms(ns)}?limit=5&resourceVersion=${first.metadata.resourceVersion}&continue=${encodeURIComponent(first.metadata.continue)}`);
    assert.equal(both.status, 400);
    assert.equal(both.body.message, 'specifying resource version is not allowed when using continue');
  });

  it("list options kube refuses (ValidateListOptions) are its 422 on ListOptions, word for word", async () => {
    const ns = 'l-pages';
    const cases: Array<[string, string]> = [
      ['resourceVersionMatch=NotOlderThan', 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
      ['resourceVersion=1&resourceVersionMatch=exact', 'resourceVersionMatch: Unsupported value: "exact": supported values: "Exact", "NotOlderThan", ""'],
      ['resourceVersion=0&resourceVersionMatch=Exact', 'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'],
      [
        'resourceVersionMatch=Exact&continue=abc',
        '[resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided]',
      ],
      ['sendInitialEvents=true', 'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'],
    ];
    for (const [query, message] of cases) {
      const res = await api.request('GET', `${cms(ns)}?${query}`);
      assert.equal(res.status, 422, query);
      assert.equal(res.body.reason, 'Invalid', query);
      assert.equal(res.body.message, `ListOptions.meta.k8s.io "" is invalid: ${message}`, query);
      assert.deepEqual([res.body.details.group, res.body.details.kind, res.body.details.name], ['meta.k8s.io', 'ListOptions', undefined], query);
    }
  });
});

describe('list encoding', () => {
  it('a list sent in several writes is the JSON one encoding of it makes, each item the bytes its GET sends', async () => {
    const ns = 'l-bytes';
    await api.createNamespace(ns);
    // About 600 KiB of items, with text that is not ASCII: more than one batch of the streamed list.
    const text = 'é✓😀 "quoted" \\ '.repeat(600);
    for (let i = 0; i < 60; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, j) => api.ok('POST', cms(ns), configMap(`cm-${String(i + j).padStart(2, '0')}`, { half: i + j < 30 ? 'a' : 'b' }, { text, n: String(i + j) }), 201)),
      );
    }
    for (const query of ['', '?limit=25', '?labelSelector=half%3Db', `?resourceVersion=0`]) {
      const list = await api.request('GET', `${cms(ns)}${query}`);
      assert.equal(list.status, 200);
      assert.equal(Number(list.headers['content-length']), Buffer.byteLength(list.text), `Content-Length of ${query}`);
      assert.equal(list.text, JSON.stringify(list.body), `the list ${query} as one JSON.stringify makes it`);
      if (query === '') assert.equal(list.body.items.length, 60);
      for (const item of list.body.items.slice(0, 5)) {
        const get = await api.request('GET', `${cms(ns)}/${item.metadata.name}`);
        assert.equal(get.text, JSON.stringify(item), `GET ${item.metadata.name} sends the bytes the list holds`);
      }
    }
  });
});

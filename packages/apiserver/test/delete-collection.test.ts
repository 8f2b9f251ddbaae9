/**
 * DELETE on a collection answers as kube's generic store does: the list it
 * deleted, its items as they were listed (before the deletion), at the
 * list's resourceVersion; with `limit`, one page and its continue token.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TestApi, type Json } from './support/api-client.js';

const configmaps = (ns: string): string => `/api/v1/namespaces/${ns}/configmaps`;

describe('deletecollection', () => {
  let api: TestApi;
  before(async () => {
    api = await TestApi.start();
  });
  after(async () => {
    await api?.stop();
  });

  async function fill(ns: string, names: string[], labels: Record<string, string>): Promise<void> {
    for (const name of names) await api.ok('POST', configmaps(ns), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { name } }, 201);
  }

  it('answers the deleted objects as a list of the kind, and deletes only what the selector picks', async () => {
    await api.createNamespace('dc-select');
    await fill('dc-select', ['a', 'b', 'c'], { sweep: 'yes' });
    await fill('dc-select', ['keep'], { sweep: 'no' });
    const answer: Json = await api.ok('DELETE', `${configmaps('dc-select')}?labelSelector=sweep%3Dyes`, undefined, 200);
    // kube's list fields and nothing of the store's (the list once carried its stored entries along).
    assert.deepEqual(Object.keys(answer).sort(), ['apiVersion', 'items', 'kind', 'metadata']);
    assert.equal(answer.kind, 'ConfigMapList');
    assert.equal(answer.apiVersion, 'v1');
    assert.match(answer.metadata.resourceVersion, /^\d+$/);
    assert.deepEqual(
      answer.items.map((i: Json) => [i.kind ?? 'ConfigMap', i.metadata.name, i.data.name, i.metadata.labels.sweep]),
      [['ConfigMap', 'a', 'a', 'yes'], ['ConfigMap', 'b', 'b', 'yes'], ['ConfigMap', 'c', 'c', 'yes']],
    );
    // The items are the objects as listed, before their deletion.
    for (const item of answer.items) assert.equal(item.metadata.deletionTimestamp, undefined);
    assert.ok(Number(answer.metadata.resourceVersion) < Number((await api.ok('GET', configmaps('dc-select'))).metadata.resourceVersion));
    const left: Json = await api.ok('GET', configmaps('dc-select'));
    assert.deepEqual(left.items.map((i: Json) => i.metadata.name), ['keep']);
  });

  it('with limit, deletes one page and answers it with its continue token', async () => {
    await api.createNamespace('dc-limit');
    await fill('dc-limit', ['a', 'b', 'c'], {});
    const page: Json = await api.ok('DELETE', `${configmaps('dc-limit')}?limit=2`, undefined, 200);
    assert.deepEqual(page.items.map((i: Json) => i.metadata.name), ['a', 'b']);
    assert.equal(typeof page.metadata.continue, 'string');
    const left: Json = await api.ok('GET', configmaps('dc-limit'));
    assert.deepEqual(left.items.map((i: Json) => i.metadata.name), ['c']);
  });

  it('answers an empty list when nothing matches', async () => {
    await api.createNamespace('dc-empty');
    const answer: Json = await api.ok('DELETE', `${configmaps('dc-empty')}?labelSelector=none%3Dhere`, undefined, 200);
    assert.equal(answer.kind, 'ConfigMapList');
    assert.deepEqual(answer.items, []);
  });
});

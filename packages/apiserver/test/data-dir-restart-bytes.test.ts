/**
 * A server restarted on a data dir sends each object with the bytes it sent
 * before the restart: objects read back from disk are sent as the text the
 * store wrote for them (not encoded again), and that text must be what
 * encoding the object gives. Covered here with what JSON is most likely to
 * get wrong: non-ASCII and escaped characters, integer-like keys (ordered
 * first by JavaScript objects), large and fractional numbers, and a list
 * spanning several of the list's batches.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { TestApi } from './support/api-client.js';

const dataDir = join(mkdtempSync(join(tmpdir(), 'operant-restart-bytes-')), 'data');
after(() => rmSync(dataDir, { recursive: true, force: true }));

const ns = 'bytes';
const list = `/api/v1/namespaces/${ns}/configmaps`;
const crb = '/apis/rbac.authorization.k8s.io/v1/clusterroles/odd-numbers';

/** The list's items as sent, without the list's own resourceVersion (a restart writes the kubernetes Service). */
const items = (text: string): string => text.slice(text.indexOf('"items":'));

it('sends every object read back from disk with the bytes it had before the restart', async () => {
  let before: { list: string; items: string[]; role: string; selected: string[] };
  // Selectors, with and without pages: after a restart they judge objects not parsed yet by the fields they read.
  const selections = ['labelSelector=a%3Db', 'labelSelector=1%3Done,a%20in%20(b,c),!zz', 'fieldSelector=metadata.name%3Dcm-07', 'fieldSelector=metadata.name!%3Dcm-07&labelSelector=a&limit=7', 'labelSelector=a%3Dc', 'fieldSelector=metadata.namespace%3Dbytes&limit=30'];
  const api = await TestApi.start({ dataDir });
  try {
    await api.createNamespace(ns);
    const text = 'é✓😀 "quoted" \\ \u0001 </script> '.repeat(800);
    for (let i = 0; i < 40; i++) {
      const data: Record<string, string> = { '10': 'ten', b: 'bee', '2': 'two', text: `${i} ${text}` };
      await api.ok('POST', list, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${String(i).padStart(2, '0')}`, labels: { '1': 'one', a: 'b' }, annotations: { '3': 'ä', z: '\u2028' } }, data }, 201);
    }
    // A number (a PriorityClass's value) and integer-like annotation keys on a cluster-scoped kind.
    await api.ok('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'huge' }, value: 1000000000, description: 'ünïcode ✓' }, 201);
    await api.ok('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'odd-numbers', annotations: { '007': 'x', 'a/b': 'ÿ' } }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }, 201);
    const all = await api.request('GET', list);
    assert.ok(all.text.length > 3 * 256 * 1024, 'the list spans several batches');
    before = {
      list: items(all.text),
      items: await Promise.all(all.body.items.map(async (i: { metadata: { name: string } }) => (await api.request('GET', `${list}/${i.metadata.name}`)).text)),
      role: (await api.request('GET', crb)).text,
      selected: await Promise.all(selections.map(async (q) => items((await api.request('GET', `${list}?${q}`)).text))),
    };
  } finally {
    await api.stop();
  }
  const again = await TestApi.start({ dataDir });
  try {
    // Single GETs first (each object read back and sent alone), then the list, then a GET again.
    const gets = [];
    for (let i = 0; i < 40; i++) gets.push((await again.request('GET', `${list}/cm-${String(i).padStart(2, '0')}`)).text);
    assert.deepEqual(gets, before.items);
    assert.equal(items((await again.request('GET', list)).text), before.list);
    assert.equal((await again.request('GET', crb)).text, before.role);
    assert.equal((await again.request('GET', `${list}/cm-07`)).text, before.items[7]);
  } finally {
    await again.stop();
  }
  // A watch, selectors and a list first this time: the objects are judged and sent without being parsed.
  // The bytes must be what encoding the parsed object gives (as before the restart, as the single GETs,
  // and as JSON.stringify of what was sent), and the selectors must pick what they picked before.
  const third = await TestApi.start({ dataDir });
  try {
    // A watch from resourceVersion 0 first: its initial events send the objects unparsed too.
    const watched = await third.request('GET', `${list}?watch=true&resourceVersion=0&timeoutSeconds=1`);
    const lines = watched.text.split('\n').filter((l) => l);
    assert.equal(lines.length, before.items.length);
    lines.forEach((line, i) => assert.equal(line, `{"type":"ADDED","object":${before.items[i]}}`));
    const one = await third.request('GET', `${list}?watch=true&resourceVersion=0&timeoutSeconds=1&fieldSelector=metadata.name%3Dcm-03`);
    assert.equal(one.text, `{"type":"ADDED","object":${before.items[3]}}\n`);
    for (const [i, q] of selections.entries()) assert.equal(items((await third.request('GET', `${list}?${q}`)).text), before.selected[i], q);
    const first = await third.request('GET', list);
    assert.equal(items(first.text), before.list);
    assert.equal(items(JSON.stringify(first.body)), before.list);
    // Pages of it: unparsed items after the first page's, and their continue tokens.
    const page1 = await third.request('GET', `${list}?limit=15`);
    const page2 = await third.request('GET', `${list}?limit=15&continue=${page1.body.metadata.continue}`);
    assert.deepEqual([...page1.body.items, ...page2.body.items].map((i: { metadata: { name: string } }) => i.metadata.name), first.body.items.slice(0, 30).map((i: { metadata: { name: string } }) => i.metadata.name));
    for (let i = 0; i < 15; i++) assert.equal(JSON.stringify(page2.body.items[i]), before.items[15 + i]);
    assert.deepEqual(
      await Promise.all(first.body.items.map(async (i: { metadata: { name: string } }) => (await third.request('GET', `${list}/${i.metadata.name}`)).text)),
      before.items,
    );
  } finally {
    await third.stop();
  }
});

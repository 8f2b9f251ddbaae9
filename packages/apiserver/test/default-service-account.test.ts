/**
 * Every namespace gets a ServiceAccount named `default`, as kube's
 * ServiceAccounts controller makes it: the initial namespaces have theirs
 * from the start (on a new data dir and on a restart alike), a namespace
 * created later gets one, one that is already there is left as it is, and
 * one that is deleted is made again.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { TestApi } from './support/api-client.js';

let api: TestApi;
const dirs: string[] = [];

before(async () => {
  api = await TestApi.start();
});
after(async () => {
  await api?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const initial = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

it('the initial namespaces have their default ServiceAccount once the server is ready', async () => {
  for (const ns of initial) {
    const sa = await api.ok('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`);
    assert.equal(sa.metadata.namespace, ns);
  }
});

it('a new namespace gets its default ServiceAccount', async () => {
  const watch = await api.watch('/api/v1/namespaces/team-a/serviceaccounts?watch=true&resourceVersion=0');
  try {
    await api.createNamespace('team-a');
    const events = await watch.until((e) => e.object.metadata?.name === 'default');
    assert.equal(events.at(-1)!.type, 'ADDED');
  } finally {
    watch.close();
  }
  const sa = await api.ok('GET', '/api/v1/namespaces/team-a/serviceaccounts/default');
  assert.equal(sa.metadata.namespace, 'team-a');
});

it('a deleted default ServiceAccount is made again, with a new uid', async () => {
  await api.createNamespace('team-b');
  const first = await api.watch('/api/v1/namespaces/team-b/serviceaccounts?watch=true&resourceVersion=0');
  let uid: string;
  try {
    const events = await first.until((e) => e.object.metadata?.name === 'default');
    uid = events.at(-1)!.object.metadata!.uid as string;
  } finally {
    first.close();
  }
  const list = await api.ok('GET', '/api/v1/namespaces/team-b/serviceaccounts');
  const watch = await api.watch(`/api/v1/namespaces/team-b/serviceaccounts?watch=true&resourceVersion=${list.metadata.resourceVersion}`);
  try {
    await api.ok('DELETE', '/api/v1/namespaces/team-b/serviceaccounts/default');
    const events = await watch.until((e) => e.type === 'ADDED' && e.object.metadata?.name === 'default');
    assert.deepEqual(
      events.map((e) => e.type),
      ['DELETED', 'ADDED'],
    );
    assert.notEqual(events.at(-1)!.object.metadata!.uid, uid);
  } finally {
    watch.close();
  }
});

it('a restart on a data dir keeps each namespace\'s default ServiceAccount as it was (the same uid), writing none', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'operant-sa-'));
  dirs.push(dir);
  const first = await TestApi.start({ dataDir: dir });
  let uids: string[];
  let revision: string;
  try {
    await first.createNamespace('kept');
    await first.watch('/api/v1/namespaces/kept/serviceaccounts?watch=true&resourceVersion=0').then(async (w) => {
      await w.until((e) => e.object.metadata?.name === 'default');
      w.close();
    });
    uids = await Promise.all([...initial, 'kept'].map(async (ns) => (await first.ok('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`)).metadata.uid as string));
    revision = (await first.ok('GET', '/api/v1/serviceaccounts')).metadata.resourceVersion as string;
  } finally {
    await first.stop();
  }
  const again = await TestApi.start({ dataDir: dir });
  try {
    const now = await Promise.all([...initial, 'kept'].map(async (ns) => (await again.ok('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`)).metadata.uid as string));
    assert.deepEqual(now, uids);
    // Nothing was written to them again: each is as old as the first server's last revision, or older.
    const list = await again.ok('GET', '/api/v1/serviceaccounts');
    for (const sa of list.items) assert.ok(Number(sa.metadata.resourceVersion) <= Number(revision), `${sa.metadata.namespace}/${sa.metadata.name} was written again`);
  } finally {
    await again.stop();
  }
});

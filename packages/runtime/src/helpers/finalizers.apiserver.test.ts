/**
 * Finalizers against the embedded API server: the finalizer is persisted on a
 * live object, cleanup runs exactly once when the object is deleted (also when
 * the removal conflicts or fails and the reconcile is retried), and the object
 * is then gone.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@operant/apimachinery';
import { ConfigMap } from '../builtins.js';
import { isNotFound } from '../client/index.js';
import { useApiServer } from '../testdata/api-server.js';
import { addFinalizer, containsFinalizer, handleFinalizer, removeFinalizer } from './finalizers.js';

const finalizer = 'example.com/cleanup';
const ns = 'finalizers';
const api = useApiServer({ namespaces: [ns] });

async function gone(name: string): Promise<boolean> {
  return api.client.get(ConfigMap, name, { namespace: ns }).then(
    () => false,
    (e: unknown) => (isNotFound(e) ? true : Promise.reject(e)),
  );
}

describe('in-memory helpers', () => {
  test('add, contain and remove report whether they changed the object', () => {
    const obj: KubeObject = { metadata: { name: 'x', finalizers: ['other', finalizer, finalizer] } };
    assert.equal(containsFinalizer(obj, finalizer), true);
    assert.equal(addFinalizer(obj, finalizer), false);
    assert.equal(removeFinalizer(obj, finalizer), true);
    assert.deepEqual(obj.metadata.finalizers, ['other']);
    assert.equal(removeFinalizer(obj, finalizer), false);
    assert.equal(addFinalizer(obj, finalizer), true);
    assert.deepEqual(obj.metadata.finalizers, ['other', finalizer]);
  });
});

describe('handleFinalizer', () => {
  test('adds the finalizer to a live object, once, and keeps others', async () => {
    const cm = await api.client.create(ConfigMap, { metadata: { name: 'add', namespace: ns, finalizers: ['keep.example.com/x'] } });
    let cleanups = 0;
    const first = await handleFinalizer(api.client, ConfigMap, cm, finalizer, () => void cleanups++);
    assert.deepEqual({ deleted: first.deleted, updated: first.updated }, { deleted: false, updated: true });
    const live = await api.client.get(ConfigMap, 'add', { namespace: ns });
    assert.deepEqual(live.metadata.finalizers, ['keep.example.com/x', finalizer]);
    assert.equal(first.object?.metadata.resourceVersion, live.metadata.resourceVersion);

    const second = await handleFinalizer(api.client, ConfigMap, live, finalizer, () => void cleanups++);
    assert.deepEqual({ deleted: second.deleted, updated: second.updated }, { deleted: false, updated: false });
    assert.equal((await api.client.get(ConfigMap, 'add', { namespace: ns })).metadata.resourceVersion, live.metadata.resourceVersion);
    assert.equal(cleanups, 0);
  });

  test('adding from a stale copy retries on a fresh read and keeps the concurrent write', async () => {
    const stale = await api.client.create(ConfigMap, { metadata: { name: 'stale-add', namespace: ns }, data: { a: '1' } });
    await api.client.patch(ConfigMap, 'stale-add', { data: { b: '2' }, metadata: { finalizers: ['other.example.com/x'] } }, { namespace: ns });
    const r = await handleFinalizer(api.client, ConfigMap, stale, finalizer, () => undefined);
    assert.equal(r.updated, true);
    const live = await api.client.get(ConfigMap, 'stale-add', { namespace: ns });
    assert.deepEqual(live.metadata.finalizers, ['other.example.com/x', finalizer]);
    assert.deepEqual(live.data, { a: '1', b: '2' });
  });

  test('on deletion runs cleanup once, removes the finalizer, and the object is gone', async () => {
    const cm = await api.client.create(ConfigMap, { metadata: { name: 'delete-me', namespace: ns }, data: { a: '1' } });
    const added = await handleFinalizer(api.client, ConfigMap, cm, finalizer, () => assert.fail('no cleanup while live'));
    await api.client.delete(ConfigMap, 'delete-me', { namespace: ns });
    const deleting = await api.client.get(ConfigMap, 'delete-me', { namespace: ns });
    assert.ok(deleting.metadata.deletionTimestamp, 'the finalizer holds the object');
    assert.ok(added.object);

    const seen: string[] = [];
    const r = await handleFinalizer(api.client, ConfigMap, deleting, finalizer, (obj) => void seen.push(obj.metadata.name!));
    assert.deepEqual(seen, ['delete-me']);
    assert.deepEqual({ deleted: r.deleted, updated: r.updated }, { deleted: true, updated: true });
    assert.equal(await gone('delete-me'), true);

    // A late reconcile of the stale copy: the object is gone, nothing runs again.
    const late = await handleFinalizer(api.client, ConfigMap, deleting, finalizer, () => void seen.push('again'));
    assert.deepEqual({ deleted: late.deleted, updated: late.updated, object: late.object }, { deleted: true, updated: false, object: undefined });
    assert.deepEqual(seen, ['delete-me']);
  });

  test('a conflicting removal is retried on a fresh read without re-running cleanup', async () => {
    const cm = await api.client.create(ConfigMap, { metadata: { name: 'conflict', namespace: ns, finalizers: [finalizer, 'other.example.com/x'] } });
    await api.client.delete(ConfigMap, cm.metadata.name!, { namespace: ns });
    const deleting = await api.client.get(ConfigMap, 'conflict', { namespace: ns });
    let cleanups = 0;
    const r = await handleFinalizer(api.client, ConfigMap, deleting, finalizer, async () => {
      cleanups++;
      // Someone writes the object while cleanup runs: the removal below conflicts.
      await api.client.patch(ConfigMap, 'conflict', { metadata: { labels: { touched: 'yes' } } }, { namespace: ns });
    });
    assert.equal(cleanups, 1);
    assert.equal(r.deleted, true);
    const live = await api.client.get(ConfigMap, 'conflict', { namespace: ns });
    assert.deepEqual(live.metadata.finalizers, ['other.example.com/x']);
    assert.equal(live.metadata.labels?.touched, 'yes');
    // Without our finalizer: deleted, nothing to do.
    const again = await handleFinalizer(api.client, ConfigMap, live, finalizer, () => void cleanups++);
    assert.deepEqual({ deleted: again.deleted, updated: again.updated, cleanups }, { deleted: true, updated: false, cleanups: 1 });
  });

  test('when the removal fails, the retried reconcile removes it without cleaning up again', async () => {
    const cm = await api.client.create(ConfigMap, { metadata: { name: 'retry', namespace: ns, finalizers: [finalizer] } });
    await api.client.delete(ConfigMap, cm.metadata.name!, { namespace: ns });
    const deleting = await api.client.get(ConfigMap, 'retry', { namespace: ns });
    let cleanups = 0;
    const ac = new AbortController();
    // The reconcile is cancelled right after cleanup: the removal request is aborted.
    await assert.rejects(
      handleFinalizer(api.client, ConfigMap, deleting, finalizer, () => {
        cleanups++;
        ac.abort();
      }, { signal: ac.signal }),
    );
    assert.equal(cleanups, 1);
    assert.deepEqual((await api.client.get(ConfigMap, 'retry', { namespace: ns })).metadata.finalizers, [finalizer]);

    const r = await handleFinalizer(api.client, ConfigMap, deleting, finalizer, () => void cleanups++);
    assert.equal(cleanups, 1, 'cleanup succeeded before: not run again');
    assert.equal(r.deleted, true);
    assert.equal(await gone('retry'), true);
  });

  test('a failing cleanup keeps the finalizer and runs again next time', async () => {
    const cm = await api.client.create(ConfigMap, { metadata: { name: 'fails', namespace: ns, finalizers: [finalizer] } });
    await api.client.delete(ConfigMap, cm.metadata.name!, { namespace: ns });
    const deleting = await api.client.get(ConfigMap, 'fails', { namespace: ns });
    let attempts = 0;
    await assert.rejects(
      handleFinalizer(api.client, ConfigMap, deleting, finalizer, () => {
        attempts++;
        throw new Error('bucket still in use');
      }),
      /bucket still in use/,
    );
    assert.deepEqual((await api.client.get(ConfigMap, 'fails', { namespace: ns })).metadata.finalizers, [finalizer]);
    await handleFinalizer(api.client, ConfigMap, deleting, finalizer, () => void attempts++);
    assert.equal(attempts, 2);
    assert.equal(await gone('fails'), true);
  });
});

/**
 * Compaction on demand (RunningApiServer.compact), as etcd's compaction that
 * kube-apiserver asks for: the history through the current revision is
 * dropped, so a watch resuming from before it, or a list continuing a
 * snapshot from before it, gets 410 Expired; a watch already open goes on,
 * and one from the compacted revision itself starts cleanly.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { TestApi } from './support/api-client.js';

let api: TestApi;
before(async () => {
  api = await TestApi.start();
  await api.createNamespace('compact');
});
after(() => api.stop());

const configMap = (name: string, n: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { n } });

test('after compact(), older revisions are Expired for watches and continued lists; open watches and the current revision are not', async () => {
  const first = await api.ok('POST', '/api/v1/namespaces/compact/configmaps', configMap('a', '0'), 201);
  await api.ok('POST', '/api/v1/namespaces/compact/configmaps', configMap('b', '0'), 201);
  const page = await api.ok('GET', '/api/v1/namespaces/compact/configmaps?limit=1', undefined, 200);
  assert.ok(page.metadata.continue, 'a continue token');
  // A write after the page, so that the compaction goes past the snapshot the token reads.
  await api.ok('POST', '/api/v1/namespaces/compact/configmaps', configMap('c', '0'), 201);
  const open = await api.watch(`/api/v1/namespaces/compact/configmaps?watch=1&resourceVersion=${first.metadata.resourceVersion}`);
  await open.take(2); // b's and c's ADDED, replayed from the history

  const compactedThrough = api.server.compact();
  const latest = await api.ok('GET', '/api/v1/namespaces/compact/configmaps', undefined, 200);
  assert.equal(String(compactedThrough), latest.metadata.resourceVersion);

  const stale = await api.watch(`/api/v1/namespaces/compact/configmaps?watch=1&resourceVersion=${first.metadata.resourceVersion}`);
  const [gone] = await stale.take(1);
  stale.close();
  assert.equal(gone?.type, 'ERROR');
  assert.equal(gone?.object.code, 410);
  assert.equal(gone?.object.reason, 'Expired');
  const continued = await api.request('GET', `/api/v1/namespaces/compact/configmaps?limit=1&continue=${encodeURIComponent(page.metadata.continue)}`);
  assert.equal(continued.status, 410);

  const fresh = await api.watch(`/api/v1/namespaces/compact/configmaps?watch=1&resourceVersion=${compactedThrough}`);
  await api.ok('PUT', '/api/v1/namespaces/compact/configmaps/a', configMap('a', '1'), 200);
  for (const watch of [open, fresh]) {
    const event = await watch.next();
    assert.deepEqual([event.type, event.object.metadata.name, event.object.data.n], ['MODIFIED', 'a', '1']);
    watch.close();
  }
});

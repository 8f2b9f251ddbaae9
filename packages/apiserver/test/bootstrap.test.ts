/**
 * The bootstrap objects (default RBAC policy, PriorityClasses, namespaces, the
 * `kubernetes` Service and its endpoints) are written to a new store without
 * the full write path, which costs start-up time: they must come out exactly
 * as the full path stores them, byte for byte, in the same order
 * (resourceVersions), with the same managedFields and defaults. Only what
 * differs between any two starts (uids, times, the port) is set aside, after
 * checking that both have it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TestApi } from './support/api-client.js';

const lists = [
  '/apis/rbac.authorization.k8s.io/v1/clusterroles',
  '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
  '/apis/scheduling.k8s.io/v1/priorityclasses',
  '/api/v1/namespaces',
  // The `kubernetes` Service, Endpoints and EndpointSlice, written right after listening.
  '/api/v1/services',
  '/api/v1/endpoints',
  '/apis/discovery.k8s.io/v1/endpointslices',
];

/** The list's items as sent (the stored bytes), with uids, times and the server's port replaced by placeholders. */
function itemsText(text: string, port: number): string {
  const items = text.slice(text.indexOf('"items":'));
  return items
    .replace(/"uid":"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"/g, '"uid":"<uid>"')
    .replace(/"(creationTimestamp|time)":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"/g, '"$1":"<time>"')
    .replaceAll(`"port":${port},`, '"port":"<port>",')
    .replaceAll(`"targetPort":${port}}`, '"targetPort":"<port>"}');
}

describe('bootstrap objects', () => {
  let fast: TestApi;
  let full: TestApi;
  before(async () => {
    fast = await TestApi.start();
    full = await TestApi.start({ bootstrapWrites: 'full' });
  });
  after(async () => {
    await fast?.stop();
    await full?.stop();
  });

  for (const path of lists) {
    it(`are stored as the full create path stores them: ${path.split('/').pop()}`, async () => {
      const a = await fast.request('GET', path);
      const b = await full.request('GET', path);
      assert.equal(a.status, 200);
      assert.equal(b.status, 200);
      assert.ok(a.body.items.length > 0);
      // Every object has its uid, creationTimestamp and managedFields with a time, in both.
      for (const item of [...a.body.items, ...b.body.items]) {
        assert.match(item.metadata.uid, /^[0-9a-f-]{36}$/);
        assert.match(item.metadata.creationTimestamp, /Z$/);
        assert.ok(item.metadata.managedFields?.length, `${item.metadata.name} has managedFields`);
        for (const entry of item.metadata.managedFields) assert.match(entry.time, /Z$/);
      }
      assert.equal(itemsText(a.text, fast.server.port), itemsText(b.text, full.server.port));
    });
  }

  it('are written in the same order: each object at the same resourceVersion', async () => {
    const revisions = async (api: TestApi): Promise<string[]> => {
      const out: string[] = [];
      for (const path of lists) for (const item of (await api.request('GET', path)).body.items) out.push(`${path} ${item.metadata.name} ${item.metadata.resourceVersion}`);
      return out;
    };
    assert.deepEqual(await revisions(fast), await revisions(full));
  });
});

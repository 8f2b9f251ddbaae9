/**
 * The bootstrap objects (default RBAC policy, PriorityClasses, namespaces, the
 * `kubernetes` Service and its endpoints, and what the server's controllers
 * write next: APIServices, FlowSchema statuses, aggregated rules) are written to a new store without
 * the full write path, which costs start-up time: they must come out exactly
 * as the full path stores them, byte for byte, in the same order
 * (resourceVersions), with the same managedFields and defaults. Only what
 * differs between any two starts (uids, times, the port) is set aside, after
 * checking that both have it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ManagedFieldsEntry } from '@operant/apimachinery/managedfields';
import { sameSecondOrder } from '../scripts/gen-bootstrap-objects.js';
import { startApiServer } from '../src/server.js';
import { TestApi, type Json } from './support/api-client.js';

const lists = [
  '/apis/rbac.authorization.k8s.io/v1/clusterroles',
  '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
  '/apis/scheduling.k8s.io/v1/priorityclasses',
  '/api/v1/namespaces',
  // The `kubernetes` Service, Endpoints and EndpointSlice, written right after listening.
  '/api/v1/services',
  '/api/v1/endpoints',
  '/apis/discovery.k8s.io/v1/endpointslices',
  // What the server's controllers write next: the default ServiceAccounts, autoregister's APIServices,
  // the FlowSchemas' Dangling conditions.
  '/api/v1/serviceaccounts',
  '/apis/apiregistration.k8s.io/v1/apiservices',
  '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas',
];

/** The store's revision: a list's resourceVersion. */
async function revision(api: TestApi): Promise<number> {
  return Number((await api.request('GET', '/api/v1/namespaces?limit=1')).body.metadata.resourceVersion);
}

/**
 * The list's items as sent (the stored bytes), with uids, times and the server's port replaced by
 * placeholders. An object whose managedFields entries were written in different seconds (a
 * controller's write in the second after the create) has them in the order of a single second, the
 * order a fast start, which stamps them all with one time, gives them.
 */
function itemsText(text: string, port: number): string {
  const list = JSON.parse(text) as { items: Array<{ metadata: { managedFields?: Array<Record<string, string>> } }> };
  for (const { metadata } of list.items) {
    const entries = metadata.managedFields ?? [];
    if (new Set(entries.map((e) => e.time)).size > 1) entries.sort((p, q) => sameSecondOrder(p as ManagedFieldsEntry, q as ManagedFieldsEntry));
  }
  const items = JSON.stringify(list.items);
  return items
    .replace(/"uid":"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"/g, '"uid":"<uid>"')
    .replace(/"(creationTimestamp|time|lastTransitionTime)":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"/g, '"$1":"<time>"')
    .replaceAll(`"port":${port},`, '"port":"<port>",')
    .replaceAll(`"targetPort":${port}}`, '"targetPort":"<port>"}');
}

describe('bootstrap objects', () => {
  let fast: TestApi;
  let full: TestApi;
  before(async () => {
    fast = await TestApi.start();
    full = await TestApi.start({ bootstrapWrites: 'full' });
    // The fast start stores the controllers' writes with the bootstrap objects; the full one's
    // controllers make them after the start, up to the same revision (checked below, object by object).
    const settled = await revision(fast);
    while ((await revision(full)) < settled) await new Promise((resolve) => setImmediate(resolve));
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
        // The namespace controller makes the default ServiceAccounts without a field manager.
        if (!path.endsWith('/serviceaccounts')) assert.ok(item.metadata.managedFields?.length, `${item.metadata.name} has managedFields`);
        for (const entry of item.metadata.managedFields ?? []) assert.match(entry.time, /Z$/);
      }
      assert.equal(itemsText(a.text, fast.server.port), itemsText(b.text, full.server.port));
    });
  }

  it("leave the server's controllers nothing to write: the fast start's revision stays where the full start's controllers end", async () => {
    // The fast server's controllers made their first passes (on timers) while the full one started: a
    // write of theirs would put the fast revision past the full one's final revision.
    assert.equal(await revision(fast), await revision(full));
  });

  it('are written in the same order: each object at the same resourceVersion', async () => {
    const revisions = async (api: TestApi): Promise<string[]> => {
      const out: string[] = [];
      for (const path of lists) for (const item of (await api.request('GET', path)).body.items) out.push(`${path} ${item.metadata.name} ${item.metadata.resourceVersion}`);
      return out;
    };
    assert.deepEqual(await revisions(fast), await revisions(full));
  });
});

describe("the server's controllers on a new store", () => {
  it('find their first writes stored with the bootstrap objects: a server stopped as its start returns has them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'operant-bootstrap-'));
    try {
      const dataDir = join(dir, 'data');
      // Stopped before any controller's first pass (each on a timer) can run: what is stored came with the start.
      const first = await startApiServer({ port: 0, dataDir });
      const firstPort = first.port;
      await first.stop();
      const api = await TestApi.start({ dataDir });
      try {
        assert.notEqual(api.server.port, firstPort, 'the restart listens elsewhere, so it rewrites the kubernetes Endpoints');
        // The restart's first write points the kubernetes Endpoints at its port: all below came before.
        const restartedAt = Number((await api.ok('GET', '/api/v1/namespaces/default/endpoints/kubernetes')).metadata.resourceVersion);
        const before = async (path: string): Promise<Json> => {
          const obj = await api.ok('GET', path);
          assert.ok(Number(obj.metadata.resourceVersion) < restartedAt, `${path} was stored by the first start`);
          return obj;
        };
        assert.deepEqual((await before('/apis/apiregistration.k8s.io/v1/apiservices/v1.apps')).status.conditions.map((c: Json) => [c.type, c.status, c.reason]), [['Available', 'True', 'Local']]);
        const exempt = await before('/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/exempt');
        assert.deepEqual(exempt.status.conditions.map((c: Json) => [c.type, c.status, c.reason]), [['Dangling', 'False', 'Found']]);
        assert.deepEqual(exempt.metadata.managedFields.map((e: Json) => [e.manager, e.subresource]), [
          ['api-priority-and-fairness-config-consumer-v1', 'status'],
          ['api-priority-and-fairness-config-producer-v1', undefined],
        ]);
        await before('/api/v1/namespaces/kube-system/serviceaccounts/default');
      } finally {
        await api.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

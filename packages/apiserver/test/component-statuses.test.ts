/**
 * core/v1 ComponentStatuses over the wire, as kube-apiserver 1.32 answers
 * them: read-only (get and list), computed at each request, the deprecation
 * warning on every answer, kube's 500 for a component it does not know.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestApi, type Json } from './support/api-client.js';

const cs = '/api/v1/componentstatuses';
const warning = '299 - "v1 ComponentStatus is deprecated in v1.19+"';

describe('ComponentStatuses', () => {
  let api: TestApi;
  before(async () => {
    api = await TestApi.start();
  });
  after(async () => {
    await api?.stop();
  });

  it('discovery lists them read-only, with short name cs and no storage hash', async () => {
    const list = await api.ok('GET', '/api/v1');
    const entry = list.resources.find((r: Json) => r.name === 'componentstatuses');
    assert.deepEqual(entry, { name: 'componentstatuses', singularName: 'componentstatus', namespaced: false, kind: 'ComponentStatus', verbs: ['get', 'list'], shortNames: ['cs'] });
  });

  it('lists scheduler, controller-manager and etcd-0 as Healthy, with the deprecation warning', async () => {
    const res = await api.request('GET', cs);
    assert.equal(res.status, 200);
    assert.equal(res.headers.warning, warning);
    assert.equal(res.body.kind, 'ComponentStatusList');
    assert.deepEqual(res.body.metadata, {});
    const byName = new Map(res.body.items.map((i: Json) => [i.metadata.name, i]));
    assert.deepEqual([...byName.keys()].sort(), ['controller-manager', 'etcd-0', 'scheduler']);
    assert.deepEqual(byName.get('etcd-0'), {
      kind: 'ComponentStatus',
      apiVersion: 'v1',
      metadata: { name: 'etcd-0', creationTimestamp: null },
      conditions: [{ type: 'Healthy', status: 'True', message: 'ok' }],
    });

    const table = await api.request('GET', cs, undefined, { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    assert.equal(table.headers.warning, warning);
    assert.deepEqual(table.body.columnDefinitions.map((c: Json) => c.name), ['Name', 'Status', 'Message', 'Error']);
    assert.deepEqual(table.body.rows.find((r: Json) => r.cells[0] === 'scheduler').cells, ['scheduler', 'Healthy', 'ok', '']);
  });

  it('gets one; an unknown name is kube\'s internal error', async () => {
    const one = await api.request('GET', `${cs}/scheduler`);
    assert.equal(one.headers.warning, warning);
    assert.equal(one.body.metadata.name, 'scheduler');
    const unknown = await api.request('GET', `${cs}/kubelet`);
    assert.equal(unknown.status, 500);
    assert.deepEqual(unknown.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Internal error occurred: Component not found: kubelet',
      reason: 'InternalError',
      details: { causes: [{ message: 'Component not found: kubelet' }] },
      code: 500,
    });
  });

  it('filters by selectors as kube does; writes and watches are refused', async () => {
    const byName = await api.ok('GET', `${cs}?fieldSelector=metadata.name%3Detcd-0`);
    assert.deepEqual(byName.items.map((i: Json) => i.metadata.name), ['etcd-0']);
    // No component has labels: any label selector that requires one matches none.
    assert.deepEqual((await api.ok('GET', `${cs}?labelSelector=tier`)).items, []);
    const badField = await api.request('GET', `${cs}?fieldSelector=status.phase%3DOk`);
    assert.equal(badField.status, 400);
    assert.equal(badField.body.message, '"status.phase" is not a known field selector: only "metadata.name", "metadata.namespace"');

    for (const [method, path] of [['GET', `${cs}?watch=true`], ['POST', cs], ['DELETE', `${cs}/etcd-0`]] as const) {
      const refused = await api.request(method, path, method === 'POST' ? { apiVersion: 'v1', kind: 'ComponentStatus', metadata: { name: 'x' } } : undefined);
      assert.equal(refused.status, 405, `${method} ${path}`);
      assert.equal(refused.body.reason, 'MethodNotAllowed');
    }
    assert.equal((await api.request('GET', '/api/v1/namespaces/default/componentstatuses')).status, 404);
  });
});

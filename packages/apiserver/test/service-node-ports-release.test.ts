/**
 * Node ports a write takes are held from its BeginCreate/BeginUpdate until
 * it is stored or has failed, as kube's allocator transaction
 * (pkg/registry/core/service/storage/alloc.go: txn.Revert on any error
 * before the store write). These rows fail the write after the ports were
 * taken, each in another way, and check that the port asked for is free at
 * once for the next Service: validation (422), the Service's own other port
 * already allocated (422 from the allocation itself), and a dry run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestApi, type Json } from './support/api-client.js';

function service(name: string, spec: Json): Json {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { selector: { app: name }, ...spec } };
}

describe('node ports given back when the write that took them fails', () => {
  let api: TestApi;
  const ns = 'node-ports-release';
  const path = `/api/v1/namespaces/${ns}/services`;
  before(async () => {
    api = await TestApi.start();
    await api.createNamespace(ns);
  });
  after(() => api.stop());

  it('a create refused by validation after its ports were taken gives them back', async () => {
    // Two ports, the second without a name: spec.ports[1].name is required, found after allocation.
    const invalid = service('invalid', { type: 'NodePort', ports: [{ name: 'a', port: 80, nodePort: 30601 }, { port: 81, nodePort: 30602 }] });
    const res = await api.request('POST', path, invalid);
    assert.equal(res.status, 422, res.text);
    assert.match(res.body.message, /spec\.ports\[1\]\.name: Required value/);
    const next = await api.ok('POST', path, service('next', { type: 'NodePort', ports: [{ name: 'a', port: 80, nodePort: 30601 }, { name: 'b', port: 81, nodePort: 30602 }] }), 201);
    assert.deepEqual(next.spec.ports.map((p: Json) => p.nodePort), [30601, 30602]);
  });

  it('a create whose later port is refused by the allocation gives back the ports it took before it', async () => {
    await api.ok('POST', path, service('holder', { type: 'NodePort', ports: [{ port: 80, nodePort: 30611 }] }), 201);
    const res = await api.request('POST', path, service('partial', { type: 'NodePort', ports: [{ name: 'a', port: 80, nodePort: 30610 }, { name: 'b', port: 81, nodePort: 30611 }] }));
    assert.equal(res.status, 422, res.text);
    assert.match(res.body.message, /spec\.ports\[1\]\.nodePort: Invalid value: 30611: provided port is already allocated/);
    const next = await api.ok('POST', path, service('after-partial', { type: 'NodePort', ports: [{ port: 80, nodePort: 30610 }] }), 201);
    assert.equal(next.spec.ports[0].nodePort, 30610);
  });

  it('an update refused by validation after it took a new port gives it back; the ports it kept stay its own', async () => {
    const created = await api.ok('POST', path, service('updated', { type: 'NodePort', ports: [{ name: 'a', port: 80, nodePort: 30620 }] }), 201);
    const body = structuredClone(created);
    body.spec.ports.push({ port: 81, nodePort: 30621 });
    const res = await api.request('PUT', `${path}/updated`, body);
    assert.equal(res.status, 422, res.text);
    assert.match(res.body.message, /spec\.ports\[1\]\.name: Required value/);
    const next = await api.ok('POST', path, service('after-update', { type: 'NodePort', ports: [{ port: 80, nodePort: 30621 }] }), 201);
    assert.equal(next.spec.ports[0].nodePort, 30621);
    const kept = await api.request('POST', path, service('wants-kept', { type: 'NodePort', ports: [{ port: 80, nodePort: 30620 }] }));
    assert.equal(kept.status, 422, kept.text);
    assert.match(kept.body.message, /provided port is already allocated/);
  });

  it('a dry-run create and update hold nothing', async () => {
    await api.ok('POST', `${path}?dryRun=All`, service('dry', { type: 'NodePort', ports: [{ port: 80, nodePort: 30630 }] }), 201);
    const created = await api.ok('POST', path, service('dry-update', { type: 'NodePort', ports: [{ name: 'a', port: 80 }] }), 201);
    const body = structuredClone(created);
    body.spec.ports.push({ name: 'b', port: 81, nodePort: 30631 });
    const dry = await api.ok('PUT', `${path}/dry-update?dryRun=All`, body, 200);
    assert.equal(dry.spec.ports[1].nodePort, 30631);
    for (const [name, port] of [['after-dry', 30630], ['after-dry-update', 30631]] as const) {
      const next = await api.ok('POST', path, service(name, { type: 'NodePort', ports: [{ port: 80, nodePort: port }] }), 201);
      assert.equal(next.spec.ports[0].nodePort, port);
    }
  });
});

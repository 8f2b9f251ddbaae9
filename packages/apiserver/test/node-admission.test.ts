/**
 * kube's TaintNodesAtCreation admission (plugin/pkg/admission/nodetaint):
 * every Node is created with the node.kubernetes.io/not-ready NoSchedule
 * taint, which the node lifecycle controller takes away once the node is
 * Ready; only creates are admitted, and the creator's managedFields do not
 * own what admission added.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { TestApi, type Json } from './support/api-client.js';

let api: TestApi;

before(async () => {
  api = await TestApi.start();
});
after(async () => {
  await api?.stop();
});

const nodes = '/api/v1/nodes';
const notReady = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' };
const node = (name: string, spec?: Json): Json => ({ apiVersion: 'v1', kind: 'Node', metadata: { name }, ...(spec ? { spec } : {}) });

it('a new Node gets the not-ready NoSchedule taint, after its own, stored as answered', async () => {
  const created = await api.ok('POST', nodes, node('bare'), 201);
  assert.deepEqual(created.spec.taints, [notReady]);
  const own = { key: 'example.com/gpu', value: 'true', effect: 'NoSchedule' };
  const tainted = await api.ok('POST', nodes, node('gpu', { taints: [own] }), 201);
  assert.deepEqual(tainted.spec.taints, [own, notReady]);
  assert.deepEqual((await api.ok('GET', `${nodes}/gpu`)).spec.taints, [own, notReady]);
  // A dry run shows it too, as kube's admission chain runs for dry runs.
  const dry = await api.ok('POST', `${nodes}?dryRun=All`, node('dry'), 201);
  assert.deepEqual(dry.spec.taints, [notReady]);
});

it('a Node that has a taint of that key and effect keeps it alone (its value and time do not count); other effects do not match', async () => {
  const same = { key: 'node.kubernetes.io/not-ready', value: 'x', effect: 'NoSchedule', timeAdded: '2024-01-01T00:00:00Z' };
  assert.deepEqual((await api.ok('POST', nodes, node('same', { taints: [same] }), 201)).spec.taints, [same]);
  const noExecute = { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' };
  assert.deepEqual((await api.ok('POST', nodes, node('other-effect', { taints: [noExecute] }), 201)).spec.taints, [noExecute, notReady]);
});

it('only a create is admitted: an update that takes the taint away keeps it away', async () => {
  const current = await api.ok('POST', nodes, node('updated'), 201);
  delete current.spec.taints;
  const updated = await api.ok('PUT', `${nodes}/updated`, current, 200);
  assert.equal(updated.spec.taints, undefined);
});

it("the creator's managedFields do not own the taint admission added", async () => {
  const created = await api.ok('POST', nodes, node('owned', { unschedulable: true }), 201);
  const entries = created.metadata.managedFields as Json[];
  const spec = entries[0]!.fieldsV1['f:spec'];
  assert.ok(spec['f:unschedulable'], "the request's own field is owned");
  assert.equal(spec['f:taints'], undefined);
});

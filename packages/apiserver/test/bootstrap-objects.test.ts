/**
 * The bootstrap objects a new store gets (src/bootstrap-objects.json, made by
 * scripts/gen-bootstrap-objects.ts) are what the full create path stores for
 * the bootstrap objects as they are now: a change to a bootstrap object, or
 * to how the write path stores them, or to what the server's controllers write
 * on a new store, fails here until the file is made again.
 * (bootstrap.test.ts compares the objects both ways byte for byte.)
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { bootstrapObjectsFile, bootstrapObjectsText, computeBootstrapObjects } from '../scripts/gen-bootstrap-objects.js';

it('the precomputed bootstrap objects are what the write path stores', async () => {
  const computed = await computeBootstrapObjects();
  // Every kind of bootstrap object is there, each with its one Update entry and nothing of a particular start.
  const kinds = (objects: typeof computed.objects): string[] => [...new Set(objects.map((o) => o.object.kind))];
  assert.deepEqual(kinds(computed.objects), ['ClusterRole', 'ClusterRoleBinding', 'PriorityClass', 'Namespace', 'PriorityLevelConfiguration', 'FlowSchema']);
  assert.deepEqual(kinds(computed.kubernetes), ['Service', 'Endpoints', 'EndpointSlice']);
  // Then the namespace controller's default ServiceAccounts, autoregister's APIServices and the FlowSchemas' Dangling conditions.
  assert.deepEqual(kinds(computed.controllerWrites), ['ServiceAccount', 'APIService', 'FlowSchema']);
  for (const { object } of [...computed.objects, ...computed.kubernetes, ...computed.controllerWrites]) {
    const meta = object.metadata;
    const entries = meta.managedFields ?? [];
    // The namespace controller makes the default ServiceAccounts without a field manager.
    if (object.kind !== 'ServiceAccount') assert.equal(entries[0]?.operation, 'Update', meta.name);
    assert.deepEqual([meta.uid, meta.creationTimestamp, meta.resourceVersion, ...entries.map((e) => e.time)], ['', '', '', ...entries.map(() => '')], meta.name);
  }
  for (const { object } of computed.controllerWrites.filter((w) => w.object.kind !== 'ServiceAccount')) {
    const conditions = (object.status as { conditions?: Array<{ type: string; lastTransitionTime: string }> }).conditions ?? [];
    assert.deepEqual(conditions.map((c) => [c.type, c.lastTransitionTime]), [[object.kind === 'APIService' ? 'Available' : 'Dangling', '']], object.metadata.name);
  }
  assert.equal(
    readFileSync(bootstrapObjectsFile, 'utf8'),
    bootstrapObjectsText(computed),
    'src/bootstrap-objects.json is stale: node --conditions=source --import tsx packages/apiserver/scripts/gen-bootstrap-objects.ts',
  );
});

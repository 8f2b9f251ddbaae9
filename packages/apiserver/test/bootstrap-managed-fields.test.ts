/**
 * The managedFields the server copies into its bootstrap objects
 * (src/bootstrap-managed-fields.json, made by
 * scripts/gen-bootstrap-managed-fields.ts) are what the full create path
 * computes for the bootstrap objects as they are now: a change to a bootstrap
 * object, or to how managedFields are computed, fails here until the file is
 * made again. (bootstrap.test.ts compares the objects both ways byte for byte.)
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { bootstrapManagedFieldsFile, bootstrapManagedFieldsText, computeBootstrapManagedFields } from '../scripts/gen-bootstrap-managed-fields.js';

it('the precomputed managedFields of the bootstrap objects are what the write path computes', async () => {
  const computed = await computeBootstrapManagedFields();
  // Every kind of bootstrap object is there, each with its one Update entry.
  const kinds = new Set(Object.keys(computed).map((key) => key.split('/')[0]));
  assert.deepEqual([...kinds].sort(), [
    'clusterrolebindings.rbac.authorization.k8s.io',
    'clusterroles.rbac.authorization.k8s.io',
    'endpoints',
    'endpointslices.discovery.k8s.io',
    'flowschemas.flowcontrol.apiserver.k8s.io',
    'namespaces',
    'priorityclasses.scheduling.k8s.io',
    'prioritylevelconfigurations.flowcontrol.apiserver.k8s.io',
    'services',
  ]);
  for (const [key, entries] of Object.entries(computed)) assert.equal(entries[0]?.operation, 'Update', key);
  assert.equal(
    readFileSync(bootstrapManagedFieldsFile, 'utf8'),
    bootstrapManagedFieldsText(computed),
    'src/bootstrap-managed-fields.json is stale: node --conditions=source --import tsx packages/apiserver/scripts/gen-bootstrap-managed-fields.ts',
  );
});

/** Stored objects share identical FieldsV1 trees, frozen, and keep their own entries. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shareManagedFields } from './shared-fields.js';
import type { ManagedFieldsEntry } from './managed-fields.js';

const entries = (manager: string, fieldsV1: ManagedFieldsEntry['fieldsV1']): ManagedFieldsEntry[] => [
  { manager, operation: 'Apply', apiVersion: 'v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1 },
];

test('equal trees become one frozen tree; entries stay each object’s own; other trees stay apart', () => {
  const a = entries('a', { 'f:data': { 'f:x': {}, 'f:y': {} } });
  const b = entries('b', { 'f:data': { 'f:x': {}, 'f:y': {} } });
  const c = entries('a', { 'f:data': { 'f:x': {} } });
  shareManagedFields(a);
  shareManagedFields(b);
  shareManagedFields(c);
  shareManagedFields(undefined);
  assert.equal(a[0]!.fieldsV1, b[0]!.fieldsV1);
  assert.notEqual(a[0], b[0]);
  assert.equal(b[0]!.manager, 'b');
  assert.notEqual(a[0]!.fieldsV1, c[0]!.fieldsV1);
  assert.deepEqual(c[0]!.fieldsV1, { 'f:data': { 'f:x': {} } });
  assert.ok(Object.isFrozen(a[0]!.fieldsV1) && Object.isFrozen(a[0]!.fieldsV1!['f:data']));
  // A shared tree cannot be changed through one object behind the others' backs.
  assert.throws(() => {
    (a[0]!.fieldsV1!['f:data'] as Record<string, unknown>)['f:z'] = {};
  }, TypeError);
});

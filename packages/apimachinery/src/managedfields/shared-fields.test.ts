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

test('trees that differ in one leaf share their {} leaves and their nodes of leaves', () => {
  const tree = (ip: string): ManagedFieldsEntry['fieldsV1'] => ({
    'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:status': {}, 'f:type': {} } }, 'f:podIPs': { '.': {}, [`k:{"ip":"${ip}"}`]: { '.': {}, 'f:ip': {} } } },
  });
  const a = entries('kubelet', tree('10.0.0.1'));
  const b = entries('kubelet', tree('10.0.0.2'));
  shareManagedFields(a);
  shareManagedFields(b);
  const sa = a[0]!.fieldsV1!['f:status']!;
  const sb = b[0]!.fieldsV1!['f:status']!;
  assert.notEqual(sa, sb);
  assert.equal(sa['f:conditions']!['k:{"type":"Ready"}'], sb['f:conditions']!['k:{"type":"Ready"}']);
  assert.equal(sa['f:podIPs']!['k:{"ip":"10.0.0.1"}'], sb['f:podIPs']!['k:{"ip":"10.0.0.2"}']);
  assert.equal(sa['f:podIPs']!['.'], sa['f:conditions']!['k:{"type":"Ready"}']!['f:type']);
  // A node of leaves is shared only with one of the same names in the same order.
  assert.notEqual(sa['f:podIPs']!['k:{"ip":"10.0.0.1"}'], sa['f:conditions']!['k:{"type":"Ready"}']);
  // Each keeps its own content, in its own order.
  assert.deepEqual(b[0]!.fieldsV1, tree('10.0.0.2'));
  assert.deepEqual(Object.keys(sb['f:podIPs']!), ['.', 'k:{"ip":"10.0.0.2"}']);
  assert.ok(Object.isFrozen(sb) && Object.isFrozen(sb['f:podIPs']) && Object.isFrozen(sb['f:podIPs']!['.']));
});

test('a stored (frozen) tree given again stays as it is; an equal tree with other key order is not merged with it', () => {
  const a = entries('m', { 'f:spec': { 'f:replicas': {}, 'f:paused': {} } });
  shareManagedFields(a);
  const stored = a[0]!.fieldsV1;
  const again = entries('m', stored);
  shareManagedFields(again);
  assert.equal(again[0]!.fieldsV1, stored);
  const swapped = entries('m', { 'f:spec': { 'f:paused': {}, 'f:replicas': {} } });
  shareManagedFields(swapped);
  assert.notEqual(swapped[0]!.fieldsV1, stored);
  assert.deepEqual(Object.keys(swapped[0]!.fieldsV1!['f:spec']!), ['f:paused', 'f:replicas']);
});

test('a tree that is not all plain objects is kept as it came, frozen', () => {
  const odd = { 'f:data': { 'f:x': {}, 'f:y': [1] } } as unknown as ManagedFieldsEntry['fieldsV1'];
  const a = entries('m', odd);
  shareManagedFields(a);
  assert.equal(a[0]!.fieldsV1, odd);
  assert.deepEqual(a[0]!.fieldsV1, { 'f:data': { 'f:x': {}, 'f:y': [1] } });
  assert.ok(Object.isFrozen(a[0]!.fieldsV1!['f:data']));
});

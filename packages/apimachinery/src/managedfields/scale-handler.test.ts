/** The ScaleHandler's mapping of managedFields between an object and its Scale, case by case as kube's scalehandler_test. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ScaleHandler, replicasPathOf } from './scale-handler.js';
import type { ManagedFieldsEntry } from './managed-fields.js';

const replicas = { 'f:spec': { 'f:replicas': {} } };
const entry = (manager: string, operation: 'Apply' | 'Update', apiVersion: string, fieldsV1: ManagedFieldsEntry['fieldsV1'], extra: Partial<ManagedFieldsEntry> = {}): ManagedFieldsEntry => ({
  manager,
  operation,
  apiVersion,
  time: '2026-01-01T00:00:00Z',
  fieldsType: 'FieldsV1',
  fieldsV1,
  ...extra,
});
const apps = new Map([['apps/v1', replicasPathOf('.spec.replicas')]]);

describe('ScaleHandler.toSubresource', () => {
  it('keeps the owners of the replicas, owning the Scale’s spec.replicas at autoscaling/v1', () => {
    const parent = [
      entry('applier', 'Apply', 'apps/v1', { 'f:spec': { 'f:replicas': {}, 'f:paused': {} } }),
      entry('labeller', 'Update', 'apps/v1', { 'f:metadata': { 'f:labels': {} } }),
      entry('old', 'Update', 'apps/v1beta1', replicas),
    ];
    assert.deepEqual(new ScaleHandler(parent, 'apps/v1', apps).toSubresource(), [
      { manager: 'applier', operation: 'Apply', apiVersion: 'autoscaling/v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: replicas },
    ]);
  });
});

describe('ScaleHandler.toParent', () => {
  it('takes the replicas from owners absent from the Scale, drops entries left empty, and adds the Scale’s owners without time', () => {
    const parent = [
      entry('applier', 'Apply', 'apps/v1', { 'f:spec': { 'f:replicas': {}, 'f:paused': {} } }),
      entry('creator', 'Update', 'apps/v1', replicas),
      entry('labeller', 'Update', 'apps/v1', { 'f:metadata': { 'f:labels': {} } }),
    ];
    const scale = [entry('scaler', 'Apply', 'autoscaling/v1', replicas, { subresource: 'scale' })];
    assert.deepEqual(new ScaleHandler(parent, 'apps/v1', apps).toParent(scale), [
      // Sorted as kube sorts them: no time counts as the earliest.
      { manager: 'scaler', operation: 'Apply', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: replicas, subresource: 'scale' },
      { manager: 'applier', operation: 'Apply', apiVersion: 'apps/v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:paused': {} } } },
      { manager: 'labeller', operation: 'Update', apiVersion: 'apps/v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': {} } } },
    ]);
  });

  it('leaves an owner that still owns the Scale’s replicas as it was', () => {
    const parent = [entry('applier', 'Apply', 'apps/v1', replicas)];
    const handler = new ScaleHandler(parent, 'apps/v1', apps);
    assert.deepEqual(handler.toParent(handler.toSubresource()), parent);
  });

  it('maps a custom resource’s specReplicasPath; keeps entries of versions without a scale; drops unknown versions', () => {
    const mappings = new Map([
      ['db.example.com/v1', replicasPathOf('.spec.members')],
      ['db.example.com/v1beta1', null],
    ]);
    const parent = [
      entry('owner', 'Apply', 'db.example.com/v1', { 'f:spec': { 'f:members': {}, 'f:engine': {} } }),
      entry('legacy', 'Update', 'db.example.com/v1beta1', { 'f:spec': { 'f:members': {} } }),
      entry('stranger', 'Update', 'other.example.com/v1', replicas),
    ];
    const handler = new ScaleHandler(parent, 'db.example.com/v1', mappings);
    assert.deepEqual(handler.toSubresource()?.map((e) => e.manager), ['owner']);
    const scale = [entry('hpa', 'Update', 'autoscaling/v1', replicas, { subresource: 'scale' })];
    assert.deepEqual(handler.toParent(scale), [
      { manager: 'owner', operation: 'Apply', apiVersion: 'db.example.com/v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:engine': {} } } },
      { manager: 'hpa', operation: 'Update', apiVersion: 'db.example.com/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:members': {} } }, subresource: 'scale' },
      { manager: 'legacy', operation: 'Update', apiVersion: 'db.example.com/v1beta1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:members': {} } } },
    ]);
  });
});

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
  type Condition,
} from './conditions.js';

/** A clock that reads a settable time. */
function clockAt(iso: string): { now: () => Date; set(iso: string): void } {
  let current = new Date(iso);
  return { now: () => current, set: (t) => (current = new Date(t)) };
}

describe('setStatusCondition', () => {
  test('appends a new type with the clock time and reports a change', () => {
    const clock = clockAt('2024-01-01T00:00:00.400Z');
    const conditions: Condition[] = [];
    assert.equal(setStatusCondition(conditions, { type: 'Ready', status: 'False', reason: 'Pending', message: 'waiting' }, clock), true);
    assert.deepEqual(conditions, [
      { type: 'Ready', status: 'False', reason: 'Pending', message: 'waiting', lastTransitionTime: '2024-01-01T00:00:00Z' },
    ]);
  });

  test('keeps a given lastTransitionTime on a new condition', () => {
    const conditions: Condition[] = [];
    setStatusCondition(conditions, { type: 'Ready', status: 'True', reason: 'Ok', message: '', lastTransitionTime: '2020-05-05T05:05:05Z' });
    assert.equal(conditions[0].lastTransitionTime, '2020-05-05T05:05:05Z');
  });

  test('lastTransitionTime moves only when the status changes', () => {
    const clock = clockAt('2024-01-01T00:00:00Z');
    const conditions: Condition[] = [];
    setStatusCondition(conditions, { type: 'Ready', status: 'False', reason: 'Pending', message: 'a', observedGeneration: 1 }, clock);

    clock.set('2024-01-01T00:05:00Z');
    assert.equal(setStatusCondition(conditions, { type: 'Ready', status: 'False', reason: 'StillPending', message: 'b', observedGeneration: 2 }, clock), true);
    assert.deepEqual(conditions[0], {
      type: 'Ready', status: 'False', reason: 'StillPending', message: 'b', observedGeneration: 2, lastTransitionTime: '2024-01-01T00:00:00Z',
    });

    clock.set('2024-01-01T00:10:00Z');
    assert.equal(setStatusCondition(conditions, { type: 'Ready', status: 'True', reason: 'StillPending', message: 'b', observedGeneration: 2 }, clock), true);
    assert.equal(conditions[0].lastTransitionTime, '2024-01-01T00:10:00Z');

    // A status change with an explicit time takes that time.
    setStatusCondition(conditions, { type: 'Ready', status: 'Unknown', reason: 'Lost', message: '', lastTransitionTime: '2023-12-31T00:00:00Z' }, clock);
    assert.equal(conditions[0].lastTransitionTime, '2023-12-31T00:00:00Z');
  });

  test('an identical condition is no change, even with a different time', () => {
    const clock = clockAt('2024-01-01T00:00:00Z');
    const conditions: Condition[] = [];
    setStatusCondition(conditions, { type: 'Ready', status: 'True', reason: 'Ok', message: 'fine', observedGeneration: 4 }, clock);
    const before = structuredClone(conditions);
    clock.set('2024-02-01T00:00:00Z');
    assert.equal(setStatusCondition(conditions, { type: 'Ready', status: 'True', reason: 'Ok', message: 'fine', observedGeneration: 4, lastTransitionTime: '2025-01-01T00:00:00Z' }, clock), false);
    assert.deepEqual(conditions, before);
  });

  test('each of reason, message and observedGeneration alone is a change', () => {
    const base = { type: 'Ready', status: 'True' as const, reason: 'Ok', message: 'm', observedGeneration: 1 };
    for (const change of [{ reason: 'Other' }, { message: 'other' }, { observedGeneration: 2 }]) {
      const conditions: Condition[] = [];
      setStatusCondition(conditions, base);
      assert.equal(setStatusCondition(conditions, { ...base, ...change }), true, JSON.stringify(change));
      assert.deepEqual({ ...conditions[0], lastTransitionTime: '' }, { ...base, ...change, lastTransitionTime: '' });
    }
  });

  test('updates only the condition of its type', () => {
    const conditions: Condition[] = [];
    setStatusCondition(conditions, { type: 'Ready', status: 'True', reason: 'Ok', message: '' });
    setStatusCondition(conditions, { type: 'Degraded', status: 'False', reason: 'Ok', message: '' });
    setStatusCondition(conditions, { type: 'Degraded', status: 'True', reason: 'Broken', message: '' });
    assert.deepEqual(conditions.map((c) => [c.type, c.status]), [['Ready', 'True'], ['Degraded', 'True']]);
  });
});

describe('find, remove and test conditions', () => {
  const conditions = (): Condition[] => [
    { type: 'Ready', status: 'True', reason: 'Ok', message: '', lastTransitionTime: '2024-01-01T00:00:00Z' },
    { type: 'Degraded', status: 'False', reason: 'Ok', message: '', lastTransitionTime: '2024-01-01T00:00:00Z' },
    { type: 'Progressing', status: 'Unknown', reason: 'Starting', message: '', lastTransitionTime: '2024-01-01T00:00:00Z' },
  ];

  test('findStatusCondition returns the list element or undefined', () => {
    const list = conditions();
    assert.equal(findStatusCondition(list, 'Degraded'), list[1]);
    assert.equal(findStatusCondition(list, 'Missing'), undefined);
    assert.equal(findStatusCondition(undefined, 'Ready'), undefined);
  });

  test('removeStatusCondition removes by type and reports whether it did', () => {
    const list = conditions();
    assert.equal(removeStatusCondition(list, 'Degraded'), true);
    assert.deepEqual(list.map((c) => c.type), ['Ready', 'Progressing']);
    assert.equal(removeStatusCondition(list, 'Degraded'), false);
    assert.equal(list.length, 2);
  });

  test('status predicates', () => {
    const list = conditions();
    assert.equal(isStatusConditionTrue(list, 'Ready'), true);
    assert.equal(isStatusConditionTrue(list, 'Degraded'), false);
    assert.equal(isStatusConditionFalse(list, 'Degraded'), true);
    assert.equal(isStatusConditionFalse(list, 'Progressing'), false);
    assert.equal(isStatusConditionPresentAndEqual(list, 'Progressing', 'Unknown'), true);
    assert.equal(isStatusConditionTrue(list, 'Missing'), false);
    assert.equal(isStatusConditionFalse(list, 'Missing'), false);
    assert.equal(isStatusConditionTrue(undefined, 'Ready'), false);
  });
});

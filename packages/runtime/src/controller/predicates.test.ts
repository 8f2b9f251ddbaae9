import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@operant/apimachinery';
import {
  and,
  annotationsChanged,
  generationChanged,
  labelSelectorPredicate,
  labelsChanged,
  not,
  objectPredicate,
  or,
  passesCreate,
  passesDelete,
  passesGeneric,
  passesUpdate,
  resourceVersionChanged,
  type Predicate,
} from './predicates.js';

function obj(meta: Partial<KubeObject['metadata']> = {}): KubeObject {
  return { metadata: { name: 'a', namespace: 'ns', resourceVersion: '1', generation: 1, ...meta } };
}

const update = (p: Predicate, oldMeta: Partial<KubeObject['metadata']>, newMeta: Partial<KubeObject['metadata']>): boolean =>
  passesUpdate(p, { oldObject: obj(oldMeta), object: obj(newMeta) });

describe('change predicates', () => {
  test('generationChanged passes spec changes only, and every create, delete and generic event', () => {
    const p = generationChanged();
    assert.equal(update(p, { generation: 1, resourceVersion: '1' }, { generation: 2, resourceVersion: '2' }), true);
    assert.equal(update(p, { generation: 1, resourceVersion: '1' }, { generation: 1, resourceVersion: '2' }), false);
    assert.equal(update(p, { generation: undefined }, { generation: undefined }), false);
    assert.equal(passesCreate(p, { object: obj(), isInInitialList: true }), true);
    assert.equal(passesDelete(p, { object: obj(), deleteStateUnknown: false }), true);
    assert.equal(passesGeneric(p, { object: obj() }), true);
  });

  test('resourceVersionChanged drops resyncs', () => {
    const p = resourceVersionChanged();
    const o = obj();
    assert.equal(passesUpdate(p, { oldObject: o, object: o }), false);
    assert.equal(update(p, { resourceVersion: '1' }, { resourceVersion: '2' }), true);
  });

  test('labelsChanged and annotationsChanged compare the maps, absent equal to empty', () => {
    assert.equal(update(labelsChanged(), { labels: { a: '1' } }, { labels: { a: '1' } }), false);
    assert.equal(update(labelsChanged(), { labels: { a: '1' } }, { labels: { a: '2' } }), true);
    assert.equal(update(labelsChanged(), { labels: { a: '1' } }, { labels: { a: '1', b: '1' } }), true);
    assert.equal(update(labelsChanged(), { labels: { a: '1' } }, { labels: { b: '1' } }), true);
    assert.equal(update(labelsChanged(), {}, { labels: {} }), false);
    assert.equal(update(labelsChanged(), { annotations: { x: '1' } }, { annotations: { x: '2' } }), false);
    assert.equal(update(annotationsChanged(), { annotations: { x: '1' } }, { annotations: { x: '2' } }), true);
    assert.equal(update(annotationsChanged(), { labels: { a: '1' } }, { labels: { a: '2' } }), false);
  });
});

describe('labelSelectorPredicate', () => {
  test('accepts selector text, a metav1.LabelSelector, and judges the new object of an update', () => {
    for (const sel of ['app=web,tier in (a,b)', { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] }]) {
      const p = labelSelectorPredicate(sel);
      assert.equal(passesCreate(p, { object: obj({ labels: { app: 'web', tier: 'a' } }), isInInitialList: false }), true);
      assert.equal(passesCreate(p, { object: obj({ labels: { app: 'web', tier: 'c' } }), isInInitialList: false }), false);
      assert.equal(update(p, { labels: {} }, { labels: { app: 'web', tier: 'b' } }), true);
      assert.equal(update(p, { labels: { app: 'web', tier: 'b' } }, { labels: {} }), false);
      assert.equal(passesDelete(p, { object: obj({ labels: { app: 'db' } }), deleteStateUnknown: true }), false);
    }
  });

  test('an empty metav1.LabelSelector selects everything; bad text throws at once', () => {
    assert.equal(passesGeneric(labelSelectorPredicate({}), { object: obj() }), true);
    assert.throws(() => labelSelectorPredicate('a in x'));
  });
});

describe('combinators', () => {
  const yes: Predicate = { create: () => true, update: () => true, delete: () => true, generic: () => true };
  const no: Predicate = { create: () => false, update: () => false, delete: () => false, generic: () => false };
  const e = { object: obj() };

  test('and, or, not', () => {
    assert.equal(passesGeneric(and(yes, yes), e), true);
    assert.equal(passesGeneric(and(yes, no), e), false);
    assert.equal(passesGeneric(and(), e), true);
    assert.equal(passesGeneric(or(no, yes), e), true);
    assert.equal(passesGeneric(or(no, no), e), false);
    assert.equal(passesGeneric(or(), e), false);
    assert.equal(passesGeneric(not(yes), e), false);
    assert.equal(passesGeneric(not({}), e), false, 'an absent function passes, so its negation refuses');
  });

  test('or(generationChanged, labelsChanged) passes spec or label changes, not status', () => {
    const p = or(generationChanged(), labelsChanged());
    assert.equal(update(p, { generation: 1 }, { generation: 2 }), true);
    assert.equal(update(p, { labels: { a: '1' } }, { labels: { a: '2' } }), true);
    assert.equal(update(p, { resourceVersion: '1' }, { resourceVersion: '2' }), false);
  });

  test('objectPredicate filters every event type on its object', () => {
    const p = objectPredicate<KubeObject>((o) => o.metadata.namespace === 'ns');
    assert.equal(passesCreate(p, { object: obj(), isInInitialList: false }), true);
    assert.equal(update(p, { namespace: 'ns' }, { namespace: 'other' }), false);
    assert.equal(passesDelete(p, { object: obj({ namespace: 'other' }), deleteStateUnknown: false }), false);
    assert.equal(passesGeneric(p, { object: obj() }), true);
  });
});

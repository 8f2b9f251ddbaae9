import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../status.js';
import { applyMergePatch } from './merge-patch.js';

describe('applyMergePatch', () => {
  // RFC 7386 appendix A, the cases with an object on both sides.
  const rfcCases: Array<[unknown, unknown, unknown]> = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [doc, patch, want] of rfcCases) {
    it(`${JSON.stringify(doc)} + ${JSON.stringify(patch)}`, () => assert.deepEqual(applyMergePatch(doc, patch), want));
  }

  it('merges labels, deletes with null and replaces lists of a pod', () => {
    const doc = {
      metadata: { name: 'web', labels: { app: 'web', tier: 'front' } },
      spec: { containers: [{ name: 'app', image: 'nginx:1.25' }, { name: 'log' }] },
    };
    const out = applyMergePatch(doc, {
      metadata: { labels: { tier: null, version: 'v2' } },
      spec: { containers: [{ name: 'app', image: 'nginx:1.26' }] },
    });
    assert.deepEqual(out, {
      metadata: { name: 'web', labels: { app: 'web', version: 'v2' } },
      spec: { containers: [{ name: 'app', image: 'nginx:1.26' }] },
    });
    assert.deepEqual(doc.metadata.labels, { app: 'web', tier: 'front' }, 'the input is not modified');
  });

  it('drops null members of new values, also inside arrays, but keeps null array elements', () => {
    assert.deepEqual(applyMergePatch({}, { a: [{ b: null, c: 1 }, null] }), { a: [{ c: 1 }, null] });
  });

  it('replaces the document with an array patch', () => {
    assert.deepEqual(applyMergePatch({ a: 1 }, ['x', null]), ['x', null]);
  });

  it('answers a null or scalar patch with 400 Invalid JSON Patch', () => {
    for (const patch of [null, 'x', 3, true]) {
      assert.throws(
        () => applyMergePatch({ a: 1 }, patch),
        (e: unknown) => e instanceof StatusError && e.code === 400 && e.reason === 'BadRequest' && e.message === 'Invalid JSON Patch',
      );
    }
  });

  it('keeps a __proto__ member as data', () => {
    const out = applyMergePatch({}, JSON.parse('{"__proto__": {"polluted": true}}')) as Record<string, unknown>;
    assert.deepEqual(Object.keys(out), ['__proto__']);
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
  });
});

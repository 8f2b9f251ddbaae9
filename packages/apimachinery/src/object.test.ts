import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { deepCopy } from './object.js';

describe('deepCopy', () => {
  test('copies nested objects and arrays; the copy shares nothing', () => {
    const original = { a: { b: [1, { c: 'x' }], d: null, e: true }, f: 'g' };
    const copy = deepCopy(original);
    assert.deepEqual(copy, original);
    copy.a.b.push(2);
    (copy.a.b[1] as { c: string }).c = 'changed';
    assert.deepEqual(original, { a: { b: [1, { c: 'x' }], d: null, e: true }, f: 'g' });
  });

  test('a __proto__ key from JSON stays data', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}') as Record<string, unknown>;
    const copy = deepCopy(parsed);
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
    assert.deepEqual(Object.keys(copy), ['__proto__', 'x']);
    assert.equal(({} as { polluted?: boolean }).polluted, undefined);
  });

  test('gives what a JSON round trip gives for values JSON handles specially', () => {
    const when = new Date('2024-01-01T00:00:00.000Z');
    const odd = { u: undefined, f: () => 1, d: when, n: NaN, i: -Infinity, arr: [undefined, () => 1, Infinity, when], nested: { toJSON: () => ({ x: 1 }) } };
    assert.deepEqual(deepCopy(odd), JSON.parse(JSON.stringify(odd)));
    assert.deepEqual(Object.keys(deepCopy(odd)), Object.keys(JSON.parse(JSON.stringify(odd)) as object));
    assert.throws(() => deepCopy({ big: 1n }), TypeError);
    assert.throws(() => JSON.stringify({ big: 1n }), TypeError);
  });
});

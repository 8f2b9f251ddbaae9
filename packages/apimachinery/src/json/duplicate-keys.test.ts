import { test } from 'node:test';
import assert from 'node:assert/strict';
import { duplicateKeys, formatFieldPath } from './duplicate-keys.js';

test('each repeated key, with its path from the top, in order of appearance', () => {
  const text = '{"a":1,"spec":{"containers":[{"name":"a"},{"name":"b","image":"x","image":"y"}]},"a":2,"m":{"k":1,"k":2,"k":3}}';
  assert.deepEqual(duplicateKeys(text), [['spec', 'containers', 1, 'image'], ['a'], ['m', 'k'], ['m', 'k']]);
});

test('keys inside strings, equal keys in sibling objects and arrays of scalars are not repeats', () => {
  assert.deepEqual(duplicateKeys('{"a":{"x":1},"b":{"x":1},"s":"{\\"a\\":1,\\"a\\":2}","l":[1,"a",{"a":1}]}'), []);
  assert.deepEqual(duplicateKeys('[1,"two",{"three":3},null]'), []);
  assert.deepEqual(duplicateKeys('"just a string"'), []);
});

test('keys that differ only in their escapes are the same key', () => {
  assert.deepEqual(duplicateKeys('{"a":1,"\\u0061":2}'), [['a']]);
});

test('an unterminated string ends the walk with a SyntaxError instead of running on', () => {
  assert.throws(() => duplicateKeys('{"a'), SyntaxError);
});

test('paths print as kube prints field paths, or with the index left out', () => {
  assert.equal(formatFieldPath(['spec', 'containers', 1, 'image']), 'spec.containers[1].image');
  assert.equal(formatFieldPath([0, 'a']), '[0].a');
  assert.equal(formatFieldPath(['items', 3, 'name'], () => '[]'), 'items[].name');
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyMergePatch } from '@operant/apimachinery';
import { createMergePatch } from './merge-patch.js';

test('createMergePatch: changed, added, removed and nested fields; arrays replaced whole', () => {
  const original = { a: 1, b: { c: 2, d: 3, e: { f: 1 } }, list: [1, 2], gone: 'x', same: { k: 'v' } };
  const modified = { a: 2, b: { c: 2, e: { f: 1, g: 2 } }, list: [1, 2, 3], added: { z: true }, same: { k: 'v' } };
  const patch = createMergePatch(original, modified);
  assert.deepEqual(patch, { a: 2, b: { d: null, e: { g: 2 } }, list: [1, 2, 3], gone: null, added: { z: true } });
  // Applying it with the server's own merge-patch code gives the modified document.
  assert.deepEqual(applyMergePatch(structuredClone(original), patch), modified);
});

test('createMergePatch: nothing changed is an empty patch; type changes replace', () => {
  assert.deepEqual(createMergePatch({ a: { b: [1] } }, { a: { b: [1] } }), {});
  assert.deepEqual(createMergePatch({ a: { b: 1 } }, { a: 'text' }), { a: 'text' });
  assert.deepEqual(createMergePatch({ a: 'text' }, { a: { b: 1 } }), { a: { b: 1 } });
});

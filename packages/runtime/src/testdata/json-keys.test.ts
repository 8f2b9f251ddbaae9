/**
 * The repeated-key check the log tests rely on: it must see what JSON.parse
 * silently drops, at any depth, and nothing that only looks like a key.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { repeatedKeys } from './json-keys.js';

test('finds the keys an object repeats, at any depth, which JSON.parse keeps quiet about', () => {
  const line = '{"level":30,"component":"webhook","component":"webhook-server","err":{"code":1,"code":2},"items":[{"a":1,"a":2}],"msg":"m"}';
  assert.doesNotThrow(() => JSON.parse(line));
  assert.deepEqual(repeatedKeys(line), ['component', 'err.code', 'items[].a']);
});

test('the same key in sibling objects, and keys inside strings, are not repeats', () => {
  assert.deepEqual(repeatedKeys('{"a":{"name":"x"},"b":{"name":"y"},"c":[{"k":1},{"k":2}]}'), []);
  assert.deepEqual(repeatedKeys('{"msg":"\\"msg\\":1, {\\"msg\\"","text":"a,\\"msg\\":b"}'), []);
  assert.deepEqual(repeatedKeys('[1,"two",{"three":3},null]'), []);
});

test('refuses what is not JSON', () => {
  assert.throws(() => repeatedKeys('{"a":'), SyntaxError);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { containsNonFinite, firstNonFiniteLiteral, goJsonSyntaxError, jsonDepthExceeds } from './go-json.js';

const check = (text: string | Buffer, maxDepth?: number): string | undefined =>
  goJsonSyntaxError(Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8'), maxDepth);

test('valid JSON has no error', () => {
  for (const text of ['{}', '[]', ' {"a": [1, -2.5e+3, true, false, null, "x\\u00e9\\n"]} ', '0', '"s"', '-0.0E-1', '[[],[{}]]']) {
    assert.equal(check(text), undefined, text);
  }
});

test("errors carry Go's encoding/json wording", () => {
  const cases: Array<[string, string]> = [
    ['', 'unexpected end of JSON input'],
    ['{', 'unexpected end of JSON input'],
    ['{"a":1', 'unexpected end of JSON input'],
    ['{]', "invalid character ']' looking for beginning of object key string"],
    ['{"a":}', "invalid character '}' looking for beginning of value"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b"}', 'invalid character \'"\' after object key:value pair'],
    ['[1 2]', "invalid character '2' after array element"],
    ['{} x', "invalid character 'x' after top-level value"],
    ['imastring!', "invalid character 'i' looking for beginning of value"],
    // At the end, Go's scanner steps one space more: a cut literal fails on it.
    ['nul', "invalid character ' ' in literal null (expecting 'l')"],
    ['nope', "invalid character 'o' in literal null (expecting 'u')"],
    ['tru3', "invalid character '3' in literal true (expecting 'e')"],
    ['falsy', "invalid character 'y' in literal false (expecting 'e')"],
    ['-x', "invalid character 'x' in numeric literal"],
    ['1.', "invalid character ' ' after decimal point in numeric literal"],
    ['1.e3', "invalid character 'e' after decimal point in numeric literal"],
    ['1e+', "invalid character ' ' in exponent of numeric literal"],
    ['01', "invalid character '1' after top-level value"],
    ['"a\nb"', "invalid character '\\n' in string literal"],
    ['"\\x"', "invalid character 'x' in string escape code"],
    ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
    ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
    ['[\t\u0001]', "invalid character '\\x01' looking for beginning of value"],
  ];
  for (const [text, want] of cases) assert.equal(check(text), want, JSON.stringify(text));
});

test('bytes outside ASCII are named as Go quotes them', () => {
  assert.equal(check(Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d])), "invalid character 'ï' looking for beginning of value");
  assert.equal(check(Buffer.from([0x80])), "invalid character '\\u0080' looking for beginning of value");
  // Invalid UTF-8 inside a string is fine for Go (it becomes U+FFFD).
  assert.equal(check(Buffer.from([0x22, 0xff, 0xfe, 0x22])), undefined);
});

test('nesting deeper than the limit', () => {
  assert.equal(check('[[[1]]]', 3), undefined);
  assert.equal(check('[[[[1]]]]', 3), "invalid character '[' exceeded max depth");
  assert.equal(check(`${'['.repeat(10001)}${']'.repeat(10001)}`), "invalid character '[' exceeded max depth");
  assert.equal(jsonDepthExceeds({ a: [{}] }, 3), false);
  assert.equal(jsonDepthExceeds({ a: [{ b: {} }] }, 3), true);
});

test('numbers out of float64 range', () => {
  const text = '{"s":"1e400","n":[1,-1e400]}';
  assert.equal(containsNonFinite(JSON.parse(text)), true);
  assert.equal(firstNonFiniteLiteral(text), '-1e400');
  assert.equal(containsNonFinite({ a: [1, 2.5] }), false);
});

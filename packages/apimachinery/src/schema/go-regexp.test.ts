/**
 * Go regular expressions run in linear time, with Go's syntax and errors
 * (issue 14): a pattern that makes a backtracking engine take years answers
 * at once, and what Go rejects is rejected with Go's message.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { compileGoRegexp, type GoRegexp } from './go-regexp.js';
import { re2Find, re2FindAll, re2Matches } from '../cel/regex.js';

const compiled = (p: string): GoRegexp => {
  const re = compileGoRegexp(p);
  assert.notEqual(typeof re, 'string', String(re));
  return re as GoRegexp;
};

it('^(a+)+$ on 31 a\'s and a b (23 s and doubling per character with JavaScript\'s RegExp) answers at once', () => {
  const re = compiled('^(a+)+$');
  const started = performance.now();
  for (const n of [31, 1000, 20_000]) assert.equal(re.test(`${'a'.repeat(n)}b`), false);
  // Linear time: 20k characters in well under a second even on a loaded machine (a backtracking engine would never finish).
  assert.ok(performance.now() - started < 5000, `took ${performance.now() - started} ms`);
  assert.equal(re.test('aaaa'), true);
});

it('Go\'s syntax errors, word for word', () => {
  assert.equal(compileGoRegexp('(a)\\1'), 'error parsing regexp: invalid escape sequence: `\\1`');
  assert.equal(compileGoRegexp('(?=a)b'), 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`');
  assert.equal(compileGoRegexp('a**'), 'error parsing regexp: invalid nested repetition operator: `**`');
  assert.equal(compileGoRegexp('[z-a]'), 'error parsing regexp: invalid character class range: `z-a`');
  assert.equal(compileGoRegexp('(abc'), 'error parsing regexp: missing closing ): `(abc`');
});

it('Go\'s semantics: unanchored search, leftmost-first, POSIX classes, Unicode classes, flags', () => {
  assert.equal(compiled('b+').test('abbbc'), true);
  assert.equal(compiled('a|ab').find('ab'), 'a');
  assert.equal(compiled('^[[:alpha:]]+$').test('Zebra'), true);
  assert.equal(compiled('^\\p{Greek}+$').test('αβγ'), true);
  assert.equal(compiled('(?i)hello').test('HELLO'), true);
  assert.equal(compiled('x{2}').test('x{2}'), false);
});

it('CEL matches, find and findAll use the same engine', () => {
  assert.equal(re2Matches('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab', '^(a+)+$'), false);
  assert.equal(re2Find('abc123def456', '[0-9]+'), '123');
  assert.equal(re2Find('abc', '[0-9]+'), '');
  assert.deepEqual(re2FindAll('a1b22c333', '[0-9]+', -1), ['1', '22', '333']);
  assert.deepEqual(re2FindAll('a1b22c333', '[0-9]+', 2), ['1', '22']);
  // Go's FindAllString skips an empty match right after a match: "a*" on "baaac" gives ["", "aaa", ""].
  assert.deepEqual(re2FindAll('baaac', 'a*', -1), ['', 'aaa', '']);
});

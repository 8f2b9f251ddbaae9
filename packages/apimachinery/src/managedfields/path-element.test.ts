import assert from 'node:assert/strict';
import { it } from 'node:test';
import { compareStrings } from './path-element.js';

/** Go's strings.Compare is a comparison of UTF-8 bytes. */
const goCompare = (a: string, b: string): number => Math.sign(Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));

it('compareStrings orders as Go does (UTF-8 bytes), surrogate pairs against units above them included', () => {
  // Units from each range where UTF-16 and UTF-8 orders could part: ASCII, BMP below and above the surrogates, astral.
  const alphabet = ['a', 'b', 'z', 'é', '中', '\ud7ff', '\ue000', '\uffee', '😀', '𝄞', '\u{10ffff}'];
  let seed = 7;
  const random = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
  const word = (): string => Array.from({ length: random(4) }, () => alphabet[random(alphabet.length)]).join('');
  for (let i = 0; i < 5000; i++) {
    const a = word();
    const b = random(3) === 0 ? a + word() : word();
    assert.equal(compareStrings(a, b), goCompare(a, b), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
    assert.equal(compareStrings(b, a), goCompare(b, a), `${JSON.stringify(b)} vs ${JSON.stringify(a)}`);
  }
  // The case UTF-16 code units get wrong: U+FFEE is a higher unit than a surrogate, but a lower code point.
  assert.equal(compareStrings('\uffee', '😀'), -1);
});

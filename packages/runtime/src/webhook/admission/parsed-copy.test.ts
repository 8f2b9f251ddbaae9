/**
 * The defaulter's copy of a parsed request object must be exactly what
 * apimachinery's deepCopy gives, share nothing with the original, and keep a
 * `__proto__` key as data; anything JSON would change is copied by JSON's rules.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { deepCopy } from '@operant/apimachinery';
import { Prng } from '@operant/testing';
import { copyParsedJson } from './parsed-copy.js';

function value(prng: Prng, depth: number): unknown {
  const r = prng.next();
  if (depth > 3 || r < 0.35) return [null, true, false, 0, -1.5, 'text', '', 1e21][Math.floor(prng.next() * 8)];
  if (r < 0.6) return Array.from({ length: Math.floor(prng.next() * 4) }, () => value(prng, depth + 1));
  const obj: Record<string, unknown> = {};
  for (let i = Math.floor(prng.next() * 30); i > 0; i--) obj[`k${Math.floor(prng.next() * 40)}`] = value(prng, depth + 1);
  return obj;
}

describe('copyParsedJson', () => {
  test('gives what deepCopy gives for parsed JSON, sharing nothing', () => {
    for (let seed = 1; seed <= 500; seed++) {
      const parsed = JSON.parse(JSON.stringify({ spec: value(new Prng(seed), 0) })) as { spec: unknown };
      const copy = copyParsedJson(parsed);
      assert.deepEqual(copy, deepCopy(parsed), `seed ${seed}`);
      assert.equal(JSON.stringify(copy), JSON.stringify(parsed), `seed ${seed}: same key order`);
      const walk = (a: unknown, b: unknown): void => {
        if (typeof a !== 'object' || a === null) return;
        assert.notEqual(a, b, `seed ${seed}: a container is shared`);
        for (const key of Object.keys(a)) walk((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]);
      };
      walk(parsed, copy);
    }
  });

  test('a __proto__ key stays data', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "x": {"__proto__": [1]}}') as Record<string, unknown>;
    const copy = copyParsedJson(parsed);
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
    assert.deepEqual(Object.keys(copy), ['__proto__', 'x']);
    assert.deepEqual(copy, deepCopy(parsed));
    assert.equal(({} as { polluted?: boolean }).polluted, undefined);
  });

  test("values JSON changes are copied by JSON's rules, as deepCopy copies them", () => {
    const when = new Date('2024-01-01T00:00:00.000Z');
    const odd = { keep: { a: 1 }, u: undefined, d: when, n: NaN, arr: [1, undefined, Infinity], nested: { when, list: [when] } };
    assert.deepEqual(copyParsedJson(odd), deepCopy(odd));
    assert.deepEqual(copyParsedJson(odd), JSON.parse(JSON.stringify(odd)));
  });
});

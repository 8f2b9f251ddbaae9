/**
 * `patched` serializes its patch without copying values first: the text must be
 * exactly what serializing fast-json-patch's `compare` gives, for every pair.
 * Checked on hand-picked edge cases and on seeded random edits of random JSON.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fastJsonPatch from 'fast-json-patch';
import { Prng } from '@operant/testing';
import { jsonPatchText } from './patch-text.js';

const expected = (a: object, b: object): string | undefined => {
  const ops = fastJsonPatch.compare(a, b);
  return ops.length === 0 ? undefined : JSON.stringify(ops);
};

/** A seeded generator (the chaos schedules' mulberry32), so that a failure can be replayed. */
function random(seed: number): () => number {
  const prng = new Prng(seed);
  return () => prng.next();
}

const keys = ['a', 'b', 'c', 'x/y', 'm~n', 'spec', '0', '1'];

function value(rnd: () => number, depth: number): unknown {
  const r = rnd();
  if (depth > 3 || r < 0.35) return [null, true, false, 0, 1.5, 'text', '', -7][Math.floor(rnd() * 8)];
  if (r < 0.6) return Array.from({ length: Math.floor(rnd() * 4) }, () => value(rnd, depth + 1));
  const obj: Record<string, unknown> = {};
  for (let i = Math.floor(rnd() * 5); i > 0; i--) obj[keys[Math.floor(rnd() * keys.length)]!] = value(rnd, depth + 1);
  return obj;
}

/** A copy of `v` with random edits: values replaced, keys added, removed, set to undefined, arrays grown or cut. */
function edit(rnd: () => number, v: unknown, depth: number): unknown {
  if (typeof v !== 'object' || v === null) return rnd() < 0.2 ? value(rnd, depth) : v;
  if (rnd() < 0.05) return value(rnd, depth);
  if (Array.isArray(v)) {
    const out = v.map((x) => edit(rnd, x, depth + 1));
    if (rnd() < 0.2) out.push(value(rnd, depth + 1));
    if (rnd() < 0.2) out.length = Math.floor(rnd() * out.length);
    if (rnd() < 0.05 && out.length) out[0] = undefined;
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const r = rnd();
    if (r < 0.1) continue;
    out[k] = r < 0.15 ? undefined : edit(rnd, x, depth + 1);
  }
  if (rnd() < 0.3) out[keys[Math.floor(rnd() * keys.length)]!] = value(rnd, depth + 1);
  return out;
}

describe('jsonPatchText', () => {
  test('edge cases read as compare serializes them', () => {
    const d = new Date(0);
    const cases: Array<[object, object]> = [
      [{}, {}],
      [{ a: 1 }, { a: 2 }],
      [{ a: 1, b: 2 }, { b: 2 }],
      [{ a: 1 }, { a: 1, 'x/y': { 'm~n': [1, { z: undefined }] } }],
      [{ a: 1 }, { a: undefined }],
      [{ a: [1, 2, 3] }, { a: [1, undefined, 3] }],
      [{ a: [1, 2, 3] }, { a: [1] }],
      [{ a: { b: 1 } }, { a: [1] }],
      [[1, 2], { 0: 1 }],
      [{ a: 'x' }, { a: d }],
      [{ a: { b: 1 } }, { a: d }],
      [{ when: { t: 1 } }, { when: { toJSON: () => ({ t: 2 }) } }],
    ];
    for (const [a, b] of cases) assert.equal(jsonPatchText(a, b), expected(a, b), JSON.stringify([a, b]));
  });

  test('random edits of random objects', () => {
    for (let seed = 1; seed <= 3000; seed++) {
      const rnd = random(seed);
      const a = { spec: value(rnd, 0), metadata: { name: 'x', labels: { a: 'b' } } };
      const b = edit(rnd, structuredClone(a), 0) as object;
      if (typeof b !== 'object' || b === null) continue;
      assert.equal(jsonPatchText(a, b), expected(a, b), `seed ${seed}`);
    }
  });
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@operant/apimachinery';
import { MvccStore } from './mvcc-store.js';
import { SortedKeys } from './sorted-keys.js';

/** mulberry32: a small seeded generator with good low bits. */
function seeded(seed: number): (n: number) => number {
  return (n) => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

test('SortedKeys keeps order through adds and deletes across chunk splits', () => {
  const rand = seeded(7);
  const keys = new SortedKeys();
  const model = new Set<string>();
  for (let op = 0; op < 20_000; op++) {
    const k = `k${rand(5000)}`;
    if (model.has(k)) {
      keys.delete(k);
      model.delete(k);
    } else {
      keys.add(k);
      model.add(k);
    }
  }
  const sorted = [...model].sort();
  assert.deepEqual([...keys.from(keys.seek(''))], sorted);
  for (const probe of ['k1', 'k2500', 'k4999', 'k', 'z']) {
    const expected = sorted.filter((k) => k > probe);
    const at = keys.seek(probe, true);
    assert.deepEqual([...keys.from(at)], expected, probe);
    assert.equal(keys.countFrom(at), expected.length, probe);
  }
});

test('range reads every retained revision as the state it had, from any key, and counts what follows', () => {
  const rand = seeded(11);
  const store = new MvccStore({ historyCapacity: 400 });
  /** The state after each revision, by key: what the range must read. */
  const states = new Map<number, Map<string, string>>();
  let state = new Map<string, string>();
  const obj = (name: string, n: number): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'a' }, data: { n: String(n) } });
  for (let op = 0; op < 3000; op++) {
    // Keys in two namespaces of one bucket (the range's prefix is one of them) and another bucket.
    const ns = ['a', 'b'][rand(2)];
    const key = rand(10) === 0 ? `/core/secrets/a/s${rand(50)}` : `/core/configmaps/${ns}/c${String(rand(300)).padStart(3, '0')}`;
    const name = key.slice(key.lastIndexOf('/') + 1);
    const cur = store.get(key);
    if (!cur) store.create(key, obj(name, op));
    else if (rand(3) === 0) store.delete(key);
    else store.update(key, cur.rev, obj(name, op));
    state = new Map(state);
    const now = store.get(key);
    if (now) state.set(key, JSON.stringify(now.value));
    else state.delete(key);
    states.set(store.revision, state);

    if (op % 25 !== 24) continue;
    // A retained revision (or now), a prefix, and a key to start after.
    const revs = [...states.keys()].filter((r) => r >= store.oldestRevision);
    const at = rand(4) === 0 ? undefined : revs[rand(revs.length)];
    const prefix = rand(2) ? '/core/configmaps/a/' : '/core/configmaps/';
    const expected = [...(states.get(at ?? store.revision) ?? new Map())].filter(([k]) => k.startsWith(prefix)).sort(([x], [y]) => (x < y ? -1 : 1));
    const after = rand(3) === 0 ? undefined : expected.length && rand(2) ? expected[rand(expected.length)][0] : `/core/configmaps/a/c${String(rand(300)).padStart(3, '0')}`;
    const tail = after === undefined ? expected : expected.filter(([k]) => k > after);
    const range = store.range(prefix, at, after);
    const got = [...range.items()];
    assert.deepEqual(
      got.map((v) => [v.key, JSON.stringify(v.value)]),
      tail,
      `op ${op}, at ${at}, after ${after}`,
    );
    for (const v of got) assert.equal(v.rev, Number(v.value.metadata.resourceVersion));
    for (let j = 0; j < tail.length; j++) assert.equal(range.countAfter(tail[j][0]), tail.length - j - 1);
    if (after !== undefined) assert.equal(range.countAfter(after), tail.length);
    assert.deepEqual(store.list(prefix, at).items.map((v) => v.key), expected.map(([k]) => k));
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldValue } from '@operant/apimachinery';
import { pathTree, scanOwnershipMeta, scanPaths } from './metadata-scan.js';

/** What parsing the whole text gives for the scanned fields. */
function parsed(json: string): Record<string, unknown> {
  const meta = (JSON.parse(json) as { metadata?: Record<string, unknown> }).metadata ?? {};
  const out: Record<string, unknown> = {};
  for (const k of ['uid', 'ownerReferences', 'finalizers', 'deletionTimestamp']) if (meta[k] !== undefined) out[k] = meta[k];
  return out;
}

const owner = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: 'rs-uid', controller: true, blockOwnerDeletion: true };

test('reads the top-level metadata fields, never a look-alike elsewhere', () => {
  const objects: unknown[] = [
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', uid: 'u1', ownerReferences: [owner], finalizers: ['a/b'], deletionTimestamp: '2026-01-01T00:00:00Z' } },
    // Look-alikes before the real fields: in a string value, in managedFields, in a nested object, in spec.
    {
      kind: 'Deployment',
      spec: { template: { metadata: { uid: 'not-me', finalizers: ['nope'], ownerReferences: [{ uid: 'no' }], deletionTimestamp: 'x' } } },
      metadata: {
        annotations: { '"uid":"fake"': '"finalizers":["fake"]', x: '\\"uid\\":' },
        managedFields: [{ manager: 'm', fieldsV1: { 'f:metadata': { 'f:finalizers': {}, 'k:{"uid":"q"}': {} } }, uid: 'managed' }],
        labels: { uid: 'label' },
        uid: 'real',
      },
    },
    // A Namespace's spec.finalizers is not metadata.finalizers.
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns', uid: 'n1' }, spec: { finalizers: ['kubernetes'] } },
    // Escapes in the values themselves, a backslash just before a closing quote, non-ASCII.
    { metadata: { name: 'a\\', uid: 'é"\\u0000\u2028😀\\', finalizers: ['x\\', '"'] } },
    { metadata: {} },
    { kind: 'NoMetadata', spec: { metadata: { uid: 'deep' } } },
    {},
    { metadata: { uid: 'u', deletionTimestamp: null, finalizers: [], ownerReferences: [] }, n: [1, -2.5e30, true, false, null, { a: [[]] }] },
    { n: 0, b: true, z: null, metadata: { generation: 3, uid: 'after-numbers' } },
  ];
  for (const o of objects) {
    const json = JSON.stringify(o);
    assert.deepEqual(scanOwnershipMeta(json), parsed(json), json);
  }
});

test('a text laid out otherwise (whitespace between tokens) is parsed whole, with the same answer', () => {
  const json = JSON.stringify({ spec: { uid: 'no' }, metadata: { uid: 'u', finalizers: ['f'] } }, null, 2);
  assert.deepEqual(scanOwnershipMeta(json), { uid: 'u', finalizers: ['f'] });
});

test('random objects: the scan agrees with parsing', () => {
  let seed = 42;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const keys = ['uid', 'finalizers', 'ownerReferences', 'deletionTimestamp', 'metadata', 'name', 'f:uid', '"', '\\', '{', '}', '[', ']', ',', ':'];
  const str = (): string => Array.from({ length: rand(6) }, () => keys[rand(keys.length)]).join(rand(2) ? '' : '\\"');
  const value = (depth: number): unknown => {
    switch (depth > 3 ? rand(4) : rand(7)) {
      case 0:
        return str();
      case 1:
        return rand(1000) - 500;
      case 2:
        return [true, false, null][rand(3)];
      case 3:
        return rand(1e6) / 7;
      case 4:
        return Array.from({ length: rand(4) }, () => value(depth + 1));
      default: {
        const o: Record<string, unknown> = {};
        for (let i = rand(5); i > 0; i--) o[rand(3) ? keys[rand(keys.length)] : str()] = value(depth + 1);
        return o;
      }
    }
  };
  const paths = ['metadata.labels', 'metadata.name', 'metadata.uid', 'spec.uid', 'spec.name.uid', 'name', 'finalizers.metadata'];
  const tree = pathTree(paths);
  for (let i = 0; i < 3000; i++) {
    const o = value(0) as Record<string, unknown>;
    const root = typeof o === 'object' && o !== null && !Array.isArray(o) ? o : { other: o };
    if (rand(4)) root.metadata = value(1);
    if (rand(2)) root.spec = value(1);
    const json = JSON.stringify(root);
    assert.deepEqual(scanOwnershipMeta(json), parsed(json), json);
    // What a selector reads of the scanned fields is what it reads of the parsed object.
    const whole = JSON.parse(json) as Record<string, unknown>;
    const partial = scanPaths(json, tree)!;
    for (const path of [...paths, 'metadata.labels.uid', 'metadata.name.x']) assert.equal(fieldValue(partial, path), fieldValue(whole, path), `${path} of ${json}`);
    const labels = (whole.metadata as { labels?: unknown } | undefined)?.labels;
    assert.deepEqual((partial.metadata as { labels?: unknown } | undefined)?.labels, labels, json);
    // One path only: the scan stops once it has it.
    for (const path of ['metadata.labels', 'metadata.name', 'spec.uid']) assert.deepEqual(fieldValue(scanPaths(json, pathTree([path]))!, path), fieldValue(whole, path), `${path} of ${json}`);
    const onlyLabels = scanPaths(json, pathTree(['metadata.labels']))!.metadata as { labels?: unknown } | undefined;
    assert.deepEqual(onlyLabels?.labels, labels, json);
  }
});

test('pathTree: a value taken whole also holds the paths under it', () => {
  assert.deepEqual(pathTree(['a', 'a.b.c', 'd.e', 'd.f']), new Map<string, unknown>([['"a"', true], ['"d"', new Map([['"e"', true], ['"f"', true]])]]));
  assert.deepEqual(scanPaths('{"a":{"b":1},"d":{"e":"x","g":[1]},"z":2}', pathTree(['a', 'd.e'])), { a: { b: 1 }, d: { e: 'x' } });
  assert.equal(scanPaths('{ "a": 1 }', pathTree(['a'])), undefined);
  // Stopped once it has what it wants: the rest is not read.
  assert.deepEqual(scanPaths('{"m":{"l":{"x":"1"},"n":"a"},"spec":{"b":[1,2', pathTree(['m.l'])), { m: { l: { x: '1' } } });
  assert.equal(scanPaths('{"m":{"l":{"x":"1"},"n":"a"},"spec":{"b":[1,2', pathTree(['m.l', 'spec.c'])), undefined);
});

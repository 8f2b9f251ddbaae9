import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { computeHash, fnv32a, safeEncodeString } from './hash.js';

describe('pod-template-hash', () => {
  it('FNV-1a 32 matches the reference vectors', () => {
    assert.equal(fnv32a(Buffer.from('')), 0x811c9dc5);
    assert.equal(fnv32a(Buffer.from('a')), 0xe40c292c);
    assert.equal(fnv32a(Buffer.from('foobar')), 0xbf9cf968);
    // Continuing a hash is hashing the concatenation.
    assert.equal(fnv32a(Buffer.from('bar'), fnv32a(Buffer.from('foo'))), 0xbf9cf968);
  });

  it("encodes digits with kube's SafeEncodeString alphabet", () => {
    assert.equal(safeEncodeString('0123456789'), '456789bcdf');
    assert.equal(safeEncodeString('3718868910'), '7c5ddbdf54');
  });

  it('is stable across key order, moves with the template and with collisionCount', () => {
    const a = { metadata: { labels: { app: 'web', tier: 'front' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } };
    const b = { spec: { containers: [{ image: 'nginx', name: 'nginx' }] }, metadata: { labels: { tier: 'front', app: 'web' } } };
    const hash = computeHash(a);
    assert.match(hash, /^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
    assert.equal(computeHash(b), hash);
    assert.notEqual(computeHash({ ...a, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } }), hash);
    const collided = computeHash(a, 1);
    assert.notEqual(collided, hash);
    assert.notEqual(computeHash(a, 2), collided);
    // collisionCount 0 is hashed too (kube hashes it whenever the pointer is set).
    assert.notEqual(computeHash(a, 0), hash);
  });
});

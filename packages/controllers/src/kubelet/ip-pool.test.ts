import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { IpPool } from './ip-pool.js';

describe('IpPool', () => {
  test('hands out the lowest free address from .2, also one freed below the last handed out', () => {
    const pool = new IpPool('10.244.1.');
    assert.deepEqual(['a', 'b', 'c', 'd'].map((k) => pool.ensure(k, undefined)), ['10.244.1.2', '10.244.1.3', '10.244.1.4', '10.244.1.5']);
    assert.equal(pool.ensure('b', undefined), '10.244.1.3', 'a pod keeps its address');
    pool.release('c');
    pool.release('b');
    assert.equal(pool.ensure('e', undefined), '10.244.1.3');
    assert.equal(pool.ensure('f', undefined), '10.244.1.4');
    assert.equal(pool.ensure('g', undefined), '10.244.1.6');
  });

  test('an address taken back from a pod status is not handed out again', () => {
    const pool = new IpPool('10.244.1.');
    assert.equal(pool.ensure('old', '10.244.1.2'), '10.244.1.2');
    assert.equal(pool.ensure('new', undefined), '10.244.1.3');
    pool.release('old');
    assert.equal(pool.ensure('newer', undefined), '10.244.1.2');
  });

  test('adopt takes back an address a pod status records, ahead of its sync; one from elsewhere is ignored', () => {
    const pool = new IpPool('10.244.1.');
    pool.adopt('old', '10.244.1.2');
    pool.adopt('host-network', '172.18.0.2');
    assert.equal(pool.ensure('new', undefined), '10.244.1.3');
    assert.equal(pool.ensure('old', '10.244.1.2'), '10.244.1.2', 'its sync keeps it');
    pool.adopt('old', '10.244.1.9');
    assert.equal(pool.ensure('old', undefined), '10.244.1.2', 'a key that holds one keeps it');
    assert.equal(pool.ensure('host-network', undefined), '10.244.1.4');
  });

  test('an address held by one pod is neither adopted nor kept by another: that one is given a new address', () => {
    const pool = new IpPool('10.244.1.');
    assert.equal(pool.adopt('first', '10.244.1.2'), true);
    assert.equal(pool.adopt('second', '10.244.1.2'), false, 'a duplicate recorded in a status is refused');
    assert.equal(pool.adopt('first', '10.244.1.2'), true, 'its holder adopting it again is no change');
    assert.equal(pool.ensure('first', '10.244.1.2'), '10.244.1.2', 'the holder keeps it');
    assert.equal(pool.ensure('second', '10.244.1.2'), '10.244.1.3', 'the other pod gets a new one');
    assert.equal(pool.ensure('third', '10.244.1.3'), '10.244.1.4', 'also when its status records one handed out since');
    pool.release('second');
    assert.equal(pool.ensure('fourth', undefined), '10.244.1.3', "the refused pod's release frees only its own");
    assert.equal(pool.ensure('fifth', undefined), '10.244.1.5', "the holder's address stays held");
  });

  test('a pod whose status records an address from elsewhere keeps the one it holds', () => {
    const pool = new IpPool('10.244.1.');
    assert.equal(pool.ensure('a', undefined), '10.244.1.2');
    assert.equal(pool.ensure('a', '172.18.0.9'), '10.244.1.2');
    assert.equal(pool.ensure('b', undefined), '10.244.1.3', 'nothing was leaked');
  });

  test('a full /24 says so', () => {
    const pool = new IpPool('10.244.1.');
    for (let i = 2; i < 255; i++) pool.ensure(`p${i}`, undefined);
    assert.throws(() => pool.ensure('one-more', undefined), /no pod IP left in 10\.244\.1\.0\/24/);
  });
});

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PriorityFifo } from './priority-fifo.js';

function popAll<K>(fifo: PriorityFifo<K>): K[] {
  const out: K[] = [];
  for (let key = fifo.pop(); key !== undefined; key = fifo.pop()) out.push(key);
  return out;
}

describe('PriorityFifo', () => {
  test('raised keys leave stale entries behind that are skipped, and emptied priorities disappear', () => {
    const fifo = new PriorityFifo<string>();
    fifo.push('a', 0);
    fifo.push('b', 0);
    fifo.push('a', 5);
    fifo.push('b', 5);
    assert.equal(fifo.size, 2);
    assert.deepEqual(popAll(fifo), ['a', 'b']);
    fifo.push('c', 0);
    assert.deepEqual(popAll(fifo), ['c']);
  });

  test('stays FIFO across compaction of a long line', () => {
    const fifo = new PriorityFifo<number>();
    const n = 5000;
    for (let i = 0; i < n; i++) fifo.push(i, 0);
    const out: number[] = [];
    for (let i = 0; i < n / 2; i++) out.push(fifo.pop()!);
    for (let i = n; i < n + 100; i++) fifo.push(i, 0);
    out.push(...popAll(fifo));
    assert.deepEqual(out, Array.from({ length: n + 100 }, (_, i) => i));
  });
});

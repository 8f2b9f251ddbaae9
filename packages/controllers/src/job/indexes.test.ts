import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatIndexes, parseIndexes } from './indexes.js';

describe('completed indexes', () => {
  it('formats ranges as kube does', () => {
    assert.equal(formatIndexes([7, 1, 3, 4, 5]), '1,3-5,7');
    // orderedIntervals.String writes a run of two as two.
    assert.equal(formatIndexes([0, 1]), '0,1');
    assert.equal(formatIndexes([0, 1, 2, 5, 6]), '0-2,5,6');
    assert.equal(formatIndexes([]), '');
  });

  it('parses them back, dropping what is out of range or unreadable', () => {
    assert.deepEqual([...parseIndexes('1,3-5,7', 6)].sort(), [1, 3, 4, 5]);
    assert.deepEqual([...parseIndexes('x,2', 6)], [2]);
    assert.deepEqual([...parseIndexes(undefined, 6)], []);
  });
});

import assert from 'node:assert/strict';
import { it } from 'node:test';
import { milliValue } from './quantity.js';

it('reads quantities in thousandths, rounding up', () => {
  assert.equal(milliValue('100m'), 100);
  assert.equal(milliValue('0.1'), 100);
  assert.equal(milliValue('2'), 2000);
  assert.equal(milliValue(3), 3000);
  assert.equal(milliValue('1Ki'), 1024_000);
  assert.equal(milliValue('256Mi'), 256 * 2 ** 20 * 1000);
  assert.equal(milliValue('1G'), 1e12);
  assert.equal(milliValue('1e3'), 1e6);
  assert.equal(milliValue('1.5Gi'), 1.5 * 2 ** 30 * 1000);
  assert.equal(milliValue('1n'), 1);
  assert.equal(milliValue('abc'), undefined);
  assert.equal(milliValue(undefined), undefined);
});

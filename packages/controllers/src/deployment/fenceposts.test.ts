import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveFenceposts, valueFromIntOrPercent } from './fenceposts.js';

describe('maxSurge and maxUnavailable', () => {
  it('percentages round up for surge and down for unavailability', () => {
    assert.deepEqual(resolveFenceposts('25%', '25%', 3), { surge: 1, unavailable: 0 });
    assert.deepEqual(resolveFenceposts('25%', '25%', 10), { surge: 3, unavailable: 2 });
    assert.deepEqual(resolveFenceposts('39%', '39%', 10), { surge: 4, unavailable: 3 });
    assert.deepEqual(resolveFenceposts('50%', '50%', 5), { surge: 3, unavailable: 2 });
    assert.deepEqual(resolveFenceposts(2, 1, 10), { surge: 2, unavailable: 1 });
    assert.deepEqual(resolveFenceposts('100%', 0, 4), { surge: 4, unavailable: 0 });
  });

  it('when both come to zero, one pod may be unavailable', () => {
    assert.deepEqual(resolveFenceposts('0%', '0%', 0), { surge: 0, unavailable: 1 });
    assert.deepEqual(resolveFenceposts(0, '1%', 10), { surge: 0, unavailable: 1 });
    assert.deepEqual(resolveFenceposts(undefined, undefined, 3), { surge: 0, unavailable: 1 });
  });

  it('a string that is no percentage is an error, as in kube', () => {
    assert.throws(() => valueFromIntOrPercent('3', 10, true), /string is not a percentage/);
    assert.throws(() => valueFromIntOrPercent('x%', 10, true), /invalid value "x%"/);
  });
});

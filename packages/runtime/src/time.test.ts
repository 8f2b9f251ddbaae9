import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { microTime, rfc3339 } from './time.js';

describe('rfc3339', () => {
  test('formats in whole seconds, UTC, as metav1.Time', () => {
    assert.equal(rfc3339(new Date('2024-01-01T00:00:00.999Z')), '2024-01-01T00:00:00Z');
    assert.equal(rfc3339(new Date(Date.UTC(2024, 5, 30, 23, 59, 59))), '2024-06-30T23:59:59Z');
    assert.equal(rfc3339(Date.UTC(2024, 0, 1, 0, 0, 0, 999)), '2024-01-01T00:00:00Z');
  });
});

describe('microTime', () => {
  test('formats with six fractional digits, UTC, as metav1.MicroTime', () => {
    assert.equal(microTime(new Date('2025-01-01T00:00:00.123Z')), '2025-01-01T00:00:00.123000Z');
    assert.equal(microTime(Date.UTC(2025, 0, 1) + 0.5), '2025-01-01T00:00:00.000500Z');
    assert.equal(microTime(Date.UTC(2025, 0, 1) + 123.25), '2025-01-01T00:00:00.123250Z');
  });
});

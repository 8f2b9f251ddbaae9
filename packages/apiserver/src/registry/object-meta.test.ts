import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nowTimestamp } from './object-meta.js';

describe('nowTimestamp', () => {
  it('writes each instant at second precision, whichever second came before', () => {
    const at = (iso: string): string => nowTimestamp(new Date(iso));
    assert.equal(at('2026-01-02T03:04:05.678Z'), '2026-01-02T03:04:05Z');
    assert.equal(at('2026-01-02T03:04:05.999Z'), '2026-01-02T03:04:05Z');
    assert.equal(at('2026-01-02T03:04:06.000Z'), '2026-01-02T03:04:06Z');
    // A clock set back, and a time before 1970 (negative milliseconds round down to their second).
    assert.equal(at('2026-01-02T03:04:05.001Z'), '2026-01-02T03:04:05Z');
    assert.equal(at('1969-12-31T23:59:59.500Z'), '1969-12-31T23:59:59Z');
    assert.equal(at('1970-01-01T00:00:00.000Z'), '1970-01-01T00:00:00Z');
    assert.match(nowTimestamp(), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });
});

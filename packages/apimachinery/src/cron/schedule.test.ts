import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCronSchedule } from './schedule.js';

const at = (iso: string): number => Date.parse(iso);
const iso = (ms: number | undefined): string | undefined => (ms === undefined ? undefined : new Date(ms).toISOString());

describe('parseCronSchedule', () => {
  it('finds the next activation of the five-field forms', () => {
    assert.equal(iso(parseCronSchedule('*/5 * * * *').next(at('2024-05-01T10:02:00Z'))), '2024-05-01T10:05:00.000Z');
    assert.equal(iso(parseCronSchedule('*/5 * * * *').next(at('2024-05-01T10:05:00Z'))), '2024-05-01T10:10:00.000Z');
    assert.equal(iso(parseCronSchedule('30 2 * * mon-fri').next(at('2024-05-03T03:00:00Z'))), '2024-05-06T02:30:00.000Z');
    assert.equal(iso(parseCronSchedule('0 0 29 feb *').next(at('2024-03-01T00:00:00Z'))), '2028-02-29T00:00:00.000Z');
    assert.equal(iso(parseCronSchedule('@hourly').next(at('2024-05-01T10:00:00Z'))), '2024-05-01T11:00:00.000Z');
    assert.equal(iso(parseCronSchedule('5/20 * * * *').next(at('2024-05-01T10:26:00Z'))), '2024-05-01T10:45:00.000Z');
  });

  it('days of month and of week: either matches unless one is a star', () => {
    // The 1st (a Wednesday in May 2024) or any Friday.
    const s = parseCronSchedule('0 0 1 * fri');
    assert.equal(iso(s.next(at('2024-04-30T12:00:00Z'))), '2024-05-01T00:00:00.000Z');
    assert.equal(iso(s.next(at('2024-05-01T12:00:00Z'))), '2024-05-03T00:00:00.000Z');
  });

  it('reads the schedule in a time zone', () => {
    // 09:00 in New York is 13:00 UTC in summer.
    assert.equal(iso(parseCronSchedule('0 9 * * *').next(at('2024-07-01T00:00:00Z'), 'America/New_York')), '2024-07-01T13:00:00.000Z');
  });

  it('@every counts from the whole second', () => {
    assert.equal(iso(parseCronSchedule('@every 1m30s').next(at('2024-05-01T10:00:00.700Z'))), '2024-05-01T10:01:30.000Z');
  });

  it('refuses what robfig/cron refuses, in its words', () => {
    assert.throws(() => parseCronSchedule('* * *'), /^Error: expected exactly 5 fields, found 3: \[\* \* \*\]$/);
    assert.throws(() => parseCronSchedule('61 * * * *'), /end of range \(61\) above maximum \(59\): 61/);
    assert.throws(() => parseCronSchedule('x * * * *'), /failed to parse int from x/);
    assert.throws(() => parseCronSchedule('@fortnightly'), /unrecognized descriptor: @fortnightly/);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { humanDuration, parseTimestamp, shortHumanDuration, translateTimestampSince } from './duration.js';

const ms = 1;
const second = 1000 * ms;
const minute = 60 * second;
const hour = 60 * minute;
const day = 24 * hour;
const year = 365 * day;
/** Go's 1ns, in milliseconds. */
const ns = 1e-6;

describe('humanDuration (kube TestHumanDuration)', () => {
  const cases: Array<[number, string]> = [
    [second, '1s'],
    [70 * second, '70s'],
    [190 * second, '3m10s'],
    [70 * minute, '70m'],
    [47 * hour, '47h'],
    [49 * hour, '2d1h'],
    [(8 * 24 + 2) * hour, '8d'],
    [367 * day, '367d'],
    [(365 * 2 * 24 + 25) * hour, '2y1d'],
    [(365 * 8 * 24 + 2) * hour, '8y'],
  ];
  for (const [d, want] of cases) it(`${d}ms -> ${want}`, () => assert.equal(humanDuration(d), want));
});

describe('humanDuration (kube TestHumanDurationBoundaries)', () => {
  const cases: Array<[number, string]> = [
    [-2 * second, '<invalid>'],
    [-2 * second + ns, '0s'],
    [0, '0s'],
    [second - ms, '0s'],
    [2 * minute - ms, '119s'],
    [2 * minute, '2m'],
    [2 * minute + second, '2m1s'],
    [10 * minute - ms, '9m59s'],
    [10 * minute, '10m'],
    [10 * minute + second, '10m'],
    [3 * hour - ms, '179m'],
    [3 * hour, '3h'],
    [3 * hour + minute, '3h1m'],
    [8 * hour - ms, '7h59m'],
    [8 * hour, '8h'],
    [8 * hour + 59 * minute, '8h'],
    [2 * day - ms, '47h'],
    [2 * day, '2d'],
    [2 * day + hour, '2d1h'],
    [8 * day - ms, '7d23h'],
    [8 * day, '8d'],
    [8 * day + 23 * hour, '8d'],
    [2 * year - ms, '729d'],
    [2 * year, '2y'],
    [2 * year + 23 * hour, '2y'],
    [2 * year + 23 * hour + 59 * minute, '2y'],
    [2 * year + day - ms, '2y'],
    [2 * year + day, '2y1d'],
    [3 * year, '3y'],
    [4 * year, '4y'],
    [5 * year, '5y'],
    [6 * year, '6y'],
    [7 * year, '7y'],
    [8 * year - ms, '7y364d'],
    [8 * year, '8y'],
    [8 * year + 364 * day, '8y'],
    [9 * year, '9y'],
  ];
  for (const [d, want] of cases) it(`${d}ms -> ${want}`, () => assert.equal(humanDuration(d), want));
});

describe('shortHumanDuration (kube TestShortHumanDurationBoundaries)', () => {
  const cases: Array<[number, string]> = [
    [-2 * second, '<invalid>'],
    [-2 * second + ns, '0s'],
    [0, '0s'],
    [second - ms, '0s'],
    [second, '1s'],
    [2 * second - ms, '1s'],
    [minute - ms, '59s'],
    [minute, '1m'],
    [2 * minute - ms, '1m'],
    [hour - ms, '59m'],
    [hour, '1h'],
    [2 * hour - ms, '1h'],
    [day - ms, '23h'],
    [day, '1d'],
    [2 * day - ms, '1d'],
    [year - ms, '364d'],
    [year, '1y'],
    [2 * year - ms, '1y'],
    [2 * year, '2y'],
  ];
  for (const [d, want] of cases) it(`${d}ms -> ${want}`, () => assert.equal(shortHumanDuration(d), want));
});

describe('examples from the AGE column', () => {
  it('formats typical ages', () => {
    assert.equal(humanDuration(5 * second), '5s');
    assert.equal(humanDuration(4 * minute + 3 * second), '4m3s');
    assert.equal(humanDuration(3 * hour + 4 * minute), '3h4m');
    assert.equal(humanDuration(2 * day + 3 * hour), '2d3h');
    assert.equal(humanDuration(45 * day), '45d');
    assert.equal(humanDuration(2 * year + 100 * day), '2y100d');
  });
});

describe('timestamps', () => {
  it('parses Time and MicroTime, treating Go zero time and absence as unset', () => {
    assert.equal(parseTimestamp('2024-05-01T10:00:00Z'), Date.UTC(2024, 4, 1, 10));
    assert.equal(parseTimestamp('2024-05-01T10:00:00.123456Z'), Date.UTC(2024, 4, 1, 10, 0, 0, 123));
    assert.equal(parseTimestamp('0001-01-01T00:00:00Z'), undefined);
    assert.equal(parseTimestamp(undefined), undefined);
    assert.equal(parseTimestamp(''), undefined);
    assert.equal(parseTimestamp('yesterday'), undefined);
  });

  it('translates a timestamp to an age, <unknown> when unset', () => {
    const now = new Date('2024-05-01T10:04:03Z');
    assert.equal(translateTimestampSince('2024-05-01T10:00:00Z', now), '4m3s');
    assert.equal(translateTimestampSince(undefined, now), '<unknown>');
    assert.equal(translateTimestampSince('2024-05-01T10:05:00Z', now), '<invalid>');
  });
});

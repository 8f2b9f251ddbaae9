/**
 * parseDuration is Go's time.ParseDuration: these are Go's own tables
 * (src/time/time_test.go, parseDurationTests and parseDurationErrorTests),
 * compared in nanoseconds, and Go's error texts in full. Go's cases with
 * invalid UTF-8 (`"\xffff"`) have no JavaScript string and are left out.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { durationMs, parseDuration, parseDurationNanos } from './duration.js';

const ns = 1n;
const us = 1000n * ns;
const ms = 1000n * us;
const s = 1000n * ms;
const m = 60n * s;
const h = 60n * m;

const valid: Array<[string, bigint]> = [
  // simple
  ['0', 0n],
  ['5s', 5n * s],
  ['30s', 30n * s],
  ['1478s', 1478n * s],
  // sign
  ['-5s', -5n * s],
  ['+5s', 5n * s],
  ['-0', 0n],
  ['+0', 0n],
  // decimal
  ['5.0s', 5n * s],
  ['5.6s', 5n * s + 600n * ms],
  ['5.s', 5n * s],
  ['.5s', 500n * ms],
  ['1.0s', 1n * s],
  ['1.00s', 1n * s],
  ['1.004s', 1n * s + 4n * ms],
  ['1.0040s', 1n * s + 4n * ms],
  ['100.00100s', 100n * s + 1n * ms],
  // different units
  ['10ns', 10n * ns],
  ['11us', 11n * us],
  ['12\u00b5s', 12n * us], // U+00B5
  ['12\u03bcs', 12n * us], // U+03BC
  ['13ms', 13n * ms],
  ['14s', 14n * s],
  ['15m', 15n * m],
  ['16h', 16n * h],
  // composite durations
  ['3h30m', 3n * h + 30n * m],
  ['10.5s4m', 4n * m + 10n * s + 500n * ms],
  ['-2m3.4s', -(2n * m + 3n * s + 400n * ms)],
  ['1h2m3s4ms5us6ns', 1n * h + 2n * m + 3n * s + 4n * ms + 5n * us + 6n * ns],
  ['39h9m14.425s', 39n * h + 9n * m + 14n * s + 425n * ms],
  // large value
  ['52763797000ns', 52763797000n * ns],
  // more than 9 digits after decimal point, see https://golang.org/issue/6617
  ['0.3333333333333333333h', 20n * m],
  // 9007199254740993 = 1<<53+1 cannot be stored precisely in a float64
  ['9007199254740993ns', ((1n << 53n) + 1n) * ns],
  // largest duration that can be represented by int64 in nanoseconds
  ['9223372036854775807ns', ((1n << 63n) - 1n) * ns],
  ['9223372036854775.807us', ((1n << 63n) - 1n) * ns],
  ['9223372036s854ms775us807ns', ((1n << 63n) - 1n) * ns],
  ['-9223372036854775808ns', -(1n << 63n) * ns],
  ['-9223372036854775.808us', -(1n << 63n) * ns],
  ['-9223372036s854ms775us808ns', -(1n << 63n) * ns],
  // largest negative round trip value, see https://golang.org/issue/48629
  ['-2562047h47m16.854775808s', -(1n << 63n) * ns],
  // huge string; issue 15011.
  ['0.100000000000000000000h', 6n * m],
  // This value tests the first overflow check in leadingFraction.
  ['0.830103483285477580700h', 49n * m + 48n * s + 372539827n * ns],
];

const invalid: Array<[string, string]> = [
  ['', 'time: invalid duration ""'],
  ['3', 'time: missing unit in duration "3"'],
  ['-', 'time: invalid duration "-"'],
  ['s', 'time: invalid duration "s"'],
  ['.', 'time: invalid duration "."'],
  ['-.', 'time: invalid duration "-."'],
  ['.s', 'time: invalid duration ".s"'],
  ['+.s', 'time: invalid duration "+.s"'],
  ['1d', 'time: unknown unit "d" in duration "1d"'],
  ['\uFFFD', 'time: invalid duration "\\xef\\xbf\\xbd"'], // utf8.RuneError
  ['\uFFFD hello \uFFFD world', 'time: invalid duration "\\xef\\xbf\\xbd hello \\xef\\xbf\\xbd world"'],
  // overflow
  ['9223372036854775810ns', 'time: invalid duration "9223372036854775810ns"'],
  ['9223372036854775808ns', 'time: invalid duration "9223372036854775808ns"'],
  ['-9223372036854775809ns', 'time: invalid duration "-9223372036854775809ns"'],
  ['9223372036854776us', 'time: invalid duration "9223372036854776us"'],
  ['3000000h', 'time: invalid duration "3000000h"'],
  ['9223372036854775.808us', 'time: invalid duration "9223372036854775.808us"'],
  ['9223372036854ms775us808ns', 'time: invalid duration "9223372036854ms775us808ns"'],
  // what a user passing seconds or a spaced string gets
  ['30', 'time: missing unit in duration "30"'],
  ['1 m', 'time: unknown unit " m" in duration "1 m"'],
  ['1m ', 'time: unknown unit "m " in duration "1m "'],
  ['1sec', 'time: unknown unit "sec" in duration "1sec"'],
  ['1\u00e9s', 'time: unknown unit "\\xc3\\xa9s" in duration "1\\xc3\\xa9s"'],
  ['"1s"', 'time: invalid duration "\\"1s\\""'],
];

test('parses Go\'s valid durations to the nanosecond', () => {
  for (const [text, want] of valid) assert.equal(parseDurationNanos(text), want, text);
});

test('refuses what Go refuses, with Go\'s error text', () => {
  for (const [text, message] of invalid) {
    assert.throws(() => parseDuration(text), { name: 'TypeError', message }, JSON.stringify(text));
  }
});

test('milliseconds for the runtime\'s options: strings parsed, numbers as they are', () => {
  assert.equal(parseDuration('1m30s'), 90_000);
  assert.equal(parseDuration('500ms'), 500);
  assert.equal(parseDuration('1h'), 3_600_000);
  assert.equal(parseDuration('30s'), 30_000);
  assert.equal(parseDuration('1.5h'), 5_400_000);
  assert.equal(parseDuration('250us'), 0.25);
  assert.equal(parseDuration('-1s'), -1000);
  assert.equal(durationMs('2m'), 120_000);
  assert.equal(durationMs(1500), 1500);
});

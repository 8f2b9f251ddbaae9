/**
 * Go's duration strings (`30s`, `1m30s`, `500ms`, `1h`), parsed exactly as
 * Go's time.ParseDuration parses them, with its error texts, so that a
 * duration written for a Go operator (a flag, an annotation, a
 * `requeueAfter`) means the same here and nobody passes seconds where
 * milliseconds are meant. Go works on bytes and 64-bit nanoseconds; so does
 * this (a BigInt), and the result is converted to milliseconds at the end.
 */

/** Nanoseconds per unit, as Go's unitMap has them (`µs` is U+00B5, `μs` U+03BC). */
const unitNanos: ReadonlyMap<string, bigint> = new Map([
  ['ns', 1n],
  ['us', 1_000n],
  ['\u00b5s', 1_000n],
  ['\u03bcs', 1_000n],
  ['ms', 1_000_000n],
  ['s', 1_000_000_000n],
  ['m', 60_000_000_000n],
  ['h', 3_600_000_000_000n],
]);

/** 1<<63, the bound Go checks each step against. */
const limit = 1n << 63n;

/**
 * A duration as Go writes one (`1m30s`) or milliseconds: what duration
 * options such as `requeueAfter` take.
 *
 * @example
 * ```ts
 * import type { DurationInput } from '@operant/runtime';
 *
 * const every: DurationInput = process.env.RESYNC ?? '10m'; // or 600_000
 * ```
 */
export type DurationInput = number | string;

/**
 * Parses a Go duration string into milliseconds (fractions of a millisecond
 * kept): a sequence of decimal numbers, each with an optional fraction and a
 * unit (`ns`, `us`/`µs`, `ms`, `s`, `m`, `h`), with an optional sign; `0`
 * alone needs no unit. Throws a TypeError with Go's text otherwise:
 * `time: invalid duration "..."`, `time: missing unit in duration "..."`,
 * `time: unknown unit "..." in duration "..."`.
 *
 * @example
 * ```ts
 * import { parseDuration } from '@operant/runtime';
 *
 * parseDuration('1m30s'); // 90_000
 * parseDuration('1.5h'); // 5_400_000
 * parseDuration('250us'); // 0.25
 * parseDuration('30'); // throws TypeError: time: missing unit in duration "30"
 * ```
 */
export function parseDuration(text: string): number {
  return Number(parseDurationNanos(text)) / 1e6;
}

/** Milliseconds from a {@link DurationInput}: a number as it is, a string by {@link parseDuration}. */
export function durationMs(input: DurationInput): number {
  return typeof input === 'number' ? input : parseDuration(input);
}

/** Go's ParseDuration, step for step: the value in nanoseconds (exported for the tests, which compare with Go's own). */
export function parseDurationNanos(orig: string): bigint {
  const bytes = Buffer.from(orig, 'utf8');
  const invalid = (): TypeError => new TypeError(`time: invalid duration ${quote(bytes)}`);
  let i = 0;
  let neg = false;
  if (bytes.length > 0 && (bytes[0] === 0x2d || bytes[0] === 0x2b)) {
    neg = bytes[0] === 0x2d;
    i = 1;
  }
  if (bytes.length - i === 1 && bytes[i] === 0x30) return 0n;
  if (i === bytes.length) throw invalid();
  let d = 0n;
  while (i < bytes.length) {
    // The next character must be [0-9.].
    if (!(bytes[i] === 0x2e || isDigit(bytes[i]!))) throw invalid();
    // [0-9]*
    const intStart = i;
    let v = 0n;
    for (; i < bytes.length && isDigit(bytes[i]!); i++) {
      if (v > limit / 10n) throw invalid();
      v = v * 10n + BigInt(bytes[i]! - 0x30);
      if (v > limit) throw invalid();
    }
    const pre = i !== intStart;
    // (\.[0-9]*)?: past 63 bits of precision the digits are consumed and ignored.
    let f = 0n;
    let scale = 1;
    let post = false;
    if (i < bytes.length && bytes[i] === 0x2e) {
      i++;
      const fracStart = i;
      let overflow = false;
      for (; i < bytes.length && isDigit(bytes[i]!); i++) {
        if (overflow) continue;
        if (f > (limit - 1n) / 10n) {
          overflow = true;
          continue;
        }
        const y = f * 10n + BigInt(bytes[i]! - 0x30);
        if (y > limit) {
          overflow = true;
          continue;
        }
        f = y;
        scale *= 10;
      }
      post = i !== fracStart;
    }
    // No digits at all (".s", "-.s").
    if (!pre && !post) throw invalid();
    // The unit: everything up to the next digit or '.'.
    const unitStart = i;
    for (; i < bytes.length && !(bytes[i] === 0x2e || isDigit(bytes[i]!)); i++);
    if (i === unitStart) throw new TypeError(`time: missing unit in duration ${quote(bytes)}`);
    const unitBytes = bytes.subarray(unitStart, i);
    const unit = unitNanos.get(unitBytes.toString('utf8'));
    if (unit === undefined) throw new TypeError(`time: unknown unit ${quote(unitBytes)} in duration ${quote(bytes)}`);
    if (v > limit / unit) throw invalid();
    v *= unit;
    if (f > 0n) {
      // Go adds uint64(float64(f) * (float64(unit) / scale)): float64 arithmetic, then truncation.
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > limit) throw invalid();
    }
    d += v;
    if (d > limit) throw invalid();
  }
  if (neg) return -d;
  if (d > limit - 1n) throw invalid();
  return d;
}

function isDigit(byte: number): boolean {
  return byte >= 0x30 && byte <= 0x39;
}

/**
 * Go's time.quote: the text in double quotes, `"` and `\` escaped, and every
 * byte of a non-ASCII or control character written as `\xNN`.
 */
function quote(bytes: Uint8Array): string {
  let out = '"';
  for (const byte of bytes) {
    if (byte >= 0x80 || byte < 0x20) out += `\\x${byte.toString(16).padStart(2, '0')}`;
    else {
      const c = String.fromCharCode(byte);
      out += c === '"' || c === '\\' ? `\\${c}` : c;
    }
  }
  return `${out}"`;
}

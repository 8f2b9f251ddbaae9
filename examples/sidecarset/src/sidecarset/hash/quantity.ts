/**
 * What Go writes for a resource.Quantity it has read: `resource.ParseQuantity`
 * followed by `MarshalJSON` (k8s.io/apimachinery pkg/api/resource). A string
 * already in canonical form is kept as written (`500m`, `100Mi`); any other is
 * rewritten from its exact value (`0.5` is `500m`, `1024Mi` is `1Gi`, `1.5Gi` is
 * `1536Mi`), rounded up to nano units. `roundUpQuantity` is the milli rounding
 * that Kubernetes' defaulting applies to container resources.
 */

type Format = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/** An exact value, `unscaled * 10^scale`, and the format it was written in. */
interface Amount {
  unscaled: bigint;
  scale: number;
  format: Format;
}

const decimalSuffixes: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const binarySuffixes: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const maxInt64 = 2n ** 63n - 1n;
const nano = -9;

/** The quantity as Go's MarshalJSON writes it after ParseQuantity. Throws on text Go refuses. */
export function canonicalQuantity(input: string | number): string {
  const parsed = parse(typeof input === 'number' ? String(input) : input.trim());
  return typeof parsed === 'string' ? parsed : format(parsed);
}

/** Kubernetes' SetDefaults_ResourceList: round up to milli units, then write canonically. */
export function roundUpQuantity(input: string | number): string {
  const parsed = parse(typeof input === 'number' ? String(input) : input.trim());
  const amount = typeof parsed === 'string' ? parse(parsed, false) : parsed;
  if (typeof amount === 'string') return amount;
  // Already milli or coarser: Go keeps the value (and a cached canonical string).
  if (amount.scale >= -3) return typeof parsed === 'string' ? parsed : format(amount);
  return format({ ...amount, ...roundUp(amount.unscaled, amount.scale, -3) });
}

/**
 * ParseQuantity: a canonical string to keep as it is, or the exact amount.
 * With `keepCanonical` false the amount is always returned.
 */
function parse(text: string, keepCanonical = true): string | Amount {
  if (text === '') throw new Error('quantities must match the regular expression');
  if (text === '0') return keepCanonical ? '0' : { unscaled: 0n, scale: 0, format: 'DecimalSI' };
  const { positive, value, num, denom, suffix } = split(text);
  const { base, exponent, format } = interpret(suffix);

  // The int64 fast path, which alone may keep the text as written.
  let precision: number;
  let scale = 0;
  let mantissa = 1n;
  if (format === 'BinarySI') {
    if (exponent >= 0 && denom.length === 0) {
      mantissa = 1n << BigInt(exponent);
      precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
    } else {
      precision = -1;
    }
  } else {
    scale = exponent;
    precision = 18 - (num.length + denom.length);
  }
  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= nano) {
      const shifted = num + denom;
      const result = BigInt(shifted) * mantissa;
      if (result <= maxInt64) {
        const canonical =
          format === 'BinarySI'
            ? exponent % 10 === 0 && (BigInt(shifted) & 7n) !== 0n
            : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
        if (canonical && keepCanonical) return text;
        return { unscaled: positive ? result : -result, scale, format };
      }
    }
  }

  // Exact decimal arithmetic, rounded up to nano units.
  const [whole = '', frac = ''] = value.replace(/^[+-]/, '').split('.');
  let unscaled = BigInt((whole || '0') + frac) * (positive ? 1n : -1n);
  let amountScale = -frac.length;
  if (base === 10) amountScale += exponent;
  else unscaled *= 1n << BigInt(exponent);
  let amountFormat = format;
  if (unscaled !== 0n && amountScale < nano) ({ unscaled, scale: amountScale } = roundUp(unscaled, amountScale, nano));
  if (amountFormat === 'BinarySI' && unscaled > 0n && lessThanOne(unscaled, amountScale)) amountFormat = 'DecimalSI';
  return { unscaled, scale: amountScale, format: amountFormat };
}

/** Go's parseQuantityString: sign, numerator (leading zeros stripped), denominator, suffix. */
function split(text: string): { positive: boolean; value: string; num: string; denom: string; suffix: string } {
  const m = /^([+-]?)0*([0-9]*)(?:\.([0-9]*))?(.*)$/.exec(text)!;
  const [, sign = '', digits = '', denom = '', suffix = ''] = m;
  if (!/^[eEinumkKMGTP]*[-+]?[0-9]*$/.test(suffix)) throw new Error(`quantities must match the regular expression: ${text}`);
  return { positive: sign !== '-', value: text.slice(0, text.length - suffix.length), num: digits === '' ? '0' : digits, denom, suffix };
}

function interpret(suffix: string): { base: 2 | 10; exponent: number; format: Format } {
  if (suffix in decimalSuffixes) return { base: 10, exponent: decimalSuffixes[suffix]!, format: 'DecimalSI' };
  if (suffix in binarySuffixes) return { base: 2, exponent: binarySuffixes[suffix]!, format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E') && /^[+-]?[0-9]+$/.test(suffix.slice(1))) {
    return { base: 10, exponent: Number(suffix.slice(1)), format: 'DecimalExponent' };
  }
  throw new Error(`unable to parse quantity's suffix: ${suffix}`);
}

/** Rounds `unscaled * 10^scale` away from zero to `10^target` units. */
function roundUp(unscaled: bigint, scale: number, target: number): { unscaled: bigint; scale: number } {
  if (scale >= target) return { unscaled, scale };
  const divisor = 10n ** BigInt(target - scale);
  let q = unscaled / divisor;
  if (q * divisor !== unscaled) q += unscaled > 0n ? 1n : -1n;
  return { unscaled: q, scale: target };
}

function lessThanOne(unscaled: bigint, scale: number): boolean {
  return scale >= 0 ? unscaled < 1n : unscaled < 10n ** BigInt(-scale);
}

/** CanonicalizeBytes: the shortest exact spelling in the amount's format. */
function format(a: Amount): string {
  if (a.unscaled === 0n) return '0';
  let fmt = a.format;
  if (fmt === 'BinarySI') {
    const integer = integerValue(a);
    if (integer === undefined || (integer > -1024n && integer < 1024n)) fmt = 'DecimalSI';
    else {
      let value = integer;
      let exponent = 0;
      while (value % 1024n === 0n) {
        value /= 1024n;
        exponent += 10;
      }
      const suffix = Object.entries(binarySuffixes).find(([, e]) => e === exponent)?.[0] ?? '';
      return `${value}${suffix}`;
    }
  }
  let { unscaled } = a;
  let exponent = a.scale;
  while (unscaled % 10n === 0n) {
    unscaled /= 10n;
    exponent++;
  }
  while (exponent % 3 !== 0) {
    unscaled *= 10n;
    exponent--;
  }
  if (fmt === 'DecimalExponent') return exponent === 0 ? `${unscaled}` : `${unscaled}e${exponent}`;
  const suffix = Object.entries(decimalSuffixes).find(([, e]) => e === exponent)?.[0];
  return `${unscaled}${suffix ?? ''}`;
}

function integerValue(a: Amount): bigint | undefined {
  if (a.scale >= 0) return a.unscaled * 10n ** BigInt(a.scale);
  const divisor = 10n ** BigInt(-a.scale);
  return a.unscaled % divisor === 0n ? a.unscaled / divisor : undefined;
}

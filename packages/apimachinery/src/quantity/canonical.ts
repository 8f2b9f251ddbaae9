/**
 * Resource quantities as kube-apiserver writes them back (k8s.io/apimachinery
 * pkg/api/resource/quantity.go: ParseQuantity, RoundUp, CanonicalizeBytes).
 * A quantity keeps the family of its suffix (decimal SI `k M G ... m u n`,
 * binary SI `Ki Mi Gi ...`, or a decimal exponent `e3`) and is printed with
 * no fraction digits and the largest suffix that loses nothing: `0.5` becomes
 * `500m`, `1000` becomes `1k`, `1.5Gi` becomes `1536Mi`, and a binary value
 * under 1Ki or with a fraction falls back to decimal SI. Parsing rounds every
 * non-zero value up (away from zero) to a nano.
 */
import { Quantity } from '../cel/quantity.js';

/** How a quantity is written: the family of its suffix (resource.Format). */
export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';
type Format = QuantityFormat;

const decimalSuffixByExponent = new Map<number, string>([
  [-9, 'n'],
  [-6, 'u'],
  [-3, 'm'],
  [0, ''],
  [3, 'k'],
  [6, 'M'],
  [9, 'G'],
  [12, 'T'],
  [15, 'P'],
  [18, 'E'],
]);
const binarySuffixes = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

/** The family of a quantity's suffix: `Mi` is BinarySI, `e3` DecimalExponent, `m` or none DecimalSI. */
export function quantityFormat(text: string): QuantityFormat {
  const suffix = /^[+-]?[0-9.]*(.*)$/.exec(text)![1];
  if (suffix.endsWith('i')) return 'BinarySI';
  return /^[eE]/.test(suffix) ? 'DecimalExponent' : 'DecimalSI';
}

/** `q` rounded away from zero to `10^scale` (inf.Dec's Round with RoundUp). */
function roundUp(q: Quantity, scale: number): Quantity {
  if (q.scale >= scale) return q;
  const unit = 10n ** BigInt(scale - q.scale);
  let digits = q.digits / unit;
  if (q.digits % unit !== 0n) digits += q.digits < 0n ? -1n : 1n;
  return new Quantity(digits, scale);
}

/** The value as an integer, or undefined when it has a fraction. */
function integerValue(q: Quantity): bigint | undefined {
  if (q.scale >= 0) return q.digits * 10n ** BigInt(q.scale);
  const unit = 10n ** BigInt(-q.scale);
  return q.digits % unit === 0n ? q.digits / unit : undefined;
}

function decimal(q: Quantity, format: Format): string {
  let digits = q.digits;
  let exponent = q.scale;
  while (digits % 10n === 0n) {
    digits /= 10n;
    exponent++;
  }
  // The largest multiple of three not above the exponent: no fraction digits.
  const shift = ((exponent % 3) + 3) % 3;
  digits *= 10n ** BigInt(shift);
  exponent -= shift;
  if (format === 'DecimalExponent') return `${digits}${exponent === 0 ? '' : `e${exponent}`}`;
  if (exponent > 18) {
    digits *= 10n ** BigInt(exponent - 18);
    exponent = 18;
  }
  return `${digits}${decimalSuffixByExponent.get(exponent)!}`;
}

/**
 * The canonical form kube gives a quantity read from `value` (a string, or a
 * JSON number); with `roundToMilli`, first rounded up to a thousandth, as
 * SetDefaults_ResourceList does to every resource list (requests, limits,
 * capacity). Throws kube's parse error for what is no quantity.
 *
 * @example
 * canonicalQuantity('1.5Gi'); // '1536Mi'
 * canonicalQuantity(0.5); // '500m'
 * canonicalQuantity('0.0001', { roundToMilli: true }); // '1m'
 */
export function canonicalQuantity(value: string | number, options: { roundToMilli?: boolean } = {}): string {
  const text = typeof value === 'number' ? String(value) : value.trim();
  let q = Quantity.parse(text);
  if (options.roundToMilli) q = roundUp(roundUp(q, -9), -3);
  return formatQuantity(q, quantityFormat(text));
}

/**
 * `q` written as kube writes a quantity of that format (rounded up to a
 * nano first): what a sum of quantities prints as.
 *
 * @example
 * formatQuantity(Quantity.parse('1536Mi'), 'BinarySI'); // '1536Mi'
 */
export function formatQuantity(value: Quantity, quantityFormat: QuantityFormat): string {
  const q = roundUp(value, -9);
  if (q.digits === 0n) return '0';
  let format = quantityFormat;
  if (format === 'BinarySI') {
    const whole = integerValue(q);
    if (whole === undefined || (whole > -1024n && whole < 1024n)) format = 'DecimalSI';
    else {
      let n = whole;
      let power = 0;
      while (power < binarySuffixes.length - 1 && n % 1024n === 0n) {
        n /= 1024n;
        power++;
      }
      return `${n}${binarySuffixes[power]}`;
    }
  }
  return decimal(q, format);
}

/**
 * Kubernetes resource quantities (`500m`, `1.5Gi`, `2e3`) for the CEL `quantity`
 * library, held exactly as `digits * 10^scale` with bigint digits.
 */

const formatError = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const suffixError = "unable to parse quantity's suffix";

const decimalSuffixes: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const binarySuffixes: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };

const minInt64 = -(2n ** 63n);
const maxInt64 = 2n ** 63n - 1n;

/** An exact resource quantity; values are immutable. */
export class Quantity {
  /** @param digits the unscaled value; @param scale the power of ten it is multiplied by. */
  constructor(
    readonly digits: bigint,
    readonly scale: number,
  ) {}

  /** Parses a quantity string as `resource.ParseQuantity` does, throwing kube's error text on failure. */
  static parse(text: string): Quantity {
    if (text.length === 0) throw new Error(formatError);
    const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$/.exec(text);
    if (!m) throw new Error(formatError);
    const [, sign, whole, frac = '', suffix] = m;
    if (whole === '' && frac === '') throw new Error(formatError);
    let digits = BigInt((whole || '0') + frac);
    let scale = -frac.length;
    if (sign === '-') digits = -digits;
    if (suffix in decimalSuffixes) {
      scale += decimalSuffixes[suffix];
    } else if (suffix in binarySuffixes) {
      digits *= 1024n ** BigInt(binarySuffixes[suffix]);
    } else if (/^[eE][+-]?[0-9]+$/.test(suffix)) {
      const exp = Number(suffix.slice(1));
      // Bounded so that exact arithmetic on the value stays cheap; real quantities are far inside it.
      if (!Number.isSafeInteger(exp) || Math.abs(exp) > 1000) throw new Error(suffixError);
      scale += exp;
    } else if (/^[eEinumkKMGTP]*[-+]?[0-9]*$/.test(suffix)) {
      throw new Error(suffixError);
    } else {
      throw new Error(formatError);
    }
    return new Quantity(digits, scale).normalized();
  }

  /** Whether `text` parses as a quantity. */
  static isValid(text: string): boolean {
    try {
      Quantity.parse(text);
      return true;
    } catch {
      return false;
    }
  }

  /** Strips trailing zero digits into the scale so equal values compare cheaply. */
  private normalized(): Quantity {
    if (this.digits === 0n) return this.scale === 0 ? this : new Quantity(0n, 0);
    let d = this.digits;
    let s = this.scale;
    while (d % 10n === 0n) {
      d /= 10n;
      s++;
    }
    return d === this.digits ? this : new Quantity(d, s);
  }

  private static align(a: Quantity, b: Quantity): [bigint, bigint, number] {
    const scale = Math.min(a.scale, b.scale);
    return [a.digits * 10n ** BigInt(a.scale - scale), b.digits * 10n ** BigInt(b.scale - scale), scale];
  }

  /** -1, 0 or 1 as this is less than, equal to or greater than `other`. */
  compare(other: Quantity): number {
    const [x, y] = Quantity.align(this, other);
    return x < y ? -1 : x > y ? 1 : 0;
  }

  /** The exact sum. */
  add(other: Quantity): Quantity {
    const [x, y, scale] = Quantity.align(this, other);
    return new Quantity(x + y, scale).normalized();
  }

  /** The exact difference. */
  sub(other: Quantity): Quantity {
    const [x, y, scale] = Quantity.align(this, other);
    return new Quantity(x - y, scale).normalized();
  }

  /** -1, 0 or 1. */
  sign(): number {
    return this.digits < 0n ? -1 : this.digits > 0n ? 1 : 0;
  }

  /** The value as an int64, or `undefined` when it has a fraction or does not fit (Go's `AsInt64`). */
  asInt64(): bigint | undefined {
    let v: bigint;
    if (this.scale >= 0) {
      if (this.scale > 19 && this.digits !== 0n) return undefined;
      v = this.digits * 10n ** BigInt(this.scale);
    } else {
      const div = 10n ** BigInt(-this.scale);
      if (this.digits % div !== 0n) return undefined;
      v = this.digits / div;
    }
    return v >= minInt64 && v <= maxInt64 ? v : undefined;
  }

  /** The nearest double. */
  asApproximateFloat(): number {
    return Number(`${this.digits}e${this.scale}`);
  }

  /** A canonical decimal rendering, for messages and debugging. */
  toString(): string {
    return this.scale === 0 ? String(this.digits) : `${this.digits}e${this.scale}`;
  }
}

/** A quantity from a CEL int, as `resource.NewQuantity(i, DecimalExponent)`. */
export function quantityFromInt(i: bigint): Quantity {
  return new Quantity(i, 0);
}

/**
 * The chaos schedules' random numbers: mulberry32, a 32-bit generator small
 * enough to read in one go, seeded so that a seed always gives the same
 * sequence (Math.random cannot be seeded, and the same faults at the same
 * offsets is the whole point of a seed). Not for anything secret.
 */

/**
 * A seeded generator of numbers in [0, 1), with the draws a schedule needs.
 *
 * @example
 * ```ts
 * import { Prng } from '@operant/testing';
 *
 * const a = new Prng(42);
 * const b = new Prng(42);
 * a.next() === b.next(); // true: same seed, same sequence
 * a.int(100, 500); // an integer from 100 to 500
 * ```
 */
export class Prng {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** The next number in [0, 1). */
  next(): number {
    // mulberry32 (Tommy Ettinger): add a Weyl constant, then mix.
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer from `min` to `max`, both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** One of `items`, each `weight(item)` times as likely as a weight of 1. */
  pick<T>(items: readonly T[], weight: (item: T) => number = () => 1): T {
    const total = items.reduce((sum, item) => sum + weight(item), 0);
    let x = this.next() * total;
    for (const item of items) {
      x -= weight(item);
      if (x < 0) return item;
    }
    return items[items.length - 1]!;
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** An exponentially distributed delay with mean `mean` (the gaps of a Poisson process). */
  exponential(mean: number): number {
    return -Math.log(1 - this.next()) * mean;
  }

  /** A generator for one part of a schedule, independent of how many draws the others make. */
  fork(salt: number): Prng {
    return new Prng(deriveSeed(this.seed, salt));
  }
}

/**
 * A seed for part `salt` of what `seed` drives (e.g. the draws of one window of a schedule).
 *
 * @example
 * ```ts
 * import { deriveSeed, Prng } from '@operant/testing';
 *
 * const window3 = new Prng(deriveSeed(1234, 3));
 * ```
 */
export function deriveSeed(seed: number, salt: number): number {
  return (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(salt + 1, 0xc2b2ae35)) >>> 0;
}

/** A seed for a run that was given none (printed, so the run can be replayed). */
export function randomSeed(): number {
  return Math.floor(Math.random() * 2 ** 31);
}

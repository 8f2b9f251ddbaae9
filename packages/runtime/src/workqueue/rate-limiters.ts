/**
 * Rate limiters decide how long a failed key waits before it is retried.
 * Delays are in milliseconds.
 */
import { realClock, type Clock } from './clock.js';

/**
 * Decides retry delays, per key and/or overall.
 *
 * @example
 * ```ts
 * import { type RateLimiter } from '@operant/runtime';
 * import { DelayingQueue, ItemExponentialFailureRateLimiter } from '@operant/runtime/workqueue';
 *
 * const queue = new DelayingQueue<string>();
 * const limiter: RateLimiter<string> = new ItemExponentialFailureRateLimiter();
 * queue.addAfter('default/web', limiter.when('default/web')); // on failure
 * limiter.forget('default/web');                              // on success
 * ```
 */
export interface RateLimiter<K = string> {
  /** How long `key` should wait now; records one more failure for it. */
  when(key: K): number;
  /** Stops tracking `key` (it succeeded, or was given up on). */
  forget(key: K): void;
  /** How many times `key` has failed since it was last forgotten. */
  numRequeues(key: K): number;
}

/**
 * Per-key exponential backoff: `baseDelayMs * 2^failures`, capped at `maxDelayMs`.
 * Defaults are client-go's controller defaults: 5 ms doubling up to 1000 s.
 *
 * @example
 * ```ts
 * import { ItemExponentialFailureRateLimiter } from '@operant/runtime/workqueue';
 *
 * const limiter = new ItemExponentialFailureRateLimiter(5, 1_000_000);
 * limiter.when('a'); // 5
 * limiter.when('a'); // 10
 * limiter.when('b'); // 5: each key has its own count
 * limiter.forget('a');
 * limiter.when('a'); // 5 again
 * ```
 */
export class ItemExponentialFailureRateLimiter<K = string> implements RateLimiter<K> {
  private readonly failures = new Map<K, number>();

  constructor(
    readonly baseDelayMs = 5,
    readonly maxDelayMs = 1_000_000,
  ) {}

  when(key: K): number {
    const exp = this.failures.get(key) ?? 0;
    this.failures.set(key, exp + 1);
    // 2^exp reaches Infinity after ~1024 failures; min() still gives the cap.
    return Math.min(this.baseDelayMs * 2 ** exp, this.maxDelayMs);
  }

  forget(key: K): void {
    this.failures.delete(key);
  }

  numRequeues(key: K): number {
    return this.failures.get(key) ?? 0;
  }
}

/**
 * Options for {@link BucketRateLimiter}.
 *
 * @example
 * ```ts
 * import type { BucketRateLimiterOptions } from '@operant/runtime';
 *
 * const options: BucketRateLimiterOptions = { qps: 50, burst: 300 };
 * ```
 */
export interface BucketRateLimiterOptions {
  /** Tokens added per second; default 10. */
  qps?: number;
  /** Bucket size, and the tokens it starts with; default 100. */
  burst?: number;
  /** Default {@link realClock}. */
  clock?: Clock;
}

/**
 * An overall token bucket across all keys, as golang.org/x/time/rate's
 * `Reserve().Delay()`: each `when` takes a token, and once the bucket is empty
 * callers are spaced `1/qps` apart by being given later and later delays (the
 * bucket goes into debt rather than refusing). Per-key methods are no-ops.
 *
 * @example
 * ```ts
 * import { BucketRateLimiter } from '@operant/runtime/workqueue';
 *
 * const limiter = new BucketRateLimiter({ qps: 10, burst: 100 });
 * limiter.when('a'); // 0 for the first 100 calls, then 100, 200, 300, ... ms
 * ```
 */
export class BucketRateLimiter<K = string> implements RateLimiter<K> {
  readonly qps: number;
  readonly burst: number;
  private readonly clock: Clock;
  private tokens: number;
  private last: number;

  constructor(options: BucketRateLimiterOptions = {}) {
    this.qps = options.qps ?? 10;
    this.burst = options.burst ?? 100;
    if (!(this.qps > 0)) throw new RangeError(`qps must be positive, got ${this.qps}`);
    if (!(this.burst >= 1)) throw new RangeError(`burst must be at least 1, got ${this.burst}`);
    this.clock = options.clock ?? realClock;
    this.tokens = this.burst;
    this.last = this.clock.now();
  }

  when(_key: K): number {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.qps) / 1000);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.qps;
  }

  forget(_key: K): void {}

  numRequeues(_key: K): number {
    return 0;
  }
}

/**
 * Combines limiters: the longest delay and the highest requeue count win, and
 * `forget` reaches all of them.
 *
 * @example
 * ```ts
 * import { BucketRateLimiter, ItemExponentialFailureRateLimiter, MaxOfRateLimiter } from '@operant/runtime/workqueue';
 *
 * const limiter = new MaxOfRateLimiter(
 *   new ItemExponentialFailureRateLimiter(5, 60_000),
 *   new BucketRateLimiter({ qps: 10, burst: 100 }),
 * );
 * ```
 */
export class MaxOfRateLimiter<K = string> implements RateLimiter<K> {
  readonly limiters: readonly RateLimiter<K>[];

  constructor(...limiters: RateLimiter<K>[]) {
    this.limiters = limiters;
  }

  when(key: K): number {
    // Every limiter must see the call (each counts failures or spends a token), so no early exit.
    let delay = 0;
    for (const limiter of this.limiters) delay = Math.max(delay, limiter.when(key));
    return delay;
  }

  forget(key: K): void {
    for (const limiter of this.limiters) limiter.forget(key);
  }

  numRequeues(key: K): number {
    let count = 0;
    for (const limiter of this.limiters) count = Math.max(count, limiter.numRequeues(key));
    return count;
  }
}

/**
 * The controller default, as client-go's `DefaultTypedControllerRateLimiter`:
 * the larger of per-key exponential backoff (5 ms to 1000 s) and an overall
 * token bucket (10 qps, burst 100), so one hot key backs off alone while a
 * mass failure cannot retry faster than 10 per second.
 *
 * @example
 * ```ts
 * import { defaultControllerRateLimiter, RateLimitingQueue } from '@operant/runtime/workqueue';
 *
 * const queue = new RateLimitingQueue({ rateLimiter: defaultControllerRateLimiter() });
 * ```
 */
export function defaultControllerRateLimiter<K = string>(options: { clock?: Clock } = {}): RateLimiter<K> {
  return new MaxOfRateLimiter<K>(
    new ItemExponentialFailureRateLimiter<K>(5, 1_000_000),
    new BucketRateLimiter<K>({ qps: 10, burst: 100, clock: options.clock }),
  );
}

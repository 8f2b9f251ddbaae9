/**
 * Client-side request throttling, as client-go's `flowcontrol` token bucket:
 * `burst` requests go at once, after which requests are spaced `1/qps` apart.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { BucketRateLimiter } from '../workqueue/rate-limiters.js';

/**
 * Waits for a token before each request.
 *
 * @example
 * ```ts
 * import { RequestRateLimiter } from './rate-limiter.js';
 *
 * const limiter = new RequestRateLimiter(5, 10);
 * await limiter.wait(); // at once for the first 10, then ~200 ms apart
 * ```
 */
export class RequestRateLimiter {
  private readonly bucket: BucketRateLimiter<string> | undefined;

  /** `qps: Infinity` turns throttling off. */
  constructor(
    readonly qps: number,
    readonly burst: number,
  ) {
    this.bucket = qps === Infinity ? undefined : new BucketRateLimiter({ qps, burst });
  }

  /** Resolves when the request may go; rejects with the signal's reason when aborted. */
  async wait(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const delay = this.bucket?.when('') ?? 0;
    if (delay > 0) await sleep(delay, undefined, { signal });
  }
}

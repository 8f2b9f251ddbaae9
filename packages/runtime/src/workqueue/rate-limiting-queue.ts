/**
 * A delaying queue whose retries are paced by a {@link RateLimiter}: the shape
 * a controller's worker loop uses (`addRateLimited` on error, `forget` on success).
 */
import { DelayingQueue } from './delaying-queue.js';
import type { AddOptions, QueueOptions } from './queue.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiters.js';

/**
 * Options for {@link RateLimitingQueue}.
 *
 * @example
 * ```ts
 * import { type RateLimitingQueueOptions } from '@operant/runtime';
 * import { defaultControllerRateLimiter } from '@operant/runtime/workqueue';
 *
 * const options: RateLimitingQueueOptions = { name: 'sidecarset', rateLimiter: defaultControllerRateLimiter() };
 * ```
 */
export interface RateLimitingQueueOptions<K = string> extends QueueOptions {
  /** Default {@link defaultControllerRateLimiter}, on the queue's clock. */
  rateLimiter?: RateLimiter<K>;
}

/**
 * A {@link DelayingQueue} with rate-limited retries.
 *
 * @example
 * ```ts
 * import { RateLimitingQueue } from '@operant/runtime/workqueue';
 *
 * declare function reconcile(key: string): Promise<void>;
 * const queue = new RateLimitingQueue<string>();
 * const item = await queue.get();
 * if (!item.shutdown) {
 *   try {
 *     await reconcile(item.key);
 *     queue.forget(item.key);         // success: reset its backoff
 *   } catch {
 *     queue.addRateLimited(item.key); // failure: retry after 5 ms, 10 ms, 20 ms, ...
 *   } finally {
 *     queue.done(item.key);
 *   }
 * }
 * ```
 */
export class RateLimitingQueue<K = string> extends DelayingQueue<K> {
  readonly rateLimiter: RateLimiter<K>;

  constructor(options: RateLimitingQueueOptions<K> = {}) {
    super(options);
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<K>({ clock: this.clock });
  }

  /** Adds `key` after the delay the rate limiter gives it (which counts as one failure). */
  addRateLimited(key: K, options?: AddOptions): void {
    this.addAfter(key, this.rateLimiter.when(key), options);
  }

  /**
   * Resets the rate limiter's memory of `key`. Only the backoff: the worker
   * must still call `done`.
   */
  forget(key: K): void {
    this.rateLimiter.forget(key);
  }

  /** How many times `key` has been rate-limited since it was last forgotten. */
  numRequeues(key: K): number {
    return this.rateLimiter.numRequeues(key);
  }
}

/**
 * The work queue: keyed, deduplicating, one worker per key, with delays,
 * per-key backoff, an overall rate limit, priorities and draining shutdown.
 */
export { realClock, type Clock, type Timer, type TimerOptions } from './clock.js';
export { noopQueueMetricsProvider, type QueueMetricsProvider } from './metrics.js';
export { Priority, WorkQueue, type AddOptions, type QueueItem, type QueueOptions } from './queue.js';
export { DelayingQueue } from './delaying-queue.js';
export {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
  type BucketRateLimiterOptions,
  type RateLimiter,
} from './rate-limiters.js';
export { RateLimitingQueue, type RateLimitingQueueOptions } from './rate-limiting-queue.js';

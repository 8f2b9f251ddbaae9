/**
 * Reconnect delays: exponential growth from a first delay to a cap, with random
 * jitter so that many clients cut off at once do not come back in step, and a
 * reset once failures stop for a while (client-go's exponential backoff manager,
 * kube-rs's ResetTimerBackoff).
 */
import { realClock, type Clock } from '../workqueue/clock.js';

/**
 * Shape of the delays between reconnect attempts.
 *
 * @example
 * ```ts
 * import type { BackoffOptions } from '@operant/runtime';
 *
 * const fast: BackoffOptions = { initialMs: 50, maxMs: 1_000 };
 * ```
 */
export interface BackoffOptions {
  /** The first delay (default 800 ms). */
  initialMs?: number;
  /** The largest delay (default 30 s). */
  maxMs?: number;
  /** Growth per consecutive failure (default 2). */
  factor?: number;
  /**
   * Spread of the random jitter as a fraction of the delay (default 0.4: each
   * delay is drawn from ±20% around its nominal value, never above `maxMs`).
   */
  jitter?: number;
  /** Failures this far apart count as a fresh start (default 2 minutes). */
  resetAfterMs?: number;
}

/**
 * Computes successive retry delays.
 *
 * @example
 * ```ts
 * import { Backoff } from '@operant/runtime/cache';
 *
 * const backoff = new Backoff({ initialMs: 800, maxMs: 30_000 });
 * const delay = backoff.next(); // ~800, then ~1600, ~3200, ... up to 30 s
 * ```
 */
export class Backoff {
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly factor: number;
  private readonly jitter: number;
  private readonly resetAfterMs: number;
  private attempt = 0;
  private lastFailureAt: number | undefined;

  constructor(
    options: BackoffOptions = {},
    private readonly clock: Clock = realClock,
    private readonly random: () => number = Math.random,
  ) {
    this.initialMs = options.initialMs ?? 800;
    this.maxMs = Math.max(options.maxMs ?? 30_000, this.initialMs);
    this.factor = options.factor ?? 2;
    this.jitter = Math.min(Math.max(options.jitter ?? 0.4, 0), 1);
    this.resetAfterMs = options.resetAfterMs ?? 120_000;
  }

  /** The delay before the next attempt; call once per failure. */
  next(): number {
    const now = this.clock.now();
    if (this.lastFailureAt !== undefined && now - this.lastFailureAt >= this.resetAfterMs) this.attempt = 0;
    this.lastFailureAt = now;
    const nominal = Math.min(this.maxMs, this.initialMs * this.factor ** this.attempt);
    if (nominal < this.maxMs) this.attempt++;
    const jittered = nominal * (1 + this.jitter * (this.random() - 0.5));
    return Math.round(Math.min(this.maxMs, jittered));
  }

  /** Forgets past failures. */
  reset(): void {
    this.attempt = 0;
    this.lastFailureAt = undefined;
  }

  /** Consecutive failures counted so far (0 after a reset). */
  get failures(): number {
    return this.attempt;
  }
}

/**
 * Turns queue events (add, take, done, retry) into {@link QueueMetricsProvider}
 * calls, keeping the per-key timestamps that durations need. Internal.
 */
import type { Clock, Timer } from './clock.js';
import { noopQueueMetricsProvider, type QueueMetricsProvider } from './metrics.js';

export class MetricsRecorder<K> {
  private readonly enabled: boolean;
  private pending = 0;
  private readonly addedAt = new Map<K, number>();
  private readonly startedAt = new Map<K, number>();
  private ticker: Timer | undefined;

  constructor(
    private readonly provider: QueueMetricsProvider,
    private readonly name: string,
    private readonly clock: Clock,
    private readonly samplePeriodMs: number,
  ) {
    this.enabled = provider !== noopQueueMetricsProvider;
    if (this.enabled) this.schedule();
  }

  /** A key became pending. */
  added(key: K): void {
    if (!this.enabled) return;
    this.provider.added(this.name);
    this.provider.depth(this.name, ++this.pending);
    if (!this.addedAt.has(key)) this.addedAt.set(key, this.clock.now());
  }

  /** A worker took the key. */
  taken(key: K): void {
    if (!this.enabled) return;
    const now = this.clock.now();
    this.provider.depth(this.name, --this.pending);
    this.startedAt.set(key, now);
    const addedAt = this.addedAt.get(key);
    if (addedAt !== undefined) {
      this.provider.queueDuration(this.name, (now - addedAt) / 1000);
      this.addedAt.delete(key);
    }
  }

  /** The worker finished with the key. */
  done(key: K): void {
    if (!this.enabled) return;
    const startedAt = this.startedAt.get(key);
    if (startedAt === undefined) return;
    this.provider.workDuration(this.name, (this.clock.now() - startedAt) / 1000);
    this.startedAt.delete(key);
  }

  retried(): void {
    if (this.enabled) this.provider.retried(this.name);
  }

  stop(): void {
    this.ticker?.cancel();
    this.ticker = undefined;
  }

  /**
   * Work in progress has no event to report on until it ends, so its age is
   * sampled on a timer, as client-go does; the timer never keeps the process alive.
   */
  private schedule(): void {
    this.ticker = this.clock.setTimer(
      () => {
        this.sample();
        this.schedule();
      },
      this.samplePeriodMs,
      { background: true },
    );
  }

  private sample(): void {
    const now = this.clock.now();
    let total = 0;
    let oldest = 0;
    for (const startedAt of this.startedAt.values()) {
      const age = (now - startedAt) / 1000;
      total += age;
      if (age > oldest) oldest = age;
    }
    this.provider.unfinishedWork(this.name, total);
    this.provider.longestRunningProcessor(this.name, oldest);
  }
}

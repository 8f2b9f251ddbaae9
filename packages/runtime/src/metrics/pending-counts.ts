/**
 * Counts kept in plain numbers between scrapes and added to a prom-client
 * Counter or Gauge when it is read (its `collect` hook): a call to prom-client
 * per event builds, checks and hashes a label set each time, which a hot path
 * (one webhook review) feels. Series appear in the order they were first
 * counted, as they would with a call per event. Internal.
 */
import type { Counter, Gauge } from 'prom-client';

type Labels = Record<string, string>;

interface Pending<L extends Labels> {
  readonly labels: L;
  delta: number;
}

/** Deltas by series since the metric was last read. */
export class PendingCounts<L extends Labels> {
  /** Insertion order is first-count order, which is the order prom-client would have made the series in. */
  private readonly pending = new Map<string, Pending<L>>();

  /** Adds `delta` to the series `key` names; `labels` is called only for a series not yet pending. */
  add(key: string, delta: number, labels: () => L): void {
    const entry = this.pending.get(key);
    if (entry) entry.delta += delta;
    else this.pending.set(key, { labels: labels(), delta });
  }

  /**
   * Adds the pending deltas to `metric` and forgets them. A gauge's series
   * whose increments and decrements cancel out is still touched (added 0), as
   * a call per event would have made it exist.
   */
  flush(metric: Counter<Extract<keyof L, string>> | Gauge<Extract<keyof L, string>>): void {
    for (const { labels, delta } of this.pending.values()) metric.inc(labels, delta);
    this.pending.clear();
  }

  /** Counts not yet added are dropped when the metric is reset, as they would have been. */
  clearOnReset(metric: { reset(): void }): void {
    const reset = metric.reset.bind(metric);
    metric.reset = () => {
      this.pending.clear();
      reset();
    };
  }
}

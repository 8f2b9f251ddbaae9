/**
 * kube's `apiserver_current_inflight_requests` is no plain count: the
 * max-in-flight filter reports the highest number of requests of each kind
 * served at once during the last second, so that a scrape does not miss a
 * burst between two scrapes. Here: the highest count in this second and the
 * one before it.
 */
export class InflightWatermark {
  private current = 0;
  private second = 0;
  private maxThisSecond = 0;
  private maxLastSecond = 0;

  constructor(private readonly now: () => number = Date.now) {}

  begin(): void {
    this.current++;
    this.observe();
  }

  end(): void {
    this.current--;
    this.observe();
  }

  /** The highest number of requests in flight at once over the last second. */
  value(): number {
    this.observe();
    return Math.max(this.maxThisSecond, this.maxLastSecond);
  }

  private observe(): void {
    const second = Math.floor(this.now() / 1000);
    if (second !== this.second) {
      this.maxLastSecond = second === this.second + 1 ? this.maxThisSecond : this.current;
      this.maxThisSecond = this.current;
      this.second = second;
    }
    this.maxThisSecond = Math.max(this.maxThisSecond, this.current);
  }
}

/**
 * What kube's node lifecycle controller limits NoExecute tainting with
 * (node_lifecycle_controller.go, nodelifecycle/scheduler/rate_limited_queue.go):
 * nodes by zone, each zone's state from its nodes' Ready conditions, and a
 * queue per zone whose nodes get their NoExecute taint only as a token
 * bucket (burst 1) allows: `--node-eviction-rate` 0.1 node/s in a normal zone,
 * `--secondary-node-eviction-rate` 0.01 in a partly disrupted large one (none
 * in a small one). All times are cluster time.
 */
import type { NodeObject } from '../objects.js';

/** kube-controller-manager's --node-eviction-rate. */
export const evictionLimiterQps = 0.1;
/** --secondary-node-eviction-rate. */
export const secondaryEvictionLimiterQps = 0.01;
/** --large-cluster-size-threshold. */
export const largeClusterThreshold = 50;
/** --unhealthy-zone-threshold. */
export const unhealthyZoneThreshold = 0.55;
/** kube's nodeMonitorPeriod (--node-monitor-period): how often the zones' states are worked out. */
export const nodeMonitorPeriodMs = 5000;
/** A node with this label counts in no zone's state. */
export const excludeDisruptionLabel = 'node.kubernetes.io/exclude-disruption';

export type ZoneState = 'Initial' | 'Normal' | 'PartialDisruption' | 'FullDisruption';

/** kube's nodetopology.GetZoneKey: region and zone from the stable labels, else the beta ones; "" without either. */
export function zoneKey(node: NodeObject): string {
  const labels = node.metadata.labels ?? {};
  const zone = labels['topology.kubernetes.io/zone'] ?? labels['failure-domain.beta.kubernetes.io/zone'] ?? '';
  const region = labels['topology.kubernetes.io/region'] ?? labels['failure-domain.beta.kubernetes.io/region'] ?? '';
  return region === '' && zone === '' ? '' : `${region}:\0:${zone}`;
}

/** kube's ComputeZoneState, from the zone's nodes' Ready statuses (undefined: no Ready condition). */
export function computeZoneState(readyStatuses: readonly (string | undefined)[]): ZoneState {
  const ready = readyStatuses.filter((s) => s === 'True').length;
  const notReady = readyStatuses.length - ready;
  if (ready === 0 && notReady > 0) return 'FullDisruption';
  if (notReady > 2 && notReady / (notReady + ready) >= unhealthyZoneThreshold) return 'PartialDisruption';
  return 'Normal';
}

/** kube's setLimiterInZone: the tainting rate of a zone of `size` nodes in `state`. */
export function zoneQps(state: ZoneState, size: number): number {
  switch (state) {
    case 'PartialDisruption':
      return size > largeClusterThreshold ? secondaryEvictionLimiterQps : 0;
    case 'FullDisruption':
    case 'Normal':
    case 'Initial':
      return evictionLimiterQps;
  }
}

/** client-go's token bucket with a burst of 1 (qps 0: kube's never-accepting limiter). */
export class TokenBucket {
  private tokens = 1;
  private last: number | undefined;

  constructor(readonly qps: number) {}

  private refill(now: number): void {
    if (this.last !== undefined && now > this.last) this.tokens = Math.min(1, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = Math.max(now, this.last ?? now);
  }

  /** Takes a token when there is one. */
  tryAccept(now: number): boolean {
    if (this.qps <= 0) return false;
    this.refill(now);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** When the next token comes (Infinity for qps 0). */
  nextTokenAt(now: number): number {
    if (this.qps <= 0) return Infinity;
    this.refill(now);
    return this.tokens >= 1 ? now : now + ((1 - this.tokens) / this.qps) * 1000;
  }
}

/** A zone's tainting queue (kube's RateLimitedTimedQueue): node names in the order they were added, each once. */
export class ZoneTainter {
  bucket = new TokenBucket(evictionLimiterQps);
  private readonly queue = new Set<string>();

  add(node: string): void {
    this.queue.add(node);
  }

  remove(node: string): void {
    this.queue.delete(node);
  }

  has(node: string): boolean {
    return this.queue.has(node);
  }

  /** The first node, if a token lets it go now (taken off the queue). */
  take(now: number): string | undefined {
    const first = this.queue.values().next();
    if (first.done || !this.bucket.tryAccept(now)) return undefined;
    this.queue.delete(first.value);
    return first.value;
  }

  /** When the queue's head could next go; undefined when it is empty. */
  nextAt(now: number): number | undefined {
    return this.queue.size ? this.bucket.nextTokenAt(now) : undefined;
  }

  /** kube's SwapLimiter: a new bucket for a new rate, drained when the old one had no token left. */
  swapLimiter(qps: number, now: number): void {
    if (this.bucket.qps === qps) return;
    const fresh = new TokenBucket(qps);
    if (qps > 0 && !this.bucket.tryAccept(now)) fresh.tryAccept(now);
    this.bucket = fresh;
  }
}

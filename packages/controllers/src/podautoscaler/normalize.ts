/**
 * What the HPA controller does with a metrics' recommendation before
 * scaling (kube's normalizeDesiredReplicas and ...WithBehaviors), and the
 * history it keeps per HPA for it, in cluster time:
 *
 * - stabilization: a scale-down goes no lower than the highest
 *   recommendation of the last 5 min (`--horizontal-pod-autoscaler-downscale-stabilization`,
 *   or `behavior.scaleDown.stabilizationWindowSeconds`); with a behavior, a
 *   scale-up goes no higher than the lowest of its own window;
 * - limits: without a behavior, at most max(2 x current, 4) at once, and
 *   within min/max; with one, its policies (Pods or Percent per period, the
 *   Max, Min or Disabled of them) bound the change against the scale events
 *   of each period.
 */
import type * as autoscalingv2 from 'kubernetes-types/autoscaling/v2.js';

/** kube's default `--horizontal-pod-autoscaler-downscale-stabilization`. */
export const downscaleStabilizationMs = 5 * 60_000;

type Rules = autoscalingv2.HPAScalingRules;

/** The conditions normalizing sets: AbleToScale's reason and message, and ScalingLimited. */
export interface Normalized {
  replicas: number;
  ableToScale: { reason: string; message: string };
  scalingLimited: { limited: boolean; reason: string; message: string };
}

interface Timestamped {
  value: number;
  at: number;
  outdated?: boolean;
}

const withinRange = { reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' };

/** Per-HPA recommendations and scale events. */
export class ReplicaNormalizer {
  private readonly recommendations = new Map<string, Timestamped[]>();
  private readonly scaleUpEvents = new Map<string, Timestamped[]>();
  private readonly scaleDownEvents = new Map<string, Timestamped[]>();

  constructor(private readonly now: () => number) {}

  /** kube's recordInitialRecommendation: the first sight of an HPA counts its current replicas as a recommendation. */
  recordInitial(key: string, currentReplicas: number): void {
    if (!this.recommendations.has(key)) this.recommendations.set(key, [{ value: currentReplicas, at: this.now() }]);
  }

  /** Forgets a deleted HPA. */
  forget(key: string): void {
    this.recommendations.delete(key);
    this.scaleUpEvents.delete(key);
    this.scaleDownEvents.delete(key);
  }

  /** The replicas to scale to, from the metrics' `desired`. */
  normalize(key: string, behavior: autoscalingv2.HorizontalPodAutoscalerBehavior | undefined, current: number, desired: number, min: number, max: number): Normalized {
    if (!behavior) return this.normalizeWithoutBehavior(key, current, desired, min, max);
    const scaleDown: Rules = { ...behavior.scaleDown, stabilizationWindowSeconds: behavior.scaleDown?.stabilizationWindowSeconds ?? downscaleStabilizationMs / 1000 };
    const scaleUp: Rules = behavior.scaleUp ?? {};
    const stabilized = this.stabilizeWithBehaviors(key, current, desired, (scaleUp.stabilizationWindowSeconds ?? 0) * 1000, (scaleDown.stabilizationWindowSeconds ?? 0) * 1000);
    const ableToScale =
      stabilized.replicas !== desired ? { reason: stabilized.reason, message: stabilized.message } : { reason: 'ReadyForNewScale', message: 'recommended size matches current size' };
    const limited = this.limitByRate(key, current, stabilized.replicas, min, max, scaleUp, scaleDown);
    return { replicas: limited.replicas, ableToScale, scalingLimited: { limited: limited.replicas !== stabilized.replicas, reason: limited.reason, message: limited.message } };
  }

  /** kube's storeScaleEvent: remembers a change for the behavior's policies (only with a behavior). */
  recordScale(key: string, behavior: autoscalingv2.HorizontalPodAutoscalerBehavior | undefined, previous: number, next: number): void {
    if (!behavior || previous === next) return;
    const up = next > previous;
    const rules = up ? behavior.scaleUp : behavior.scaleDown;
    const longest = Math.max(0, ...(rules?.policies ?? []).map((p) => p.periodSeconds)) * 1000;
    const store = up ? this.scaleUpEvents : this.scaleDownEvents;
    const events = store.get(key) ?? [];
    const now = this.now();
    for (const e of events) if (e.at + longest < now) e.outdated = true;
    const event = { value: Math.abs(next - previous), at: now };
    const slot = events.findIndex((e) => e.outdated);
    if (slot >= 0) events[slot] = event;
    else events.push(event);
    store.set(key, events);
  }

  private normalizeWithoutBehavior(key: string, current: number, desired: number, min: number, max: number): Normalized {
    const stabilized = this.stabilize(key, desired);
    const ableToScale =
      stabilized !== desired
        ? { reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' }
        : { reason: 'ReadyForNewScale', message: 'recommended size matches current size' };
    // kube's convertDesiredReplicasWithRules: never more than double (at least 4) at once.
    const scaleUpLimit = Math.max(2 * current, 4);
    let upper = max;
    let limit = { reason: 'TooManyReplicas', message: 'the desired replica count is more than the maximum replica count' };
    if (max > scaleUpLimit) {
      upper = scaleUpLimit;
      limit = { reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' };
    }
    let replicas = stabilized;
    if (stabilized < min) {
      replicas = min;
      limit = { reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' };
    } else if (stabilized > upper) replicas = upper;
    else limit = withinRange;
    return { replicas, ableToScale, scalingLimited: { limited: replicas !== stabilized, ...limit } };
  }

  /** kube's stabilizeRecommendation: the highest recommendation within the window, recording this one. */
  private stabilize(key: string, desired: number): number {
    const now = this.now();
    const cutoff = now - downscaleStabilizationMs;
    const recs = this.recommendations.get(key) ?? [];
    let highest = desired;
    let old = -1;
    recs.forEach((r, i) => {
      if (r.at < cutoff) old = i;
      else if (r.value > highest) highest = r.value;
    });
    this.record(recs, old, { value: desired, at: now });
    this.recommendations.set(key, recs);
    return highest;
  }

  /** kube's stabilizeRecommendationWithBehaviors. */
  private stabilizeWithBehaviors(key: string, current: number, desired: number, upWindowMs: number, downWindowMs: number): { replicas: number; reason: string; message: string } {
    const now = this.now();
    const upCutoff = now - upWindowMs;
    const downCutoff = now - downWindowMs;
    let up = desired;
    let down = desired;
    let old = -1;
    const recs = this.recommendations.get(key) ?? [];
    recs.forEach((r, i) => {
      if (r.at > upCutoff) up = Math.min(r.value, up);
      if (r.at > downCutoff) down = Math.max(r.value, down);
      if (r.at < upCutoff && r.at < downCutoff) old = i;
    });
    const replicas = Math.min(Math.max(current, up), down);
    this.record(recs, old, { value: desired, at: now });
    this.recommendations.set(key, recs);
    return desired >= current
      ? { replicas, reason: 'ScaleUpStabilized', message: 'recent recommendations were lower than current one, applying the lowest recent recommendation' }
      : { replicas, reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' };
  }

  private record(recs: Timestamped[], oldIndex: number, rec: Timestamped): void {
    if (oldIndex >= 0) recs[oldIndex] = rec;
    else recs.push(rec);
  }

  /** The replicas added (or removed) in the last `periodSeconds`. */
  private changeInPeriod(events: Timestamped[] | undefined, periodSeconds: number): number {
    const cutoff = this.now() - periodSeconds * 1000;
    return (events ?? []).filter((e) => e.at > cutoff).reduce((sum, e) => sum + e.value, 0);
  }

  /** kube's convertDesiredReplicasWithBehaviorRate. */
  private limitByRate(key: string, current: number, desired: number, min: number, max: number, scaleUp: Rules, scaleDown: Rules): { replicas: number; reason: string; message: string } {
    const ups = this.scaleUpEvents.get(key);
    const downs = this.scaleDownEvents.get(key);
    const periodStart = (periodSeconds: number): number => current - this.changeInPeriod(ups, periodSeconds) + this.changeInPeriod(downs, periodSeconds);
    if (desired > current) {
      let limit = current;
      if (scaleUp.selectPolicy !== 'Disabled') {
        const proposals = (scaleUp.policies ?? []).map((p) => {
          const start = periodStart(p.periodSeconds);
          return p.type === 'Pods' ? start + p.value : Math.ceil(start * (1 + p.value / 100));
        });
        limit = scaleUp.selectPolicy === 'Min' ? Math.min(...proposals) : Math.max(...proposals);
      }
      limit = Math.max(limit, current);
      const [upper, why] =
        max > limit
          ? [limit, { reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' }]
          : [max, { reason: 'TooManyReplicas', message: 'the desired replica count is more than the maximum replica count' }];
      if (desired > upper) return { replicas: upper, ...why };
    } else if (desired < current) {
      let limit = current;
      if (scaleDown.selectPolicy !== 'Disabled') {
        const proposals = (scaleDown.policies ?? []).map((p) => {
          const start = periodStart(p.periodSeconds);
          return p.type === 'Pods' ? start - p.value : Math.trunc(start * (1 - p.value / 100));
        });
        limit = scaleDown.selectPolicy === 'Min' ? Math.max(...proposals) : Math.min(...proposals);
      }
      limit = Math.min(limit, current);
      const [lower, why] =
        min < limit
          ? [limit, { reason: 'ScaleDownLimit', message: 'the desired replica count is decreasing faster than the maximum scale rate' }]
          : [min, { reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' }];
      if (desired < lower) return { replicas: lower, ...why };
    }
    return { replicas: desired, ...withinRange };
  }
}

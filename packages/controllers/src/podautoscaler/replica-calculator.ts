/**
 * kube's ReplicaCalculator (pkg/controller/podautoscaler/replica_calculator.go):
 * from per-pod samples to a replica count, `ceil(ratio * pods)` where ratio
 * is usage over target, unless within the tolerance (0.1) of 1.
 *
 * Pods are grouped first: being deleted or Failed are ignored, Pending are
 * unready, pods without a sample are missing, and, for CPU, pods not yet
 * ready (or whose sample predates their readiness, in their first 5 min) are
 * unready. Missing pods are then assumed at 100% of target when scaling
 * down and at 0 when scaling up, unready pods at 0 when scaling up, so that
 * neither pushes a change further; a change those assumptions reverse or
 * bring within tolerance is dropped.
 */
import { timeOf } from '../clock.js';
import type { PodObject } from '../objects.js';
import { podReadyCondition } from '../pod/pod-util.js';
import { milliValue } from '../quantity.js';
import type { PodMetric } from './metrics.js';

/** kube's `--horizontal-pod-autoscaler-tolerance`. */
export const tolerance = 0.1;
/** kube's `--horizontal-pod-autoscaler-cpu-initialization-period`. */
const cpuInitializationPeriodMs = 5 * 60_000;
/** kube's `--horizontal-pod-autoscaler-initial-readiness-delay`. */
const initialReadinessDelayMs = 30_000;

/** An error kube's calculator returns; its message goes into the HPA's condition. */
export class MetricsError extends Error {}

interface Grouped {
  readyPodCount: number;
  unready: Set<string>;
  missing: Set<string>;
  ignored: Set<string>;
}

/** kube's groupPods. */
function groupPods(pods: readonly PodObject[], metrics: Map<string, PodMetric>, resource: string, now: number): Grouped {
  const g: Grouped = { readyPodCount: 0, unready: new Set(), missing: new Set(), ignored: new Set() };
  for (const pod of pods) {
    const name = pod.metadata.name!;
    if (pod.metadata.deletionTimestamp || pod.status?.phase === 'Failed') {
      g.ignored.add(name);
      continue;
    }
    if (pod.status?.phase === 'Pending') {
      g.unready.add(name);
      continue;
    }
    const metric = metrics.get(name);
    if (!metric) {
      g.missing.add(name);
      continue;
    }
    if (resource === 'cpu') {
      const ready = podReadyCondition(pod);
      const started = timeOf(pod.status?.startTime);
      const transition = timeOf(ready?.lastTransitionTime) ?? 0;
      let unready: boolean;
      if (!ready || started === undefined) unready = true;
      else if (started + cpuInitializationPeriodMs > now) unready = ready.status === 'False' || metric.timestamp < transition + metric.window;
      else unready = ready.status === 'False' && started + initialReadinessDelayMs > transition;
      if (unready) {
        g.unready.add(name);
        continue;
      }
    }
    g.readyPodCount++;
  }
  return g;
}

function withoutPods(metrics: Map<string, PodMetric>, ...sets: Set<string>[]): Map<string, PodMetric> {
  const out = new Map(metrics);
  for (const s of sets) for (const name of s) out.delete(name);
  return out;
}

const noMetrics = 'did not receive metrics for targeted pods (pods might be unready)';

/**
 * The shared tail of both calculations: `ratioOf` gives usage over target for
 * a set of samples; `assumeFull(pod)` is what a missing pod counts when scaling down.
 */
function replicasFromRatio(
  currentReplicas: number,
  metrics: Map<string, PodMetric>,
  g: Grouped,
  ratio: number,
  ratioOf: (m: Map<string, PodMetric>) => number,
  assumeFull: (pod: string) => number,
): number {
  const scaleUpWithUnready = g.unready.size > 0 && ratio > 1;
  if (!scaleUpWithUnready && g.missing.size === 0) {
    if (Math.abs(1 - ratio) <= tolerance) return currentReplicas;
    return Math.ceil(ratio * g.readyPodCount);
  }
  const filled = new Map(metrics);
  const sample = (value: number): PodMetric => ({ value, timestamp: 0, window: 0 });
  if (g.missing.size > 0) {
    if (ratio < 1) for (const pod of g.missing) filled.set(pod, sample(assumeFull(pod)));
    else if (ratio > 1) for (const pod of g.missing) filled.set(pod, sample(0));
  }
  if (scaleUpWithUnready) for (const pod of g.unready) filled.set(pod, sample(0));
  const newRatio = ratioOf(filled);
  if (Math.abs(1 - newRatio) <= tolerance || (ratio < 1 && newRatio > 1) || (ratio > 1 && newRatio < 1)) return currentReplicas;
  const proposed = Math.ceil(newRatio * filled.size);
  if ((newRatio < 1 && proposed > currentReplicas) || (newRatio > 1 && proposed < currentReplicas)) return currentReplicas;
  return proposed;
}

/**
 * Each pod's request of `resource` in thousandths: the sum over its containers
 * and sidecars, or only the one named `container` (kube's calculatePodRequests).
 */
function podRequests(pods: readonly PodObject[], resource: string, container: string | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const pod of pods) {
    let sum = 0;
    for (const c of runningContainers(pod)) {
      if (container !== undefined && c.name !== container) continue;
      const request = milliValue(c.resources?.requests?.[resource]);
      if (request === undefined) throw new MetricsError(`missing request for ${resource} in container ${c.name} of Pod ${pod.metadata.name}`);
      sum += request;
    }
    out.set(pod.metadata.name!, sum);
  }
  return out;
}

/** A pod's containers and restartable init containers (sidecars): those that run beside each other and report metrics. */
export function runningContainers(pod: PodObject): NonNullable<NonNullable<PodObject['spec']>['containers']> {
  const sidecars = (pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always');
  return [...(pod.spec?.containers ?? []), ...sidecars];
}

/** kube's GetResourceUtilizationRatio: total usage over total requests, as a whole percentage, against the target. */
function utilizationRatio(metrics: Map<string, PodMetric>, requests: Map<string, number>, target: number): { ratio: number; utilization: number; raw: number } {
  let usage = 0;
  let requested = 0;
  let entries = 0;
  for (const [pod, m] of metrics) {
    const request = requests.get(pod);
    if (request === undefined) continue;
    usage += m.value;
    requested += request;
    entries++;
  }
  if (requested === 0) throw new MetricsError('no metrics returned matched known pods');
  const utilization = Math.trunc((usage * 100) / requested);
  return { ratio: utilization / target, utilization, raw: Math.trunc(usage / entries) };
}

/** kube's GetResourceReplicas: a Utilization target (percent of requests), of the whole pod or of one `container`. */
export function resourceUtilizationReplicas(
  currentReplicas: number,
  targetUtilization: number,
  resource: string,
  pods: readonly PodObject[],
  metrics: Map<string, PodMetric>,
  now: number,
  container?: string,
): { replicas: number; utilization: number; rawAverage: number } {
  if (pods.length === 0) throw new MetricsError('no pods returned by selector while calculating replica count');
  const g = groupPods(pods, metrics, resource, now);
  const counted = withoutPods(metrics, g.ignored, g.unready);
  const requests = podRequests(pods, resource, container);
  if (counted.size === 0) throw new MetricsError(noMetrics);
  const { ratio, utilization, raw } = utilizationRatio(counted, requests, targetUtilization);
  const replicas = replicasFromRatio(currentReplicas, counted, g, ratio, (m) => utilizationRatio(m, requests, targetUtilization).ratio, (pod) => requests.get(pod) ?? 0);
  return { replicas, utilization, rawAverage: raw };
}

/** kube's calcPlainMetricReplicas: an AverageValue target per pod (resource usage, or a pods metric). */
export function averageValueReplicas(
  currentReplicas: number,
  targetAverage: number,
  resource: string,
  pods: readonly PodObject[],
  metrics: Map<string, PodMetric>,
  now: number,
): { replicas: number; average: number } {
  if (pods.length === 0) throw new MetricsError('no pods returned by selector while calculating replica count');
  const g = groupPods(pods, metrics, resource, now);
  const counted = withoutPods(metrics, g.ignored, g.unready);
  if (counted.size === 0) throw new MetricsError(noMetrics);
  const averageOf = (m: Map<string, PodMetric>): number => [...m.values()].reduce((s, x) => s + x.value, 0) / m.size;
  const ratio = averageOf(counted) / targetAverage;
  const replicas = replicasFromRatio(currentReplicas, counted, g, ratio, (m) => averageOf(m) / targetAverage, () => targetAverage);
  return { replicas, average: Math.trunc(averageOf(counted)) };
}

/**
 * kube's getUsageRatioReplicaCount, for Object and External Value targets:
 * the ratio applied to the ready pods (or, from zero replicas, alone).
 */
export function usageRatioReplicas(currentReplicas: number, ratio: number, readyPods: number): number {
  if (currentReplicas === 0) return Math.ceil(ratio);
  if (Math.abs(1 - ratio) <= tolerance) return currentReplicas;
  return Math.ceil(ratio * readyPods);
}

/** kube's AverageValue targets of Object and External metrics: the total over the target per pod. */
export function totalOverAverageReplicas(currentReplicas: number, usage: number, targetAverage: number): number {
  const ratio = usage / (targetAverage * currentReplicas);
  return Math.abs(1 - ratio) > tolerance ? Math.ceil(usage / targetAverage) : currentReplicas;
}

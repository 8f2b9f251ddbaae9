/**
 * The simulated metrics APIs the HPA controller reads in place of
 * metrics-server and a custom-metrics adapter: annotations whose value is a
 * quantity (`250m`, `12`, `1.5k`), read at each sync.
 *
 * | metric source | annotation | where |
 * |---|---|---|
 * | Resource `cpu` / `memory` | `sim.operant.dev/cpu-usage`, `sim.operant.dev/memory-usage` (the pod's total usage) | each target pod, else the HPA (then every pod reports it) |
 * | ContainerResource `cpu` / `memory` of container `<c>` | `sim.operant.dev/cpu-usage.<c>`, `sim.operant.dev/memory-usage.<c>` (that container's usage) | each target pod, else the HPA |
 * | Pods `<name>` | `sim.operant.dev/metric.<name>` | each target pod, else the HPA |
 * | Object `<name>` | `sim.operant.dev/metric.<name>` | the described object |
 * | External `<name>` | `sim.operant.dev/external-metric.<name>` | the HPA |
 *
 * Values are read in thousandths (kube's MilliValue), as kube's metrics client
 * reads them. A sample is stamped with the time it is read and a 15 s window
 * (metrics-server's resolution), which the CPU readiness rules look at.
 */
import type { KubeObject } from '@operant/runtime';
import { milliValue } from '../quantity.js';
import type { PodObject } from '../objects.js';

/** Pod (or HPA) annotation: the pod's CPU usage, e.g. `250m`. */
export const cpuUsageAnnotation = 'sim.operant.dev/cpu-usage';
/** Pod (or HPA) annotation: the pod's memory usage, e.g. `300Mi`. */
export const memoryUsageAnnotation = 'sim.operant.dev/memory-usage';
/** Prefix of a pod (or HPA, or described object) annotation holding a custom metric: `sim.operant.dev/metric.requests-per-second`. */
export const customMetricAnnotationPrefix = 'sim.operant.dev/metric.';
/** Prefix of an HPA annotation holding an external metric: `sim.operant.dev/external-metric.queue-length`. */
export const externalMetricAnnotationPrefix = 'sim.operant.dev/external-metric.';

/** metrics-server's resolution: the window a resource sample covers. */
export const metricWindowMs = 15_000;

/** One pod's sample, in thousandths of the unit. */
export interface PodMetric {
  value: number;
  timestamp: number;
  window: number;
}

/** The annotation that holds a resource's usage; undefined for resources not simulated. */
export function resourceAnnotation(resource: string): string | undefined {
  return resource === 'cpu' ? cpuUsageAnnotation : resource === 'memory' ? memoryUsageAnnotation : undefined;
}

/** The annotation that holds one container's usage of a resource (`sim.operant.dev/cpu-usage.app`); undefined for resources not simulated. */
export function containerResourceAnnotation(resource: string, container: string): string | undefined {
  const annotation = resourceAnnotation(resource);
  return annotation === undefined ? undefined : `${annotation}.${container}`;
}

/** Each pod's value of `annotation` (the pod's own, else the HPA's), skipping pods with neither or an unreadable one. */
export function podMetrics(pods: readonly PodObject[], annotation: string, hpa: KubeObject, now: number): Map<string, PodMetric> {
  const fallback = hpa.metadata.annotations?.[annotation];
  const out = new Map<string, PodMetric>();
  for (const pod of pods) {
    const value = milliValue(pod.metadata.annotations?.[annotation] ?? fallback);
    if (value !== undefined) out.set(pod.metadata.name!, { value, timestamp: now, window: metricWindowMs });
  }
  return out;
}

/** An object's value of `annotation`, in thousandths, or undefined. */
export function objectMetric(obj: KubeObject | undefined, annotation: string): number | undefined {
  return milliValue(obj?.metadata.annotations?.[annotation]);
}

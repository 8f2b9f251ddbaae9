/**
 * One metric of an HPA to a replica proposal and its status (kube's
 * computeReplicasForMetric and computeStatusFor*Metric), reading the
 * simulated metrics of metrics.ts. A metric that cannot be computed gives
 * the condition kube sets (ScalingActive False, FailedGet<Source>Metric) and
 * the error it reports, worded as kube words them.
 */
import { canonicalQuantity, labelSelectorFromObject } from '@operant/apimachinery';
import { ignoreNotFound, type Client, type KubeObject } from '@operant/runtime';
import type * as autoscalingv2 from 'kubernetes-types/autoscaling/v2.js';
import { kindOf } from '../custom-kinds.js';
import type { PodObject } from '../objects.js';
import { milliValue } from '../quantity.js';
import { containerResourceAnnotation, customMetricAnnotationPrefix, externalMetricAnnotationPrefix, objectMetric, podMetrics, resourceAnnotation } from './metrics.js';
import { averageValueReplicas, MetricsError, resourceUtilizationReplicas, runningContainers, totalOverAverageReplicas, usageRatioReplicas } from './replica-calculator.js';

type MetricSpec = autoscalingv2.MetricSpec;
type MetricStatus = autoscalingv2.MetricStatus;

/** What one metric proposes. */
export interface MetricProposal {
  replicas: number;
  /** How kube names the metric in its rescale reason (`cpu resource utilization (percentage of request)`). */
  name: string;
  status: MetricStatus;
}

/**
 * A metric that could not be computed: `reason` and `detail` go into the
 * ScalingActive condition and kube's event of that reason; the message
 * wraps the detail as kube's computeReplicasForMetric does.
 */
export class MetricFailure extends Error {
  constructor(
    readonly reason: string,
    readonly detail: string,
    message: string,
  ) {
    super(message);
  }

  /** The ScalingActive condition's message. */
  get conditionMessage(): string {
    return `the HPA was unable to compute the replica count: ${this.detail}`;
  }
}

/** What computing a metric reads. */
export interface MetricInputs {
  client: Client;
  hpa: KubeObject;
  namespace: string;
  /** The target's pods (those its scale's selector matches). */
  pods: PodObject[];
  specReplicas: number;
  now: number;
}

const milli = (n: number): string => canonicalQuantity(`${n}m`);

/** kube's getUnableComputeReplicaCountCondition's cause, and the error wrapped as kube wraps it. */
function failure(reason: string, err: unknown, wrap: (m: string) => string): MetricFailure {
  const cause = (err as Error).message;
  return new MetricFailure(reason, cause, wrap(cause));
}

/** kube's computeReplicasForMetric for one spec. Throws {@link MetricFailure}. */
export async function computeReplicasForMetric(spec: MetricSpec, inputs: MetricInputs): Promise<MetricProposal> {
  switch (spec.type) {
    case 'Resource':
      return resourceMetric(spec.resource!, inputs);
    case 'ContainerResource':
      return containerResourceMetric(spec.containerResource!, inputs);
    case 'Pods':
      return podsMetric(spec.pods!, inputs);
    case 'Object':
      return objectMetricProposal(spec.object!, inputs);
    case 'External':
      return externalMetric(spec.external!, inputs);
    default: {
      const message = `unknown metric source type "${spec.type}"`;
      throw new MetricFailure('InvalidMetricSourceType', message, message);
    }
  }
}

function resourceMetric(source: autoscalingv2.ResourceMetricSource, inputs: MetricInputs): MetricProposal {
  const resource = source.name;
  try {
    const annotation = resourceAnnotation(resource);
    const metrics = (): ReturnType<typeof podMetrics> => (annotation ? podMetrics(inputs.pods, annotation, inputs.hpa, inputs.now) : new Map());
    const { current, replicas, name } = resourceProposal(resource, source.target, inputs, metrics);
    return { replicas, name, status: { type: 'Resource', resource: { name: resource, current } } };
  } catch (err) {
    if (!(err instanceof MetricsError)) throw err;
    throw failure('FailedGetResourceMetric', err, (m) => `failed to get ${resource} resource metric value: ${m}`);
  }
}

function containerResourceMetric(source: autoscalingv2.ContainerResourceMetricSource, inputs: MetricInputs): MetricProposal {
  const { name: resource, container } = source;
  try {
    const metrics = (): ReturnType<typeof podMetrics> => {
      const annotation = containerResourceAnnotation(resource, container);
      // metrics-server reports the containers of running pods.
      const missing = inputs.pods.find((pod) => pod.status?.phase === 'Running' && !runningContainers(pod).some((c) => c.name === container));
      if (missing) throw new MetricsError(`failed to get container metrics: container ${container} not present in metrics for pod ${inputs.namespace}/${missing.metadata.name}`);
      return annotation ? podMetrics(inputs.pods, annotation, inputs.hpa, inputs.now) : new Map();
    };
    const { current, replicas, name } = resourceProposal(resource, source.target, inputs, metrics, container);
    return { replicas, name, status: { type: 'ContainerResource', containerResource: { name: resource, container, current } } };
  } catch (err) {
    if (!(err instanceof MetricsError)) throw err;
    throw failure('FailedGetContainerResourceMetric', err, (m) => `failed to get ${container} container metric value: ${m}`);
  }
}

/**
 * kube's computeStatusForResourceMetricGeneric: the replicas a resource's
 * samples (of whole pods, or of one container) propose against an
 * AverageValue or Utilization target, and the current value for the status.
 */
function resourceProposal(
  resource: string,
  target: autoscalingv2.MetricTarget,
  inputs: MetricInputs,
  samples: () => ReturnType<typeof podMetrics>,
  container?: string,
): { replicas: number; name: string; current: autoscalingv2.MetricValueStatus } {
  const metrics = (): ReturnType<typeof podMetrics> => {
    let found: ReturnType<typeof podMetrics>;
    try {
      found = samples();
    } catch (err) {
      if (err instanceof MetricsError) throw new MetricsError(`unable to get metrics for resource ${resource}: ${err.message}`);
      throw err;
    }
    if (found.size === 0) throw new MetricsError(`unable to get metrics for resource ${resource}: no metrics returned from resource metrics API`);
    return found;
  };
  if (target.averageValue !== undefined) {
    const { replicas, average } = inner(`failed to get ${resource} usage`, () =>
      averageValueReplicas(inputs.specReplicas, milliValue(target.averageValue) ?? 0, resource, inputs.pods, metrics(), inputs.now),
    );
    return { replicas, name: `${resource} resource`, current: { averageValue: milli(average) } };
  }
  if (target.averageUtilization === undefined) {
    throw new MetricsError('invalid resource metric source: neither an average utilization target nor an average value (usage) target was set');
  }
  const { replicas, utilization, rawAverage } = inner(`failed to get ${resource} utilization`, () =>
    resourceUtilizationReplicas(inputs.specReplicas, target.averageUtilization!, resource, inputs.pods, metrics(), inputs.now, container),
  );
  const name = container === undefined ? `${resource} resource utilization (percentage of request)` : `${resource} container resource utilization (percentage of request)`;
  return { replicas, name, current: { averageUtilization: utilization, averageValue: milli(rawAverage) } };
}

/** Runs a calculation, prefixing its error as kube's computeStatusForResourceMetricGeneric does. */
function inner<T>(prefix: string, calc: () => T): T {
  try {
    return calc();
  } catch (err) {
    if (err instanceof MetricsError) throw new MetricsError(`${prefix}: ${err.message}`);
    throw err;
  }
}

function podsMetric(source: autoscalingv2.PodsMetricSource, inputs: MetricInputs): MetricProposal {
  const name = source.metric.name;
  try {
    const metrics = podMetrics(inputs.pods, customMetricAnnotationPrefix + name, inputs.hpa, inputs.now);
    if (metrics.size === 0) throw new MetricsError(`unable to get metric ${name}: no metrics returned from custom metrics API`);
    const { replicas, average } = averageValueReplicas(inputs.specReplicas, milliValue(source.target.averageValue) ?? 0, '', inputs.pods, metrics, inputs.now);
    return { replicas, name: `pods metric ${name}`, status: { type: 'Pods', pods: { metric: source.metric, current: { averageValue: milli(average) } } } };
  } catch (err) {
    if (!(err instanceof MetricsError)) throw err;
    throw failure('FailedGetPodsMetric', err, (m) => `failed to get pods metric value: ${m}`);
  }
}

/** kube's getReadyPodsCount: Running and Ready pods of the target. */
function readyPods(pods: readonly PodObject[]): number {
  if (pods.length === 0) throw new MetricsError('no pods returned by selector while calculating replica count');
  return pods.filter((p) => p.status?.phase === 'Running' && (p.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True')).length;
}

/** A Value or AverageValue target of a single number (Object and External metrics). */
function valueProposal(usage: number, target: autoscalingv2.MetricTarget, inputs: MetricInputs): { replicas: number; current: autoscalingv2.MetricValueStatus } {
  if (target.type === 'Value' && target.value !== undefined) {
    const ratio = usage / (milliValue(target.value) ?? 1);
    return { replicas: usageRatioReplicas(inputs.specReplicas, ratio, inputs.specReplicas === 0 ? 0 : readyPods(inputs.pods)), current: { value: milli(usage) } };
  }
  if (target.type === 'AverageValue' && target.averageValue !== undefined) {
    const average = milliValue(target.averageValue) ?? 1;
    const replicas = totalOverAverageReplicas(inputs.specReplicas, usage, average);
    return { replicas, current: { averageValue: milli(Math.trunc(usage / Math.max(inputs.specReplicas, 1))) } };
  }
  throw new MetricsError('invalid object metric source: neither a value target nor an average value target was set');
}

async function objectMetricProposal(source: autoscalingv2.ObjectMetricSource, inputs: MetricInputs): Promise<MetricProposal> {
  const name = source.metric.name;
  const ref = source.describedObject;
  try {
    let described: KubeObject | undefined;
    try {
      described = await inputs.client.get(await kindOf(inputs.client, ref.apiVersion, ref.kind), ref.name, { namespace: inputs.namespace }).catch(ignoreNotFound);
    } catch (err) {
      throw new MetricsError((err as Error).message);
    }
    const usage = objectMetric(described, customMetricAnnotationPrefix + name);
    if (usage === undefined) throw new MetricsError(`unable to get metric ${name}: no metrics returned from custom metrics API`);
    const { replicas, current } = valueProposal(usage, source.target, inputs);
    return { replicas, name: `${ref.kind} metric ${name}`, status: { type: 'Object', object: { metric: source.metric, describedObject: ref, current } } };
  } catch (err) {
    if (!(err instanceof MetricsError)) throw err;
    throw failure('FailedGetObjectMetric', err, (m) => `failed to get object metric value: ${m}`);
  }
}

function externalMetric(source: autoscalingv2.ExternalMetricSource, inputs: MetricInputs): MetricProposal {
  const name = source.metric.name;
  try {
    const usage = objectMetric(inputs.hpa, externalMetricAnnotationPrefix + name);
    const selector = source.metric.selector ? labelSelectorFromObject(source.metric.selector as Parameters<typeof labelSelectorFromObject>[0]).toString() : 'nil';
    if (usage === undefined) throw new MetricsError(`unable to get external metric ${inputs.namespace}/${name}/${selector}: no metrics returned from external metrics API`);
    const { replicas, current } = valueProposal(usage, source.target, inputs);
    return { replicas, name: `external metric ${name}(${selector})`, status: { type: 'External', external: { metric: source.metric, current } } };
  } catch (err) {
    if (!(err instanceof MetricsError)) throw err;
    throw failure('FailedGetExternalMetric', err, (m) => `failed to get ${name} external metric value: ${m}`);
  }
}

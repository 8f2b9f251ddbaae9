/**
 * autoscaling/v1 HorizontalPodAutoscalers are stored as autoscaling/v2 ones,
 * as kube-apiserver stores them, and converted as kube's
 * pkg/apis/autoscaling/v1/conversion.go converts them: v1 has only a CPU
 * utilization target, so the rest of a v2 object (other metrics, current
 * metrics, behavior, conditions) rides in kube's `autoscaling.alpha.kubernetes.io/*`
 * annotations of the v1 object and comes back from them.
 *
 * Coming back, kube unmarshals each annotation into its typed structs: unknown
 * fields are dropped, and an annotation that does not decode (not JSON, or a
 * value of the wrong type) is ignored whole, with no error (kube 1.18+,
 * kubernetes#89963: "only move well-formed data from annotations to fields").
 * Here each annotation's content, once in v2's shape, is decoded against v2's
 * schema, the types v1's carry over to.
 */
import { deepCopy, isJsonObject, type KubeObject, type OpenApiSchema } from '@operant/apimachinery';
import type { StorageConversion } from './resource-store.js';
import { asObj } from './defaults/json-fields.js';
import { resolveBuiltinSchema, resolveSchemaOnce, schemaRef } from '../openapi/builtin-schemas.js';
import { findTypeError } from '../openapi/type-check.js';
import { pruneUnknownFields } from '../openapi/unknown-fields.js';
import { canonicalizeQuantities } from '../openapi/quantities.js';
import { defaultHorizontalPodAutoscaler } from './defaults/autoscaling.js';

type Json = Record<string, unknown>;

const metricsAnnotation = 'autoscaling.alpha.kubernetes.io/metrics';
const currentMetricsAnnotation = 'autoscaling.alpha.kubernetes.io/current-metrics';
const behaviorAnnotation = 'autoscaling.alpha.kubernetes.io/behavior';
const conditionsAnnotation = 'autoscaling.alpha.kubernetes.io/conditions';
/** The v1 annotations that carry v2's status (the others carry its spec). */
export const v1StatusAnnotations: readonly string[] = [currentMetricsAnnotation, conditionsAnnotation];
/** kube's autoscaling.DefaultCPUUtilization. */
const defaultCpuUtilization = 80;

/** Drops the keys whose value is undefined (Go's omitempty on nil pointers). */
function compact(o: Json): Json {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

/** A v2 MetricSpec or MetricStatus (`part` target or current) in v1's flat shape. */
function metricToV1(metric: Json, part: 'target' | 'current'): Json {
  const prefix = part === 'target' ? 'target' : 'current';
  const type = metric.type;
  const out: Json = { type };
  const source = (key: string): Json => asObj(metric[key]);
  const value = (s: Json): Json => asObj(s[part]);
  switch (type) {
    case 'Resource':
    case 'ContainerResource': {
      const key = type === 'Resource' ? 'resource' : 'containerResource';
      const s = source(key);
      out[key] = compact({
        name: s.name,
        container: s.container,
        [`${prefix}AverageUtilization`]: value(s).averageUtilization,
        [`${prefix}AverageValue`]: value(s).averageValue,
      });
      break;
    }
    case 'Pods': {
      const s = source('pods');
      out.pods = compact({ metricName: asObj(s.metric).name, selector: asObj(s.metric).selector, [`${prefix}AverageValue`]: value(s).averageValue });
      break;
    }
    case 'Object': {
      const s = source('object');
      out.object = compact({
        target: s.describedObject,
        metricName: asObj(s.metric).name,
        selector: asObj(s.metric).selector,
        [`${prefix}Value`]: value(s).value,
        averageValue: value(s).averageValue,
      });
      break;
    }
    case 'External': {
      const s = source('external');
      out.external = compact({
        metricName: asObj(s.metric).name,
        metricSelector: asObj(s.metric).selector,
        [`${prefix}Value`]: value(s).value,
        [`${prefix}AverageValue`]: value(s).averageValue,
      });
      break;
    }
  }
  return out;
}

/** A v1 MetricSpec or MetricStatus back in v2's shape. */
function metricToV2(metric: Json, part: 'target' | 'current'): Json {
  const prefix = part === 'target' ? 'target' : 'current';
  const type = metric.type;
  const out: Json = { type };
  /** v2's MetricTarget (with its type) or MetricValueStatus. */
  const measure = (fields: Json): Json => {
    const m = compact({ ...fields });
    if (part === 'target') m.type = m.averageUtilization !== undefined ? 'Utilization' : m.averageValue !== undefined ? 'AverageValue' : 'Value';
    return m;
  };
  switch (type) {
    case 'Resource':
    case 'ContainerResource': {
      const key = type === 'Resource' ? 'resource' : 'containerResource';
      const s = asObj(metric[key]);
      out[key] = compact({
        name: s.name,
        container: s.container,
        [part]: measure({ averageUtilization: s[`${prefix}AverageUtilization`], averageValue: s[`${prefix}AverageValue`] }),
      });
      break;
    }
    case 'Pods': {
      const s = asObj(metric.pods);
      out.pods = { metric: compact({ name: s.metricName, selector: s.selector }), [part]: measure({ averageValue: s[`${prefix}AverageValue`] }) };
      break;
    }
    case 'Object': {
      const s = asObj(metric.object);
      out.object = compact({
        describedObject: s.target,
        metric: compact({ name: s.metricName, selector: s.selector }),
        [part]: measure({ value: s[`${prefix}Value`], averageValue: s.averageValue }),
      });
      break;
    }
    case 'External': {
      const s = asObj(metric.external);
      out.external = {
        metric: compact({ name: s.metricName, selector: s.metricSelector }),
        [part]: measure({ value: s[`${prefix}Value`], averageValue: s[`${prefix}AverageValue`] }),
      };
      break;
    }
  }
  return out;
}

const isCpuUtilization = (m: Json): boolean =>
  m.type === 'Resource' && asObj(m.resource).name === 'cpu' && asObj(asObj(m.resource).target).averageUtilization !== undefined;

/** Takes `key` out of `annotations` (kube drops the round-trip annotations after converting) and parses it; undefined when absent or not JSON. */
function takeAnnotation(annotations: Record<string, string>, key: string): unknown {
  const text = annotations[key];
  if (text === undefined) return undefined;
  delete annotations[key];
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const v2Schema = (definition: string): OpenApiSchema => ({ $ref: schemaRef(`io.k8s.api.autoscaling.v2.${definition}`) });
const v2List = (definition: string): OpenApiSchema => ({ type: 'array', items: v2Schema(definition) });

/**
 * `value` as decoding into the Go type of `schema` leaves it, in place (unknown
 * fields dropped, quantities canonical, nulls as Go reads them); undefined when
 * a value has the wrong type.
 */
function decodeAs<T>(value: T, schema: OpenApiSchema): T | undefined {
  if (findTypeError(value, schema, resolveBuiltinSchema, 'HorizontalPodAutoscaler') !== undefined) return undefined;
  pruneUnknownFields(value, schema, resolveBuiltinSchema);
  canonicalizeQuantities(value, schema, resolveBuiltinSchema);
  return value;
}

const metricSources = ['resource', 'containerResource', 'pods', 'object', 'external'];

/**
 * A v1 metrics annotation (`[]MetricSpec` or `[]MetricStatus`) in v2's shape, or
 * undefined when kube would not decode it. A v1 source that v2 carries over is
 * type-checked against v2's schema; the shape checked here is what the
 * conversion reads without carrying (a source that is not an object).
 */
function decodeMetrics(parsed: unknown, part: 'target' | 'current'): Json[] | undefined {
  if (parsed === null) return [];
  if (!Array.isArray(parsed)) return undefined;
  const wellShaped = parsed.every((m) => m === null || (isJsonObject(m) && metricSources.every((k) => m[k] === undefined || m[k] === null || isJsonObject(m[k]))));
  if (!wellShaped) return undefined;
  return decodeAs(parsed.map((m) => metricToV2(asObj(m), part)), v2List(part === 'target' ? 'MetricSpec' : 'MetricStatus'));
}

/** The conditions annotation (v1's conditions are v2's), or undefined when kube would not decode it. */
function decodeConditions(parsed: unknown): Json[] | undefined {
  if (parsed === null) return [];
  return Array.isArray(parsed) ? decodeAs(parsed as Json[], v2List('HorizontalPodAutoscalerCondition')) : undefined;
}

/**
 * The behavior annotation, or undefined when kube would not decode it or it
 * decodes to an empty behavior. kube writes it from its internal type, which
 * has no JSON tags (`{"ScaleUp":{"StabilizationWindowSeconds":0,...}}`), and
 * reads it back matching names regardless of case, as encoding/json does.
 */
function decodeBehavior(parsed: unknown): Json | undefined {
  if (!isJsonObject(parsed)) return undefined;
  const schema = v2Schema('HorizontalPodAutoscalerBehavior');
  foldKeyCase(parsed, schema);
  const behavior = decodeAs(parsed, schema);
  return behavior && (behavior.scaleUp !== undefined || behavior.scaleDown !== undefined) ? behavior : undefined;
}

/** Renames, in place, the keys of `value` that name a field of `schema` in another case, as encoding/json matches them. */
function foldKeyCase(value: unknown, schema: OpenApiSchema | undefined): void {
  const s = resolveSchemaOnce(schema, resolveBuiltinSchema);
  if (!s) return;
  if (Array.isArray(value)) {
    for (const item of value) foldKeyCase(item, s.items);
    return;
  }
  if (!isJsonObject(value) || !s.properties) return;
  const byLowerCase = new Map(Object.keys(s.properties).map((name) => [name.toLowerCase(), name]));
  for (const key of Object.keys(value)) {
    const name = s.properties[key] ? key : byLowerCase.get(key.toLowerCase());
    if (name !== undefined && name !== key && !Object.hasOwn(value, name)) {
      value[name] = value[key];
      delete value[key];
    }
    if (name !== undefined) foldKeyCase(value[name], s.properties[name]);
  }
}

/**
 * A v2 behavior as kube writes it into the v1 annotation: encoding/json of
 * the internal HorizontalPodAutoscalerBehavior, whose fields have no JSON tags
 * (conversion.go: "this is marshaling an internal type"). So the keys are the
 * Go field names, in the struct's order, every field present: a nil pointer or
 * slice is `null`, a missing int32 is 0.
 */
function behaviorInGoNames(behavior: Json): Json {
  const rules = (value: unknown): Json | null => {
    if (!isJsonObject(value)) return null;
    const policies = Array.isArray(value.policies)
      ? value.policies.map((raw) => {
          const p = asObj(raw);
          return { Type: p.type ?? '', Value: p.value ?? 0, PeriodSeconds: p.periodSeconds ?? 0 };
        })
      : null;
    return { StabilizationWindowSeconds: value.stabilizationWindowSeconds ?? null, SelectPolicy: value.selectPolicy ?? null, Policies: policies };
  };
  return { ScaleUp: rules(behavior.scaleUp), ScaleDown: rules(behavior.scaleDown) };
}

/** A stored autoscaling/v2 HorizontalPodAutoscaler as autoscaling/v1 serves it. */
export function hpaToV1(stored: KubeObject): KubeObject {
  const obj = deepCopy(stored);
  const spec = asObj(obj.spec);
  const status = asObj(obj.status);
  const annotations: Record<string, string> = { ...(obj.metadata.annotations ?? {}) };
  const metrics = Array.isArray(spec.metrics) ? (spec.metrics as Json[]) : [];
  const cpu = metrics.find(isCpuUtilization);
  const others = metrics.filter((m) => m !== cpu).map((m) => metricToV1(m, 'target'));
  if (others.length) annotations[metricsAnnotation] = JSON.stringify(others);
  const current = Array.isArray(status.currentMetrics) ? (status.currentMetrics as Json[]) : [];
  if (current.length) annotations[currentMetricsAnnotation] = JSON.stringify(current.map((m) => metricToV1(m, 'current')));
  if (spec.behavior !== undefined && spec.behavior !== null) annotations[behaviorAnnotation] = JSON.stringify(behaviorInGoNames(asObj(spec.behavior)));
  if (Array.isArray(status.conditions) && status.conditions.length) annotations[conditionsAnnotation] = JSON.stringify(status.conditions);
  const cpuStatus = current.find((m) => m.type === 'Resource' && asObj(m.resource).name === 'cpu');
  const v1: KubeObject = {
    ...obj,
    apiVersion: 'autoscaling/v1',
    kind: 'HorizontalPodAutoscaler',
    metadata: { ...obj.metadata, ...(Object.keys(annotations).length ? { annotations } : {}) },
    spec: compact({
      scaleTargetRef: spec.scaleTargetRef,
      minReplicas: spec.minReplicas,
      maxReplicas: spec.maxReplicas,
      targetCPUUtilizationPercentage: cpu ? asObj(asObj(cpu.resource).target).averageUtilization : undefined,
    }),
    status: compact({
      observedGeneration: status.observedGeneration,
      lastScaleTime: status.lastScaleTime,
      currentReplicas: status.currentReplicas ?? 0,
      desiredReplicas: status.desiredReplicas ?? 0,
      currentCPUUtilizationPercentage: cpuStatus ? asObj(asObj(cpuStatus.resource).current).averageUtilization : undefined,
    }),
  };
  if (!v1.metadata.annotations) delete v1.metadata.annotations;
  return v1;
}

/**
 * An autoscaling/v1 HorizontalPodAutoscaler in autoscaling/v2's shape, as kube's
 * conversion to its internal type leaves it: what kube validates. Without
 * other metrics or a CPU target it gets the conversion's CPU target of 80%;
 * v2's defaults are not applied (see {@link autoscalingV1Conversion}).
 */
export function hpaToV2(served: KubeObject): KubeObject {
  const obj = deepCopy(served);
  const spec = asObj(obj.spec);
  const status = asObj(obj.status);
  const annotations: Record<string, string> = { ...(obj.metadata.annotations ?? {}) };
  // The annotation's metrics, then v1's CPU target, in kube's order.
  const metrics: Json[] = decodeMetrics(takeAnnotation(annotations, metricsAnnotation), 'target') ?? [];
  if (typeof spec.targetCPUUtilizationPercentage === 'number') {
    metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: spec.targetCPUUtilizationPercentage } } });
  }
  // "autoscaling/v1 formerly had an implicit default applied in the controller": kube's conversion makes it explicit.
  if (metrics.length === 0) metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: defaultCpuUtilization } } });
  const current = decodeMetrics(takeAnnotation(annotations, currentMetricsAnnotation), 'current');
  const behavior = decodeBehavior(takeAnnotation(annotations, behaviorAnnotation));
  const conditions = decodeConditions(takeAnnotation(annotations, conditionsAnnotation));
  const currentMetrics = current ?? [];
  if (!currentMetrics.length && typeof status.currentCPUUtilizationPercentage === 'number') {
    currentMetrics.push({ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: status.currentCPUUtilizationPercentage } } });
  }
  const v2: KubeObject = {
    ...obj,
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { ...obj.metadata, annotations },
    spec: compact({ scaleTargetRef: spec.scaleTargetRef, minReplicas: spec.minReplicas, maxReplicas: spec.maxReplicas, metrics: metrics.length ? metrics : undefined, behavior }),
    status: compact({
      observedGeneration: status.observedGeneration,
      lastScaleTime: status.lastScaleTime,
      currentReplicas: status.currentReplicas,
      desiredReplicas: status.desiredReplicas ?? 0,
      currentMetrics: currentMetrics.length ? currentMetrics : undefined,
      conditions: conditions?.length ? conditions : undefined,
    }),
  };
  if (Object.keys(annotations).length === 0) delete v2.metadata.annotations;
  if (served.status === undefined) delete v2.status;
  return v2;
}

/**
 * How the autoscaling/v1 endpoint reads and writes the stored v2 objects. A
 * v1 write is stored with v2's defaults (a behavior filled in): kube stores
 * it without them, but applies them whenever it reads the v2 object back
 * from storage, so every read shows them, v1's annotation as well.
 */
export const autoscalingV1Conversion: StorageConversion = {
  storedAs: { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' },
  toStorage: (objs) =>
    objs.map((o) => {
      const v2 = hpaToV2(o);
      defaultHorizontalPodAutoscaler(v2);
      return v2;
    }),
  fromStorage: (objs) => objs.map(hpaToV1),
};

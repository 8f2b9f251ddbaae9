/**
 * The strategy of autoscaling HorizontalPodAutoscalers (v2, and v1 through
 * ./autoscaling-conversion.ts): kube's defaults, on the object in the version
 * it was sent in, and the checks of pkg/apis/autoscaling/validation users
 * hit, in kube's words, on the object in v2's shape (a v1 one converted
 * first, as kube validates its internal object).
 */
import { canonicalQuantity, fieldErrors, isDNS1123Label, type FieldError, type KubeObject } from '@operant/apimachinery';
import { pathSegmentProblems } from '../admission/policy-validation.js';
import { validateContainerResourceName } from './resource-names.js';
import { statusSubresourceStrategy, withStatus, type Strategy } from './strategy.js';
import { hpaToV2, v1StatusAnnotations } from './autoscaling-conversion.js';
import { defaultHorizontalPodAutoscaler } from './defaults/autoscaling.js';
import { asObj, isSet } from './defaults/json-fields.js';

type Json = Record<string, unknown>;

const metricTypes = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
const sourceField: Record<string, string> = { ContainerResource: 'containerResource', External: 'external', Object: 'object', Pods: 'pods', Resource: 'resource' };

/** kube's MaxStabilizationWindowSeconds and MaxPeriodSeconds. */
const maxStabilizationWindowSeconds = 3600;
const maxPeriodSeconds = 1800;
const selectPolicies = ['Disabled', 'Max', 'Min'];
const policyTypes = ['Percent', 'Pods'];

/** Whether a quantity is not positive (resource.Quantity's Sign() != 1); a quantity that does not parse is left to the schema. */
function notPositive(q: unknown): boolean {
  if (typeof q !== 'string' && typeof q !== 'number') return false;
  try {
    const c = canonicalQuantity(q);
    return c === '0' || c.startsWith('-');
  } catch {
    return false;
  }
}

/** validateMetricTarget */
function validateMetricTarget(target: Json, at: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!target.type) errs.push(fieldErrors.required(`${at}.type`, 'must specify a metric target type'));
  if (target.type !== 'Utilization' && target.type !== 'Value' && target.type !== 'AverageValue') {
    errs.push(fieldErrors.invalid(`${at}.type`, target.type ?? '', 'must be either Utilization, Value, or AverageValue'));
  }
  if (isSet(target.value) && notPositive(target.value)) errs.push(fieldErrors.invalid(`${at}.value`, target.value, 'must be positive'));
  if (isSet(target.averageValue) && notPositive(target.averageValue)) errs.push(fieldErrors.invalid(`${at}.averageValue`, target.averageValue, 'must be positive'));
  if (typeof target.averageUtilization === 'number' && target.averageUtilization < 1) {
    errs.push(fieldErrors.invalid(`${at}.averageUtilization`, target.averageUtilization, 'must be greater than 0'));
  }
  return errs;
}

/** validateMetricIdentifier: a name, which becomes a path segment of the metrics APIs (IsValidPathSegmentName). */
function validateMetricIdentifier(metric: Json, at: string): FieldError[] {
  if (!metric.name) return [fieldErrors.required(`${at}.name`, 'must specify a metric name')];
  const name = String(metric.name);
  return pathSegmentProblems(name).map((msg) => fieldErrors.invalid(`${at}.name`, name, msg));
}

/** validateResourceSource and validateContainerResourceSource: a name (for a container, a container resource, and the container's DNS label), and a utilization or an average value, not both. */
function validateResourceLike(src: Json, at: string, container: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (!src.name) errs.push(fieldErrors.required(`${at}.name`, 'must specify a resource name'));
  // A container's resource is one a container can request; a container is named by a DNS label.
  else if (container) errs.push(...validateContainerResourceName(String(src.name), `${at}.name`));
  if (container) {
    if (!src.container) errs.push(fieldErrors.required(`${at}.container`, 'must specify a container'));
    else errs.push(...isDNS1123Label(String(src.container)).map((msg) => fieldErrors.invalid(`${at}.container`, src.container, msg)));
  }
  const target = asObj(src.target);
  errs.push(...validateMetricTarget(target, `${at}.target`));
  if (!isSet(target.averageUtilization) && !isSet(target.averageValue)) {
    errs.push(fieldErrors.required(`${at}.target.averageUtilization`, 'must set either a target raw value or a target utilization'));
  }
  if (isSet(target.averageUtilization) && isSet(target.averageValue)) {
    errs.push(fieldErrors.forbidden(`${at}.target.averageValue`, 'may not set both a target raw value and a target utilization'));
  }
  return errs;
}

/** The checks of each metric source (validateObjectSource, validateExternalSource, validatePodsSource, validate(Container)ResourceSource). */
function validateMetricSource(field: string, src: Json, at: string): FieldError[] {
  const target = asObj(src.target);
  switch (field) {
    case 'resource':
      return validateResourceLike(src, at, false);
    case 'containerResource':
      return validateResourceLike(src, at, true);
    case 'pods': {
      const errs = [...validateMetricIdentifier(asObj(src.metric), `${at}.metric`), ...validateMetricTarget(target, `${at}.target`)];
      if (!isSet(target.averageValue)) errs.push(fieldErrors.required(`${at}.target.averageValue`, 'must specify a positive target averageValue'));
      return errs;
    }
    case 'object': {
      const ref = asObj(src.describedObject);
      const errs: FieldError[] = [];
      if (!ref.kind) errs.push(fieldErrors.required(`${at}.describedObject.kind`, ''));
      if (!ref.name) errs.push(fieldErrors.required(`${at}.describedObject.name`, ''));
      errs.push(...validateMetricIdentifier(asObj(src.metric), `${at}.metric`), ...validateMetricTarget(target, `${at}.target`));
      if (!isSet(target.value) && !isSet(target.averageValue)) errs.push(fieldErrors.required(`${at}.target.averageValue`, 'must set either a target value or averageValue'));
      return errs;
    }
    case 'external': {
      const errs = [...validateMetricIdentifier(asObj(src.metric), `${at}.metric`), ...validateMetricTarget(target, `${at}.target`)];
      if (!isSet(target.value) && !isSet(target.averageValue)) {
        errs.push(fieldErrors.required(`${at}.target.averageValue`, 'must set either a target value for metric or a per-pod target'));
      }
      if (isSet(target.value) && isSet(target.averageValue)) {
        errs.push(fieldErrors.forbidden(`${at}.target.value`, 'may not set both a target value for metric and a per-pod target'));
      }
      return errs;
    }
    default:
      return [];
  }
}

/** validateScalingRules */
function validateScalingRules(rules: unknown, at: string): FieldError[] {
  if (!isSet(rules)) return [];
  const r = asObj(rules);
  const errs: FieldError[] = [];
  const window = r.stabilizationWindowSeconds;
  if (typeof window === 'number' && window < 0) errs.push(fieldErrors.invalid(`${at}.stabilizationWindowSeconds`, window, 'must be greater than or equal to zero'));
  if (typeof window === 'number' && window > maxStabilizationWindowSeconds) {
    errs.push(fieldErrors.invalid(`${at}.stabilizationWindowSeconds`, window, `must be less than or equal to ${maxStabilizationWindowSeconds}`));
  }
  if (isSet(r.selectPolicy) && !selectPolicies.includes(String(r.selectPolicy))) errs.push(fieldErrors.notSupported(`${at}.selectPolicy`, r.selectPolicy, selectPolicies));
  const policies = Array.isArray(r.policies) ? (r.policies as unknown[]) : [];
  if (policies.length === 0) errs.push(fieldErrors.required(`${at}.policies`, 'must specify at least one Policy'));
  policies.forEach((raw, i) => {
    const p = asObj(raw);
    const pat = `${at}.policies[${i}]`;
    const value = typeof p.value === 'number' ? p.value : 0;
    const period = typeof p.periodSeconds === 'number' ? p.periodSeconds : 0;
    if (p.type !== 'Pods' && p.type !== 'Percent') errs.push(fieldErrors.notSupported(`${pat}.type`, p.type ?? '', policyTypes));
    if (value <= 0) errs.push(fieldErrors.invalid(`${pat}.value`, value, 'must be greater than zero'));
    if (period <= 0) errs.push(fieldErrors.invalid(`${pat}.periodSeconds`, period, 'must be greater than zero'));
    if (period > maxPeriodSeconds) errs.push(fieldErrors.invalid(`${pat}.periodSeconds`, period, `must be less than or equal to ${maxPeriodSeconds}`));
  });
  return errs;
}

/**
 * kube's ValidateHorizontalPodAutoscaler, on an object in v2's shape (kube's
 * internal one). A v1 object is validated as kube validates it: converted
 * first (its annotations' metrics and behavior included, v2's defaults not
 * applied), so its errors name the v2 fields.
 */
function validateHorizontalPodAutoscaler(served: KubeObject): FieldError[] {
  const o = served.apiVersion === 'autoscaling/v1' ? hpaToV2(served) : served;
  const spec = asObj(o.spec);
  const errs: FieldError[] = [];
  const ref = asObj(spec.scaleTargetRef);
  if (!ref.kind) errs.push(fieldErrors.required('spec.scaleTargetRef.kind', ''));
  if (!ref.name) errs.push(fieldErrors.required('spec.scaleTargetRef.name', ''));
  const min = typeof spec.minReplicas === 'number' ? spec.minReplicas : 1;
  if (min < 1) errs.push(fieldErrors.invalid('spec.minReplicas', min, 'must be greater than or equal to 1'));
  const max = spec.maxReplicas;
  if (typeof max !== 'number' || max < 1) errs.push(fieldErrors.invalid('spec.maxReplicas', max ?? 0, 'must be greater than 0'));
  else if (max < min) errs.push(fieldErrors.invalid('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  (Array.isArray(spec.metrics) ? (spec.metrics as unknown[]) : []).forEach((raw, i) => {
    const metric = asObj(raw);
    const at = `spec.metrics[${i}]`;
    if (!metric.type) {
      errs.push(fieldErrors.required(`${at}.type`, 'must specify a metric source type'));
      return;
    }
    if (!metricTypes.includes(String(metric.type))) {
      errs.push(fieldErrors.notSupported(`${at}.type`, metric.type, metricTypes));
      return;
    }
    // kube checks the first source set, in its order, then that the type's own is there and no other.
    const first = ['object', 'external', 'pods', 'resource', 'containerResource'].find((f) => isSet(metric[f]));
    if (first) errs.push(...validateMetricSource(first, asObj(metric[first]), `${at}.${first}`));
    const field = sourceField[String(metric.type)];
    if (!isSet(metric[field])) errs.push(fieldErrors.required(`${at}.${field}`, `must populate information for the given metric source`));
    for (const other of Object.values(sourceField)) {
      if (other !== field && isSet(metric[other])) errs.push(fieldErrors.forbidden(`${at}.${other}`, 'must populate the given metric source only'));
    }
  });
  if (isSet(spec.behavior)) {
    const behavior = asObj(spec.behavior);
    errs.push(...validateScalingRules(behavior.scaleUp, 'spec.behavior.scaleUp'), ...validateScalingRules(behavior.scaleDown, 'spec.behavior.scaleDown'));
  }
  return errs;
}

/** ValidateHorizontalPodAutoscalerStatusUpdate: the replica counts are not negative. */
function validateStatusUpdate(o: KubeObject): FieldError[] {
  const status = asObj(o.status);
  const errs: FieldError[] = [];
  for (const key of ['currentReplicas', 'desiredReplicas']) {
    const v = status[key];
    if (typeof v === 'number' && v < 0) errs.push(fieldErrors.invalid(`status.${key}`, v, 'must be greater than or equal to 0'));
  }
  return errs;
}

/**
 * A status write through v1: the status comes from the request, and so do
 * the annotations that carry v2's current metrics and conditions, which
 * kube's conversion turns into status before its status strategy keeps the
 * stored spec (so a v1 client sets conditions through
 * `autoscaling.alpha.kubernetes.io/conditions`, and clears them by leaving it
 * out). The spec's annotations stay the stored object's.
 */
function prepareStatusUpdate(incoming: KubeObject, old: KubeObject): KubeObject {
  const obj = withStatus(old, incoming.status);
  if (old.apiVersion !== 'autoscaling/v1') return obj;
  const annotations: Record<string, string> = { ...(obj.metadata.annotations ?? {}) };
  for (const key of v1StatusAnnotations) {
    const sent = incoming.metadata.annotations?.[key];
    if (sent === undefined) delete annotations[key];
    else annotations[key] = sent;
  }
  if (Object.keys(annotations).length) obj.metadata.annotations = annotations;
  else delete obj.metadata.annotations;
  return obj;
}

/**
 * The v1 annotations that carry status, on `obj` as `from` has them (none
 * without `from`): a create or an update through the resource keeps the
 * stored status (kube's PrepareForCreate and PrepareForUpdate run after the
 * conversion that read them), whatever annotations it sent.
 */
function keepStatusAnnotations(obj: KubeObject, from?: KubeObject): void {
  if (obj.apiVersion !== 'autoscaling/v1') return;
  const annotations: Record<string, string> = { ...(obj.metadata.annotations ?? {}) };
  for (const key of v1StatusAnnotations) {
    const kept = from?.metadata.annotations?.[key];
    if (kept === undefined) delete annotations[key];
    else annotations[key] = kept;
  }
  if (Object.keys(annotations).length) obj.metadata.annotations = annotations;
  else delete obj.metadata.annotations;
}

/** HorizontalPodAutoscalers, in either served version. */
export function horizontalPodAutoscalerStrategy(): Strategy {
  return statusSubresourceStrategy({
    applyDefaults: defaultHorizontalPodAutoscaler,
    validate: validateHorizontalPodAutoscaler,
    validateUpdate: validateHorizontalPodAutoscaler,
    prepareForCreate(o) {
      o.status = {};
      keepStatusAnnotations(o);
    },
    prepareForUpdate: (o, old) => keepStatusAnnotations(o, old),
    subresourceStrategies: { status: { prepareForUpdate: prepareStatusUpdate, validateUpdate: validateStatusUpdate } },
  });
}

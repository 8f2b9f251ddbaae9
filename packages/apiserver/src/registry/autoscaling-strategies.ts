/**
 * The strategy of autoscaling HorizontalPodAutoscalers (v2, and v1 through
 * ./autoscaling-conversion.ts): kube's defaults and the checks of
 * pkg/apis/autoscaling/validation users hit, in kube's words, on the object
 * in the version it was sent in.
 */
import { fieldErrors, type FieldError, type KubeObject } from '@operant/apimachinery';
import { statusSubresourceStrategy, type Strategy } from './strategy.js';
import { defaultHorizontalPodAutoscaler } from './defaults/autoscaling.js';
import { asObj } from './defaults/json-fields.js';

type Json = Record<string, unknown>;

const metricTypes = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
const sourceField: Record<string, string> = { ContainerResource: 'containerResource', External: 'external', Object: 'object', Pods: 'pods', Resource: 'resource' };

function validateHorizontalPodAutoscaler(o: KubeObject): FieldError[] {
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
  if (o.apiVersion === 'autoscaling/v1') {
    const target = spec.targetCPUUtilizationPercentage;
    if (typeof target === 'number' && target < 1) errs.push(fieldErrors.invalid('spec.targetCPUUtilizationPercentage', target, 'must be greater than 0'));
    return errs;
  }
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
    const field = sourceField[String(metric.type)];
    if (metric[field] === undefined) errs.push(fieldErrors.required(`${at}.${field}`, `must populate information for the given metric source`));
    for (const other of Object.values(sourceField)) {
      if (other !== field && metric[other] !== undefined) errs.push(fieldErrors.forbidden(`${at}.${other}`, 'must populate the given metric source only'));
    }
  });
  return errs;
}

/** HorizontalPodAutoscalers, in either served version. */
export function horizontalPodAutoscalerStrategy(): Strategy {
  return statusSubresourceStrategy({
    applyDefaults: defaultHorizontalPodAutoscaler,
    validate: validateHorizontalPodAutoscaler,
    validateUpdate: validateHorizontalPodAutoscaler,
  });
}

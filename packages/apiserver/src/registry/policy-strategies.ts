/**
 * The strategy of policy/v1 PodDisruptionBudgets (pkg/registry/policy/
 * poddisruptionbudget/strategy.go): status cleared on create and kept on
 * update, generation bumped by spec changes, and pkg/apis/policy/validation's
 * checks with kube's wording.
 */
import { fieldErrors, type FieldError, type KubeObject } from '@operant/apimachinery';
import { statusSubresourceStrategy, type Strategy } from './strategy.js';
import { validateLabelSelector, validatePercentOrCount } from './label-selector-validation.js';
import { asObj } from './defaults/json-fields.js';

type Json = Record<string, unknown>;

/** The values of spec.unhealthyPodEvictionPolicy kube accepts. */
export const unhealthyPodEvictionPolicies = ['AlwaysAllow', 'IfHealthyBudget'];

/** kube's ValidatePodDisruptionBudgetSpec. */
export function validatePodDisruptionBudget(o: KubeObject): FieldError[] {
  const spec = asObj(o.spec);
  const errs: FieldError[] = [];
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined) {
    errs.push(fieldErrors.invalid('spec', spec, 'minAvailable and maxUnavailable cannot be both set'));
  }
  if (spec.minAvailable !== undefined) errs.push(...validatePercentOrCount(spec.minAvailable, 'spec.minAvailable'));
  if (spec.maxUnavailable !== undefined) errs.push(...validatePercentOrCount(spec.maxUnavailable, 'spec.maxUnavailable'));
  errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (policy !== undefined && !unhealthyPodEvictionPolicies.includes(String(policy))) {
    errs.push(fieldErrors.notSupported('spec.unhealthyPodEvictionPolicy', policy, unhealthyPodEvictionPolicies));
  }
  return errs;
}

/** PodDisruptionBudgets: spec and status apart, updates only with a resourceVersion (kube's AllowUnconditionalUpdate is false). */
export function podDisruptionBudgetStrategy(): Strategy {
  return statusSubresourceStrategy({
    allowUnconditionalUpdate: false,
    validate: validatePodDisruptionBudget,
    validateUpdate: validatePodDisruptionBudget,
  });
}

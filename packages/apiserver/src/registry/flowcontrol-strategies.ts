/**
 * The strategies of flowcontrol.apiserver.k8s.io/v1 FlowSchemas and
 * PriorityLevelConfigurations: stored and served (so that clients reading
 * them work; the server does not apply priority and fairness), with kube's
 * defaults and the checks of pkg/apis/flowcontrol/validation users hit.
 */
import { fieldErrors, type FieldError, type KubeObject } from '@operant/apimachinery';
import { statusSubresourceStrategy, type Strategy } from './strategy.js';
import { defaultFlowSchema, defaultPriorityLevelConfiguration } from './defaults/flowcontrol.js';
import { asObj } from './defaults/json-fields.js';

type Json = Record<string, unknown>;

const distinguisherMethods = ['ByNamespace', 'ByUser'];
const levelTypes = ['Exempt', 'Limited'];
const limitResponseTypes = ['Queue', 'Reject'];

function validateFlowSchema(o: KubeObject): FieldError[] {
  const spec = asObj(o.spec);
  const errs: FieldError[] = [];
  if (!asObj(spec.priorityLevelConfiguration).name) errs.push(fieldErrors.required('spec.priorityLevelConfiguration.name', 'must reference a priority level'));
  const precedence = spec.matchingPrecedence;
  if (typeof precedence === 'number' && (precedence <= 0 || precedence > 10000)) {
    errs.push(fieldErrors.invalid('spec.matchingPrecedence', precedence, precedence <= 0 ? 'must be a positive value' : 'must not be greater than 10000'));
  }
  const method = spec.distinguisherMethod === undefined ? undefined : asObj(spec.distinguisherMethod).type;
  if (method !== undefined && !distinguisherMethods.includes(String(method))) {
    errs.push(fieldErrors.notSupported('spec.distinguisherMethod.type', method, distinguisherMethods));
  }
  return errs;
}

function validatePriorityLevelConfiguration(o: KubeObject): FieldError[] {
  const spec = asObj(o.spec);
  const errs: FieldError[] = [];
  if (!levelTypes.includes(String(spec.type))) errs.push(fieldErrors.notSupported('spec.type', spec.type ?? '', levelTypes));
  if (spec.type === 'Limited') {
    if (spec.limited === undefined) errs.push(fieldErrors.required('spec.limited', 'must not be empty when type is Limited'));
    if (spec.exempt !== undefined) errs.push(fieldErrors.forbidden('spec.exempt', 'must be nil if the type is Limited'));
    const response = asObj(asObj(spec.limited).limitResponse);
    if (spec.limited !== undefined && !limitResponseTypes.includes(String(response.type))) {
      errs.push(fieldErrors.notSupported('spec.limited.limitResponse.type', response.type ?? '', limitResponseTypes));
    }
  } else if (spec.type === 'Exempt' && spec.limited !== undefined) {
    errs.push(fieldErrors.forbidden('spec.limited', 'must be nil if the type is not Limited'));
  }
  return errs;
}

/** The flowcontrol.apiserver.k8s.io/v1 strategies, keyed `group/resource`. */
export function flowcontrolStrategies(): Array<[string, Strategy]> {
  const stored = (applyDefaults: (o: KubeObject) => void, validate: (o: KubeObject) => FieldError[]): Strategy =>
    statusSubresourceStrategy({
      applyDefaults,
      validate,
      validateUpdate: validate,
    });
  return [
    ['flowcontrol.apiserver.k8s.io/flowschemas', stored(defaultFlowSchema, validateFlowSchema)],
    ['flowcontrol.apiserver.k8s.io/prioritylevelconfigurations', stored(defaultPriorityLevelConfiguration, validatePriorityLevelConfiguration)],
  ];
}

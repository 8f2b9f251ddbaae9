/**
 * apiregistration.k8s.io/v1 APIServices, stored as kube-aggregator stores them
 * (pkg/registry/apiservice): a local APIService (no spec.service) is Available
 * from its creation, the status changes only through `status`, an update must
 * name a resourceVersion, and kube-aggregator's validation applies in its
 * words (pkg/apis/apiregistration/validation). The server does not proxy to
 * aggregated API servers; the registration controller says so in the status
 * of those with a service (controllers/apiservice-registration.ts).
 */
import { fieldErrors, isDNS1035Label, isDNS1123Subdomain, type FieldError, type KubeObject } from '@operant/apimachinery';
import { nowTimestamp } from './object-meta.js';
import { baseStrategy, withStatus, type Strategy } from './strategy.js';
import { asObj } from './defaults/json-fields.js';

type Json = Record<string, unknown>;

/** The condition kube-aggregator gives a local APIService (NewLocalAvailableAPIServiceCondition). */
export function localAvailableCondition(now = nowTimestamp()): Json {
  return { type: 'Available', status: 'True', lastTransitionTime: now, reason: 'Local', message: 'Local APIServices are always available' };
}

/** kube-aggregator's v1 defaulting: a service reference's port is 443. */
function defaultAPIService(o: KubeObject): void {
  const service = asObj(o.spec).service;
  if (service !== undefined && service !== null) asObj(service).port ??= 443;
}

/** kube-aggregator's ValidateAPIService (ObjectMeta's path-segment check is the registry's). */
function validateAPIService(o: KubeObject): FieldError[] {
  const spec = asObj(o.spec);
  const group = typeof spec.group === 'string' ? spec.group : '';
  const version = typeof spec.version === 'string' ? spec.version : '';
  const errs: FieldError[] = [];
  const name = o.metadata.name ?? '';
  const requiredName = `${version}.${group}`;
  if (name !== '' && !name.includes('/') && !name.includes('%') && name !== '.' && name !== '..' && name !== requiredName) {
    errs.push(fieldErrors.invalid('metadata.name', name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(requiredName)}`));
  }
  if (group === '' && version !== 'v1') errs.push(fieldErrors.required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group !== '') for (const problem of isDNS1123Subdomain(group)) errs.push(fieldErrors.invalid('spec.group', group, problem));
  for (const problem of isDNS1035Label(version)) errs.push(fieldErrors.invalid('spec.version', version, problem));
  const groupPriority = typeof spec.groupPriorityMinimum === 'number' ? spec.groupPriorityMinimum : 0;
  if (groupPriority <= 0 || groupPriority > 20000) errs.push(fieldErrors.invalid('spec.groupPriorityMinimum', groupPriority, 'must be positive and less than 20000'));
  const versionPriority = typeof spec.versionPriority === 'number' ? spec.versionPriority : 0;
  if (versionPriority <= 0 || versionPriority > 1000) errs.push(fieldErrors.invalid('spec.versionPriority', versionPriority, 'must be positive and less than 1000'));
  const caBytes = typeof spec.caBundle === 'string' ? Buffer.from(spec.caBundle, 'base64').length : 0;
  const skipVerify = spec.insecureSkipTLSVerify === true;
  if (spec.service === undefined || spec.service === null) {
    if (caBytes > 0) errs.push(fieldErrors.invalid('spec.caBundle', `${caBytes} bytes`, 'local APIServices may not have a caBundle'));
    if (skipVerify) errs.push(fieldErrors.invalid('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
    return errs;
  }
  const service = asObj(spec.service);
  if (!service.namespace) errs.push(fieldErrors.required('spec.service.namespace'));
  if (!service.name) errs.push(fieldErrors.required('spec.service.name'));
  if (skipVerify && caBytes > 0) errs.push(fieldErrors.invalid('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  return errs;
}

const conditionStatuses = ['True', 'False', 'Unknown'];

/** kube-aggregator's ValidateAPIServiceStatus. */
function validateStatus(o: KubeObject): FieldError[] {
  const conditions = asObj(o.status).conditions;
  if (!Array.isArray(conditions)) return [];
  return conditions.flatMap((c, i) => {
    const status = asObj(c).status;
    return conditionStatuses.includes(String(status)) ? [] : [fieldErrors.notSupported(`status.conditions[${i}].status`, status ?? '', conditionStatuses)];
  });
}

/** The APIService strategy, with its `status` subresource. */
export function apiServiceStrategy(): Strategy {
  return baseStrategy({
    hasStatusSubresource: true,
    allowUnconditionalUpdate: false,
    nameValidator: 'path-segment',
    applyDefaults: defaultAPIService,
    prepareForCreate(o) {
      const local = asObj(o.spec).service === undefined || asObj(o.spec).service === null;
      o.status = local ? { conditions: [localAvailableCondition()] } : {};
    },
    validate: validateAPIService,
    validateUpdate: validateAPIService,
    subresourceStrategies: {
      status: { prepareForUpdate: (incoming, old) => withStatus(old, incoming.status), validateUpdate: validateStatus },
    },
  });
}

/**
 * The strategies of the core/v1 kinds that shape workloads from the side:
 * ReplicationControllers, PodTemplates, LimitRanges and ResourceQuotas
 * (pkg/registry/core/*\/strategy.go), with pkg/apis/core/validation's checks
 * users hit, in kube's words.
 */
import { canonicalQuantity, fieldErrors, isQualifiedName, type FieldError, type KubeObject } from '@operant/apimachinery';
import { baseStrategy, statusSubresourceStrategy, type Strategy } from './strategy.js';
import { defaultLimitRange, defaultPodTemplate, defaultReplicationController } from './defaults/core-policy.js';
import { validatePodSpec } from './pod-validation.js';
import { asObj } from './defaults/json-fields.js';

type Json = Record<string, unknown>;
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.map(asObj) : []);

/** kube's ValidateResourceQuantityValue: a quantity that parses and is not negative. */
function validateQuantity(value: unknown, path: string): FieldError[] {
  try {
    const canonical = canonicalQuantity(value as string | number);
    return canonical.startsWith('-') ? [fieldErrors.invalid(path, canonical, 'must be greater than or equal to 0')] : [];
  } catch (e) {
    return [fieldErrors.invalid(path, value ?? null, (e as Error).message)];
  }
}

/** A resource list (`hard`, `max`, ...): qualified resource names with valid quantities. */
function validateResourceList(resources: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [name, value] of Object.entries(asObj(resources))) {
    for (const msg of isQualifiedName(name)) errs.push(fieldErrors.invalid(`${path}[${name}]`, name, msg));
    errs.push(...validateQuantity(value, `${path}[${name}]`));
  }
  return errs;
}

// ---------------------------------------------------------------------------
// ReplicationController

function validateReplicationController(o: KubeObject): FieldError[] {
  const spec = asObj(o.spec);
  const errs: FieldError[] = [];
  const selector = asObj(spec.selector) as Record<string, string>;
  if (Object.keys(selector).length === 0) errs.push(fieldErrors.required('spec.selector', ''));
  if (typeof spec.replicas === 'number' && spec.replicas < 0) errs.push(fieldErrors.invalid('spec.replicas', spec.replicas, 'must be greater than or equal to 0'));
  if (typeof spec.minReadySeconds === 'number' && spec.minReadySeconds < 0) {
    errs.push(fieldErrors.invalid('spec.minReadySeconds', spec.minReadySeconds, 'must be greater than or equal to 0'));
  }
  if (spec.template === undefined || spec.template === null) {
    errs.push(fieldErrors.required('spec.template', ''));
    return errs;
  }
  const template = asObj(spec.template);
  const labels = asObj(asObj(template.metadata).labels) as Record<string, string>;
  if (Object.keys(selector).length > 0 && !Object.entries(selector).every(([k, v]) => labels[k] === v)) {
    errs.push(fieldErrors.invalid('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
  }
  const podSpec = asObj(template.spec);
  errs.push(...validatePodSpec(podSpec, 'spec.template.spec'));
  if (podSpec.restartPolicy !== 'Always') errs.push(fieldErrors.notSupported('spec.template.spec.restartPolicy', podSpec.restartPolicy ?? '', ['Always']));
  if (podSpec.activeDeadlineSeconds !== undefined) {
    errs.push(fieldErrors.forbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in ReplicationController is not Supported'));
  }
  return errs;
}

// ---------------------------------------------------------------------------
// PodTemplate, LimitRange, ResourceQuota

function validatePodTemplate(o: KubeObject): FieldError[] {
  return validatePodSpec(asObj(asObj((o as unknown as Json).template).spec), 'template.spec');
}

const limitTypes = ['Container', 'Pod', 'PersistentVolumeClaim'];

function validateLimitRange(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  list(asObj(o.spec).limits).forEach((item, i) => {
    const at = `spec.limits[${i}]`;
    if (!item.type) errs.push(fieldErrors.required(`${at}.type`, ''));
    else if (!limitTypes.includes(String(item.type))) errs.push(fieldErrors.notSupported(`${at}.type`, item.type, limitTypes));
    for (const field of ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio']) errs.push(...validateResourceList(item[field], `${at}.${field}`));
    if (item.type === 'Pod' && (item.default !== undefined || item.defaultRequest !== undefined)) {
      errs.push(fieldErrors.forbidden(`${at}.default`, 'may not be specified when `type` is \'Pod\''));
    }
    // A min above the max, per resource (kube's "min value %s is greater than max value %s").
    for (const [name, min] of Object.entries(asObj(item.min))) {
      const max = asObj(item.max)[name];
      if (max === undefined) continue;
      try {
        if (quantityNumber(min) > quantityNumber(max)) {
          errs.push(fieldErrors.invalid(`${at}.min[${name}]`, min, `min value ${canonicalQuantity(min as string)} is greater than max value ${canonicalQuantity(max as string)}`));
        }
      } catch {
        // Reported above as an invalid quantity.
      }
    }
  });
  return errs;
}

/** A quantity's value as a number, for comparisons (precise enough for sane limits). */
function quantityNumber(value: unknown): number {
  const text = canonicalQuantity(value as string | number);
  const m = /^(-?[0-9.]+)(.*)$/.exec(text)!;
  const factors: Record<string, number> = { '': 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4, Pi: 1024 ** 5, Ei: 1024 ** 6 };
  return Number(m[1]) * (factors[m[2]] ?? 1);
}

const quotaScopes = ['BestEffort', 'CrossNamespacePodAffinity', 'NotBestEffort', 'NotTerminating', 'PriorityClass', 'Terminating'];

function validateResourceQuota(o: KubeObject): FieldError[] {
  const spec = asObj(o.spec);
  const errs = validateResourceList(spec.hard, 'spec.hard');
  (Array.isArray(spec.scopes) ? (spec.scopes as unknown[]) : []).forEach((scope, i) => {
    if (!quotaScopes.includes(String(scope))) errs.push(fieldErrors.notSupported(`spec.scopes[${i}]`, scope, quotaScopes));
  });
  return errs;
}

/** The strategies, keyed `group/resource`. */
export function corePolicyStrategies(): Array<[string, Strategy]> {
  return [
    [
      '/replicationcontrollers',
      statusSubresourceStrategy({
        applyDefaults: defaultReplicationController,
        validate: validateReplicationController,
        validateUpdate: validateReplicationController,
      }),
    ],
    ['/podtemplates', baseStrategy({ applyDefaults: defaultPodTemplate, validate: validatePodTemplate, validateUpdate: validatePodTemplate })],
    ['/limitranges', baseStrategy({ applyDefaults: defaultLimitRange, validate: validateLimitRange, validateUpdate: validateLimitRange })],
    [
      '/resourcequotas',
      baseStrategy({
        hasStatusSubresource: true,
        prepareForCreate(o) {
          o.status = {};
        },
        validate: validateResourceQuota,
        validateUpdate: validateResourceQuota,
      }),
    ],
  ];
}

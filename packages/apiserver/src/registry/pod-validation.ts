/** The pod-spec checks kube users hit most, with kube's field paths and wording. */
import { fieldErrors, isDNS1123Label, labelSelectorFromObject, validateLabels, type FieldError } from '@operant/apimachinery';
import { asObj } from './defaults/json-fields.js';
import { validateAffinity, validateTolerations, validateTopologySpreadConstraints } from './pod-scheduling-validation.js';

type Json = Record<string, unknown>;

function validateContainers(list: unknown, path: string, required: boolean, seen: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const containers = Array.isArray(list) ? list : [];
  if (required && containers.length === 0) errs.push(fieldErrors.required(path, ''));
  containers.forEach((raw, i) => {
    const c = asObj(raw);
    const at = `${path}[${i}]`;
    if (typeof c.name !== 'string' || c.name === '') errs.push(fieldErrors.required(`${at}.name`, ''));
    else {
      for (const msg of isDNS1123Label(c.name)) errs.push(fieldErrors.invalid(`${at}.name`, c.name, msg));
      if (seen.has(c.name)) errs.push(fieldErrors.duplicate(`${at}.name`, c.name));
      seen.add(c.name);
    }
    if (typeof c.image !== 'string' || c.image.trim() === '') errs.push(fieldErrors.required(`${at}.image`, ''));
    const ports = Array.isArray(c.ports) ? (c.ports as unknown[]) : [];
    ports.forEach((rawPort, j) => {
      const p = asObj(rawPort);
      const cp = p.containerPort;
      if (typeof cp !== 'number' || cp < 1 || cp > 65535) {
        errs.push(fieldErrors.invalid(`${at}.ports[${j}].containerPort`, cp ?? 0, 'must be between 1 and 65535, inclusive'));
      }
    });
  });
  return errs;
}

/** Validates a pod spec found at `path` (`spec`, or `spec.template.spec`). */
export function validatePodSpec(specValue: unknown, path: string): FieldError[] {
  const spec = asObj(specValue);
  const seen = new Set<string>();
  const errs = [
    ...validateContainers(spec.containers, `${path}.containers`, true, seen),
    ...validateContainers(spec.initContainers, `${path}.initContainers`, false, seen),
  ];
  const policies = ['Always', 'OnFailure', 'Never'];
  if (spec.restartPolicy !== undefined && !policies.includes(String(spec.restartPolicy))) {
    errs.push(fieldErrors.notSupported(`${path}.restartPolicy`, spec.restartPolicy, policies));
  }
  // The scheduling fields, in the order kube's ValidatePodSpec checks them.
  errs.push(...validateLabels(asObj(spec.nodeSelector) as Record<string, string>, `${path}.nodeSelector`));
  errs.push(...validateAffinity(spec.affinity, `${path}.affinity`));
  errs.push(...validateTopologySpreadConstraints(spec.topologySpreadConstraints, `${path}.topologySpreadConstraints`));
  errs.push(...validateTolerations(spec.tolerations, `${path}.tolerations`));
  return errs;
}

/**
 * A workload's selector must be present, non-empty, and select its own
 * template's labels; `kind` names the workload in kube's empty-selector message.
 */
export function validateSelectorMatchesTemplate(selector: unknown, template: unknown, kind = 'deployment'): FieldError[] {
  if (selector === undefined || selector === null) return [fieldErrors.required('spec.selector', '')];
  const sel = asObj(selector);
  if (Object.keys(asObj(sel.matchLabels)).length === 0 && !(Array.isArray(sel.matchExpressions) && sel.matchExpressions.length)) {
    return [fieldErrors.invalid('spec.selector', selector, `empty selector is invalid for ${kind}`)];
  }
  const labels = asObj(asObj(asObj(template).metadata).labels) as Record<string, string>;
  try {
    if (!labelSelectorFromObject(sel).matches(labels)) {
      return [fieldErrors.invalid('spec.template.metadata.labels', labels, '`selector` does not match template `labels`')];
    }
  } catch (e) {
    return [fieldErrors.invalid('spec.selector', selector, (e as Error).message)];
  }
  return [];
}

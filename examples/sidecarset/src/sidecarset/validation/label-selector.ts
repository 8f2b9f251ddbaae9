/**
 * Label selector checks: metav1 validation's ValidateLabelSelector, with kube's
 * words, and the SidecarSet webhook's own rules on top (validateSelector in
 * Kruise's sidecarset_create_update_handler.go): a selector may not be empty,
 * and one that LabelSelectorAsSelector refuses is reported again at
 * `<path>.selector`, as Kruise does.
 */
import type { LabelSelector, LabelSelectorRequirement } from 'kubernetes-types/meta/v1.js';
import { fieldErrors, type FieldError } from '@operant/runtime';
import { isQualifiedName, isValidLabelValue, labelSelectorFromObject } from '@operant/apimachinery';

/** The SidecarSet webhook's selector check. */
export function validateSelector(selector: LabelSelector, path: string): FieldError[] {
  const errs = validateLabelSelector(selector, path);
  if (Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions ?? []).length === 0) {
    errs.push(fieldErrors.invalid(path, selector, 'empty selector is not valid for sidecarset.'));
  }
  try {
    labelSelectorFromObject(selector);
  } catch {
    errs.push(fieldErrors.invalid(`${path}.selector`, selector, ''));
  }
  return errs;
}

/** metav1validation.ValidateLabelSelector. */
export function validateLabelSelector(selector: LabelSelector, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    for (const msg of isQualifiedName(key)) errs.push(fieldErrors.invalid(`${path}.matchLabels`, key, msg));
    for (const msg of isValidLabelValue(value)) errs.push(fieldErrors.invalid(`${path}.matchLabels`, value, msg));
  }
  (selector.matchExpressions ?? []).forEach((req, i) => errs.push(...validateRequirement(req, `${path}.matchExpressions[${i}]`)));
  return errs;
}

function validateRequirement(req: LabelSelectorRequirement, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) errs.push(fieldErrors.required(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) errs.push(fieldErrors.forbidden(`${path}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    default:
      errs.push(fieldErrors.invalid(`${path}.operator`, req.operator, 'not a valid selector operator'));
  }
  for (const msg of isQualifiedName(req.key ?? '')) errs.push(fieldErrors.invalid(`${path}.key`, req.key, msg));
  values.forEach((value, i) => {
    for (const msg of isValidLabelValue(value)) errs.push(fieldErrors.invalid(`${path}.values[${i}]`, value, msg));
  });
  return errs;
}

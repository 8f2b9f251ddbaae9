/**
 * kube's metav1 validation of a LabelSelector (ValidateLabelSelector in
 * apimachinery/pkg/apis/meta/v1/validation) and apps' IntOrString percent
 * checks, with kube's field paths and wording.
 */
import { fieldErrors, isQualifiedName, isValidLabelValue, regexError, validateLabels, type FieldError } from '@operant/apimachinery';
import { asObj } from './defaults/json-fields.js';

type Json = Record<string, unknown>;

/**
 * Validates a metav1.LabelSelector found at `path` (absent is valid: it selects nothing or everything, per kind).
 * `checkValues` adds kube's label-value check of each expression's values (LabelSelectorValidationOptions
 * with AllowInvalidLabelValueInSelector false, as pod affinity terms and topology spread constraints are checked).
 */
export function validateLabelSelector(selector: unknown, path: string, checkValues = false): FieldError[] {
  if (selector === undefined || selector === null) return [];
  const sel = asObj(selector);
  const errs = validateLabels(asObj(sel.matchLabels) as Record<string, string>, `${path}.matchLabels`);
  const expressions = Array.isArray(sel.matchExpressions) ? sel.matchExpressions : [];
  expressions.forEach((raw, i) => {
    const expr = asObj(raw);
    const at = `${path}.matchExpressions[${i}]`;
    const values = Array.isArray(expr.values) ? expr.values : [];
    switch (expr.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(fieldErrors.required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errs.push(fieldErrors.forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(fieldErrors.invalid(`${at}.operator`, expr.operator ?? '', 'not a valid selector operator'));
    }
    for (const msg of isQualifiedName(String(expr.key ?? ''))) errs.push(fieldErrors.invalid(`${at}.key`, expr.key ?? '', msg));
    if (checkValues) {
      values.forEach((value, j) => {
        for (const msg of isValidLabelValue(String(value))) errs.push(fieldErrors.invalid(`${at}.values[${j}]`, value, msg));
      });
    }
  });
  return errs;
}

const percentPattern = /^[0-9]+%$/;

/** apps' ValidatePositiveIntOrPercent plus IsNotMoreThan100Percent, for a value found at `path`. */
export function validatePercentOrCount(value: unknown, path: string): FieldError[] {
  if (typeof value === 'number') {
    return value < 0 ? [fieldErrors.invalid(path, value, 'must be greater than or equal to 0')] : [];
  }
  if (typeof value === 'string') {
    if (!percentPattern.test(value)) {
      return [fieldErrors.invalid(path, value, regexError("a valid percent string must be a numeric string followed by an ending '%'", '[0-9]+%', '1%', '93%'))];
    }
    if (Number(value.slice(0, -1)) > 100) return [fieldErrors.invalid(path, value, 'must not be greater than 100%')];
    return [];
  }
  return [fieldErrors.invalid(path, value ?? null, "must be an integer or percentage (e.g '5%')")];
}

/**
 * Validation of the `x-kubernetes-validations` entries themselves (not their CEL):
 * a rule is required, messages are single lines, `reason` is one of the four kube
 * accepts and `fieldPath` names a declared field.
 */
import { fieldErrors, type FieldError } from '../field-errors.js';
import type { OpenApiSchema } from '../openapi-schema.js';
import type { ValidationRule } from './decl-types.js';
import { normalizeRuleFieldPath } from './rule-field-path.js';

const supportedReasons = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];
const newline = /[\n\r]/;

/** Kube's checks of the `x-kubernetes-validations` entries of one schema node (made before compiling them). */
export function ruleEntryErrors(rules: readonly ValidationRule[], path: string, schema: OpenApiSchema): FieldError[] {
  const errs: FieldError[] = [];
  rules.forEach((rule, i) => {
    const at = `${path}.x-kubernetes-validations[${i}]`;
    const trimmedRule = (rule.rule ?? '').trim();
    const trimmedMsg = (rule.message ?? '').trim();
    if (trimmedRule === '') errs.push(fieldErrors.required(`${at}.rule`, 'rule is not specified'));
    else if ((rule.message ?? '') !== '' && trimmedMsg === '') errs.push(fieldErrors.invalid(`${at}.message`, rule.message, 'message must be non-empty if specified'));
    else if (newline.test(trimmedMsg)) errs.push(fieldErrors.invalid(`${at}.message`, rule.message, 'message must not contain line breaks'));
    else if (newline.test(trimmedRule) && trimmedMsg === '') errs.push(fieldErrors.required(`${at}.message`, 'message must be specified if rule contains line breaks'));
    if ((rule.messageExpression ?? '') !== '' && (rule.messageExpression ?? '').trim() === '') {
      errs.push(fieldErrors.required(`${at}.messageExpression`, 'messageExpression must be non-empty if specified'));
    }
    if (rule.reason !== undefined && !supportedReasons.includes(rule.reason)) {
      errs.push(fieldErrors.notSupported(`${at}.reason`, rule.reason, supportedReasons));
    }
    const fp = rule.fieldPath;
    if (fp !== undefined && fp !== '' && fp.trim() === '') errs.push(fieldErrors.invalid(`${at}.fieldPath`, fp, 'fieldPath must be non-empty if specified'));
    if (fp !== undefined && newline.test(fp)) errs.push(fieldErrors.invalid(`${at}.fieldPath`, fp, 'fieldPath must not contain line breaks'));
    if (fp !== undefined && fp !== '') {
      try {
        normalizeRuleFieldPath(fp, schema);
      } catch {
        errs.push(fieldErrors.invalid(`${at}.fieldPath`, fp, 'fieldPath must be a valid path'));
      }
    }
  });
  return errs;
}

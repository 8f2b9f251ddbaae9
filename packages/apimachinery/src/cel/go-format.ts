/**
 * Text formats kube-apiserver produces for CEL problems: Go's `%q` quoting, the
 * `%#v` dump of an `apiextensions.ValidationRule` that CRD validation errors print
 * as their value, and cel-go's `ERROR: <input>:line:col: msg` issue listing with
 * its source snippet and caret.
 */
import type { ValidationRule } from './decl-types.js';
import { goQuote } from '../schema/go-text.js';

export { goQuote };

/**
 * The `%#v` rendering of a validation rule, as kube prints it in
 * `x-kubernetes-validations[i].rule: Invalid value: apiextensions.ValidationRule{...}`.
 * Pointers that are set print as an address in Go; a fixed placeholder address is used.
 */
export function goValidationRule(rule: ValidationRule): string {
  const reason = rule.reason === undefined ? '(*apiextensions.FieldValueErrorReason)(nil)' : '(*apiextensions.FieldValueErrorReason)(0xc000010000)';
  const optionalOldSelf = rule.optionalOldSelf === undefined ? '(*bool)(nil)' : '(*bool)(0xc000010008)';
  return (
    `apiextensions.ValidationRule{Rule:${goQuote(rule.rule ?? '')}, Message:${goQuote(rule.message ?? '')}, ` +
    `MessageExpression:${goQuote(rule.messageExpression ?? '')}, Reason:${reason}, FieldPath:${goQuote(rule.fieldPath ?? '')}, ` +
    `OptionalOldSelf:${optionalOldSelf}}`
  );
}

/**
 * One cel-go issue as `issues.String()` prints it:
 * `ERROR: <input>:1:6: message\n | source line\n | .....^`. `offset` is the 0-based
 * character offset in `source` the issue points at.
 */
export function celIssue(source: string, offset: number, message: string): string {
  const before = source.slice(0, Math.max(0, Math.min(offset, source.length)));
  const lines = before.split('\n');
  const line = lines.length;
  const column = [...lines[lines.length - 1]].length;
  const sourceLine = source.split('\n')[line - 1] ?? '';
  let caret = '';
  for (let i = 0; i < column; i++) caret += '.';
  return `ERROR: <input>:${line}:${column + 1}: ${message}\n | ${sourceLine}\n | ${caret}^`;
}

/** Go's `%f` (six decimals) and `%.1f` for the cost factor in kube's budget messages. */
export function costFactorText(factor: number): string {
  if (factor > 100) return 'more than 100x';
  if (factor < 1.5) return `${factor.toFixed(6)}x`;
  return `${factor.toFixed(1)}x`;
}

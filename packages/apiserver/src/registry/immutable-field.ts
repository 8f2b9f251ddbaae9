/** kube's ValidateImmutableField, shared by the strategies. */
import { fieldErrors, fieldImmutableErrorMsg, type FieldError } from '@operant/apimachinery';

/** `path: Invalid value: <new value>: field is immutable` when `value` differs from `old` (absent counts as null). */
export function validateImmutableField(value: unknown, old: unknown, path: string): FieldError[] {
  return JSON.stringify(value ?? null) === JSON.stringify(old ?? null) ? [] : [fieldErrors.invalid(path, value ?? null, fieldImmutableErrorMsg)];
}

/**
 * Field errors as k8s.io/apimachinery/pkg/util/validation/field words them, so
 * that `kubectl` users read the same messages they know from a real cluster.
 */

/** The cause type of a field error, as sent in `Status.details.causes[].reason`. */
export type FieldErrorType =
  | 'FieldValueRequired'
  | 'FieldValueNotFound'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueDuplicate'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueTypeInvalid'
  | 'InternalError';

/** One problem with one field. `field` is a path such as `spec.containers[0].name`. */
export interface FieldError {
  type: FieldErrorType;
  field: string;
  /** The offending value, when there is one to show. */
  value?: unknown;
  /** Whether `value` is to be printed (Required and Forbidden errors print none). */
  hasValue: boolean;
  detail: string;
}

const typeWords: Record<FieldErrorType, string> = {
  FieldValueRequired: 'Required value',
  FieldValueNotFound: 'Not found',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueTypeInvalid: 'Invalid value',
  InternalError: 'Internal error',
};

/**
 * Prints a value the way Go's `%#v`-style field errors do: strings quoted,
 * numbers bare, bytes (a Go `[]byte`, such as a CSR's request) as `[]byte{0x2d, 0xa}`.
 */
export function formatFieldValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value instanceof Uint8Array) return `[]byte{${Array.from(value, (b) => `0x${b.toString(16)}`).join(', ')}}`;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === null || value === undefined) return 'null';
  return JSON.stringify(value);
}

/** The part of the message after the field path, e.g. `Invalid value: "x": must be lowercase`. */
export function fieldErrorBody(e: FieldError): string {
  let s = typeWords[e.type];
  if (e.hasValue) s += `: ${formatFieldValue(e.value)}`;
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

/** The whole message, e.g. `metadata.name: Required value: name or generateName is required`. */
export function fieldErrorMessage(e: FieldError): string {
  return e.field ? `${e.field}: ${fieldErrorBody(e)}` : fieldErrorBody(e);
}

export const fieldErrors = {
  required: (field: string, detail = ''): FieldError => ({ type: 'FieldValueRequired', field, hasValue: false, detail }),
  invalid: (field: string, value: unknown, detail = ''): FieldError => ({ type: 'FieldValueInvalid', field, value, hasValue: true, detail }),
  /** `Not found: "x"`, for a reference to something that does not exist (field.NotFound). */
  notFound: (field: string, value: unknown): FieldError => ({ type: 'FieldValueNotFound', field, value, hasValue: true, detail: '' }),
  notSupported: (field: string, value: unknown, supported: string[]): FieldError => ({
    type: 'FieldValueNotSupported',
    field,
    value,
    hasValue: true,
    detail: supported.length ? `supported values: ${supported.map((v) => JSON.stringify(v)).join(', ')}` : '',
  }),
  duplicate: (field: string, value: unknown): FieldError => ({ type: 'FieldValueDuplicate', field, value, hasValue: true, detail: '' }),
  forbidden: (field: string, detail: string): FieldError => ({ type: 'FieldValueForbidden', field, hasValue: false, detail }),
  tooLong: (field: string, value: unknown, max: number): FieldError => ({
    type: 'FieldValueTooLong',
    field,
    value,
    hasValue: false,
    detail: `may not be more than ${max} bytes`,
  }),
  tooMany: (field: string, actual: number, max: number): FieldError => ({
    type: 'FieldValueTooMany',
    field,
    value: actual,
    hasValue: true,
    detail: `must have at most ${max} items`,
  }),
  typeInvalid: (field: string, value: unknown, detail: string): FieldError => ({ type: 'FieldValueTypeInvalid', field, value, hasValue: true, detail }),
};

/**
 * The checks kube-apiserver makes on a CRD's `additionalPrinterColumns`
 * (apiextensions `ValidateCustomResourceColumnDefinition`), with its field
 * names and messages: a column needs a name, a type among kube's five, an
 * optional known format, and a "simple" JSONPath (one that starts with `.`).
 */
import { fieldErrors, type FieldError } from '../field-errors.js';

/** The column types a CRD may declare, sorted as kube lists them in its message. */
export const printerColumnTypes: readonly string[] = ['boolean', 'date', 'integer', 'number', 'string'];

/** The column formats a CRD may declare, sorted as kube lists them in its message. */
export const printerColumnFormats: readonly string[] = [
  'byte',
  'date',
  'date-time',
  'double',
  'float',
  'int32',
  'int64',
  'password',
];

/** A printer column as written in a CRD version's `additionalPrinterColumns`. */
export interface PrinterColumnDefinition {
  name?: string;
  type?: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath?: string;
}

/**
 * kube's `validateSimpleJSONPath` for a printer column's `jsonPath`: the
 * detail of the error (`must not be empty`, `must be a simple json path
 * starting with .`), or undefined when the path is acceptable. kube accepts
 * any path that starts with `.` here; a path that then fails to parse only
 * drops that column (and the ones after it) from Tables.
 */
export function validatePrinterColumnPath(path: string): string | undefined {
  if (path.length === 0) return 'must not be empty';
  if (path[0] !== '.') return 'must be a simple json path starting with .';
  return undefined;
}

/**
 * Validates one printer column as kube does, with errors under `fieldPath`
 * (e.g. `spec.versions[0].additionalPrinterColumns[1]`). Note kube's field
 * name for the path is `JSONPath`, as in
 * `spec.versions[0].additionalPrinterColumns[0].JSONPath: Invalid value: "x": must be a simple json path starting with .`.
 */
export function validatePrinterColumn(col: PrinterColumnDefinition, fieldPath: string): FieldError[] {
  const errs: FieldError[] = [];
  const typeList = `must be one of ${printerColumnTypes.join(',')}`;
  if (!col.name) errs.push(fieldErrors.required(`${fieldPath}.name`, ''));
  if (!col.type) errs.push(fieldErrors.required(`${fieldPath}.type`, typeList));
  else if (!printerColumnTypes.includes(col.type)) errs.push(fieldErrors.invalid(`${fieldPath}.type`, col.type, typeList));
  if (col.format && !printerColumnFormats.includes(col.format)) {
    errs.push(fieldErrors.invalid(`${fieldPath}.format`, col.format, `must be one of ${printerColumnFormats.join(',')}`));
  }
  const path = col.jsonPath ?? '';
  if (path.length === 0) {
    errs.push(fieldErrors.required(`${fieldPath}.JSONPath`, ''));
  } else {
    const detail = validatePrinterColumnPath(path);
    if (detail) errs.push(fieldErrors.invalid(`${fieldPath}.JSONPath`, path, detail));
  }
  return errs;
}

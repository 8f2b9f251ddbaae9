/**
 * The column of a meta.k8s.io/v1 Table, as kube-apiserver describes it in
 * `columnDefinitions`, the cell and row-condition shapes, and the small builders
 * the printers use.
 */
import type { JsonValue } from '@operant/apimachinery';

/** One cell of a Table row: a string, a number (Go int64 cells), a boolean, or any JSON for custom columns. */
export type TableCell = JsonValue;

/**
 * A condition on a Table row (metav1.TableRowCondition). kube uses one type,
 * `Completed`, on pods that have succeeded or failed.
 */
export interface TableRowCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
}

/**
 * A column's value type. Built-in printers use `string`, `integer`, `number`,
 * `boolean` and (for the default `Created At` column) `date`; CRD
 * additionalPrinterColumns use the same OpenAPI type names.
 */
export type TableColumnType = 'string' | 'integer' | 'number' | 'boolean' | 'date';

/**
 * One column of a Table (metav1.TableColumnDefinition). Every field is always
 * present on the wire, as the Go struct has no `omitempty` on them.
 */
export interface TableColumnDefinition {
  /** The human-readable header, e.g. `Name`, `Ready`, `Nominated Node`. */
  name: string;
  /** The OpenAPI type of the cells in this column. */
  type: TableColumnType;
  /**
   * An OpenAPI format modifier: `name` marks the column that holds the object's
   * name (kubectl relies on it); empty for most columns.
   */
  format: string;
  /** A human-readable description of the column. */
  description: string;
  /** 0 for columns shown by default, greater for `-o wide` only columns. */
  priority: number;
}

/** Options for {@link column}. */
export interface ColumnOptions {
  format?: string;
  priority?: number;
}

/** Builds a column definition with kube's defaults (empty format, priority 0). */
export function column(
  name: string,
  type: TableColumnType,
  description: string,
  options: ColumnOptions = {},
): TableColumnDefinition {
  return { name, type, format: options.format ?? '', description, priority: options.priority ?? 0 };
}

/** The swagger description of `ObjectMeta.name`, used by every Name column. */
export const nameDescription =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';

/** The swagger description of `ObjectMeta.creationTimestamp`, used by Age and Created At columns. */
export const creationTimestampDescription =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/** The Name column every printer starts with: type string, format `name`. */
export function nameColumn(options: { priority?: number } = {}): TableColumnDefinition {
  return column('Name', 'string', nameDescription, { format: 'name', priority: options.priority });
}

/** The Age column of the built-in printers (a string such as `5m`). */
export function ageColumn(): TableColumnDefinition {
  return column('Age', 'string', creationTimestampDescription);
}

/**
 * Tables for custom resources, as apiextensions-apiserver's table convertor
 * builds them from a CRD version's `additionalPrinterColumns`: `Name` first,
 * then each declared column, its cell the first result of the column's
 * JSONPath, typed by the column's `type`. A version without printer columns
 * gets kube's default, one `Age` column of type `date` on
 * `.metadata.creationTimestamp`.
 *
 * Cells as kube sends them: a `date` column carries the human-readable age
 * (`5m`, `3d4h`; `<unknown>` for an empty timestamp, `<invalid>` for a
 * malformed one) while its column type stays `date`; `integer` cells are
 * numbers truncated to whole ones, `number` and `boolean` cells typed values,
 * `string` cells the value printed as kubectl's JSONPath prints it (objects and
 * lists as JSON). A missing value, or one of the wrong type, is `null`, which
 * kubectl shows as `<none>`.
 */
import { executeJsonPath, formatJsonPathResults, parseJsonPath, type JsonPathTemplate } from '@operant/apimachinery/jsonpath';
import type { KubeObject } from '@operant/apimachinery';
import type { PrintedRow, ResourcePrinter } from './builtin-printers.js';
import {
  creationTimestampDescription,
  nameColumn,
  type TableCell,
  type TableColumnDefinition,
  type TableColumnType,
} from './column.js';
import { humanDuration } from './duration.js';
import { tableFromPrinter, type Table, type ToTableOptions } from './table.js';

/** One entry of a CRD version's `additionalPrinterColumns` (apiextensions.k8s.io/v1 CustomResourceColumnDefinition). */
export interface CustomResourceColumnDefinition {
  /** The header, e.g. `MATCHED`. */
  name: string;
  /** `integer`, `number`, `string`, `boolean` or `date`. */
  type: string;
  /** An OpenAPI format such as `int32` or `date-time`, passed through to the Table. */
  format?: string;
  /** The column's description; kube writes one naming the JSONPath when empty. */
  description?: string;
  /** 0 for columns always shown, more for `-o wide` only. */
  priority?: number;
  /** A simple JSONPath without braces, e.g. `.status.matchedPods`. */
  jsonPath: string;
}

/** kube's default printer columns for a CRD version that declares none: Age. */
export const defaultCustomResourceColumns: readonly CustomResourceColumnDefinition[] = [
  { name: 'Age', type: 'date', description: creationTimestampDescription, jsonPath: '.metadata.creationTimestamp' },
];

/**
 * The printer columns kube serves for a CRD version: the declared ones, or
 * {@link defaultCustomResourceColumns} when there are none (kube's
 * `serveDefaultColumnsIfEmpty`).
 */
export function servedPrinterColumns(
  printerColumns: readonly CustomResourceColumnDefinition[] | null | undefined,
): readonly CustomResourceColumnDefinition[] {
  return printerColumns && printerColumns.length > 0 ? printerColumns : defaultCustomResourceColumns;
}

interface CompiledColumn {
  definition: TableColumnDefinition;
  path: JsonPathTemplate;
}

/**
 * Parses the columns' JSONPaths. As in kube's `tableconvertor.New`, the first
 * path that fails to parse ends the list: it and the columns after it are left
 * out of the Table.
 */
function compileColumns(printerColumns: readonly CustomResourceColumnDefinition[] | null | undefined): CompiledColumn[] {
  const compiled: CompiledColumn[] = [];
  for (const col of servedPrinterColumns(printerColumns)) {
    let path: JsonPathTemplate;
    try {
      path = parseJsonPath(`{${col.jsonPath}}`);
    } catch {
      break;
    }
    compiled.push({
      definition: {
        name: col.name,
        // CRD validation admits only the five TableColumnTypes; anything else passes through as kube does.
        type: col.type as TableColumnType,
        format: col.format ?? '',
        description: col.description
          ? col.description
          : `Custom resource definition column (in JSONPath format): ${col.jsonPath}`,
        priority: col.priority ?? 0,
      },
      path,
    });
  }
  return compiled;
}

/**
 * The Table columns for a CRD version's printer columns: `Name` (format
 * `name`), then each column that kube would serve, wide ones included.
 */
export function customResourceColumns(
  printerColumns: readonly CustomResourceColumnDefinition[] | null | undefined,
): TableColumnDefinition[] {
  return [nameColumn(), ...compileColumns(printerColumns).map((c) => ({ ...c.definition }))];
}

/**
 * A printer for one CRD version, for {@link tableFromPrinter}. Parse once per
 * CRD version and reuse it for every request.
 */
export function customResourcePrinter(
  printerColumns: readonly CustomResourceColumnDefinition[] | null | undefined,
): ResourcePrinter {
  const compiled = compileColumns(printerColumns);
  const columns: readonly TableColumnDefinition[] = [nameColumn(), ...compiled.map((c) => c.definition)];
  return {
    columns,
    print(obj: KubeObject, now: Date): PrintedRow {
      return { cells: [obj.metadata?.name ?? '', ...compiled.map((c) => columnCell(c, obj, now))] };
    },
  };
}

/** The cells of one custom resource: its name, then one per served printer column. */
export function customResourceRow(
  obj: KubeObject,
  printerColumns: readonly CustomResourceColumnDefinition[] | null | undefined,
  now: Date,
): TableCell[] {
  return customResourcePrinter(printerColumns).print(obj, now).cells;
}

/**
 * The meta.k8s.io Table of custom resources, in the same shape as
 * {@link toTable} gives for built-ins (row objects, list metadata, `noHeaders`,
 * `includeObject`), with the columns of the CRD version's printer columns.
 */
export function toCustomResourceTable(
  objects: KubeObject[],
  printerColumns: readonly CustomResourceColumnDefinition[] | null | undefined,
  opts: ToTableOptions = {},
): Table {
  return tableFromPrinter(customResourcePrinter(printerColumns), objects, opts);
}

// ---------------------------------------------------------------------------
// Cells
// ---------------------------------------------------------------------------

function columnCell(col: CompiledColumn, obj: KubeObject, now: Date): TableCell {
  let results: unknown[][];
  try {
    results = executeJsonPath(col.path, obj, { allowMissingKeys: true });
  } catch {
    return null;
  }
  if (results.length === 0 || results[0].length === 0) return null;
  // Simple paths give one value; like kube, use the first when there are more.
  const value = results[0][0];
  if (col.definition.type === 'string') {
    // kube prints a JSON null here through an empty reflect.Value: `<no value>`.
    return value === null || value === undefined ? '<no value>' : formatJsonPathResults([value]);
  }
  return cellForJsonValue(col.definition.type, value, now);
}

/** kube's `cellForJSONValue`: a typed cell, or null when the value does not fit the type. */
function cellForJsonValue(type: string, value: unknown, now: Date): TableCell {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'string':
      return typeof value === 'string' ? value : null;
    case 'date':
      return typeof value === 'string' ? humanReadableDate(value, now) : null;
  }
  return null;
}

/**
 * kube's `metav1.Time.UnmarshalQueryParameter` then
 * `ConvertToHumanReadableDateType`: `<unknown>` for an empty (or zero)
 * timestamp, `<invalid>` for one that is not RFC 3339, else the age.
 */
function humanReadableDate(value: string, now: Date): string {
  if (value === '' || value === 'null') return '<unknown>';
  const t = parseRFC3339(value);
  if (t === undefined) return '<invalid>';
  if (t.zero) return '<unknown>';
  return humanDuration(now.getTime() - t.ms);
}

const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{1,2}):(\d{2}):(\d{2})(?:[.,](\d+))?(Z|[+-]\d{2}:\d{2})$/;
const goZeroTimeMs = -62135596800000; // 0001-01-01T00:00:00Z

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Go's `time.Parse(time.RFC3339, s)`: epoch milliseconds, or undefined when Go would fail. */
function parseRFC3339(value: string): { ms: number; zero: boolean } | undefined {
  const m = rfc3339.exec(value);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const fraction = m[7] ?? '';
  if (month < 1 || month > 12 || day < 1 || day > daysIn(month, year)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (m[8] !== 'Z') {
    const oh = Number(m[8].slice(1, 3));
    const om = Number(m[8].slice(4, 6));
    if (oh > 24 || om > 59) return undefined;
    offsetMinutes = (m[8][0] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, 0);
  const wholeMs = d.getTime() - offsetMinutes * 60_000;
  const ms = wholeMs + (fraction ? Number(`0.${fraction}`) * 1000 : 0);
  return { ms, zero: wholeMs === goZeroTimeMs && !/[1-9]/.test(fraction) };
}

/**
 * Builds the meta.k8s.io Table that kube-apiserver sends for
 * `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`: the resource's
 * printer gives the columns and cells, and `includeObject` decides what each
 * row's `object` carries (kube's `asTable` in endpoints/handlers/response.go).
 */
import {
  badRequest,
  fieldErrorMessage,
  fieldErrors,
  type KubeObject,
  type ObjectMeta,
} from '@operant/apimachinery';
import { printerFor, type ResourcePrinter } from './builtin-printers.js';
import type { TableCell, TableColumnDefinition, TableRowCondition } from './column.js';

/** What a row's `object` holds: nothing, the object's metadata (the default), or the whole object. */
export type IncludeObjectPolicy = 'None' | 'Metadata' | 'Object';

/** The Table versions kube serves: meta.k8s.io/v1 and the older v1beta1. */
export type TableVersion = 'v1' | 'v1beta1';

/** A Table's list metadata (metav1.ListMeta); every field is omitted when empty. */
export interface TableListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

/** meta.k8s.io PartialObjectMetadata: an object reduced to its metadata. */
export interface PartialObjectMetadata {
  kind: 'PartialObjectMetadata';
  apiVersion: string;
  metadata: ObjectMeta;
}

/** One row of a Table (metav1.TableRow). */
export interface TableRow {
  cells: TableCell[];
  /** Present only when the printer sets some (kube: `Completed` on finished pods). */
  conditions?: TableRowCondition[];
  /** PartialObjectMetadata, the full object, or null for `includeObject=None`. */
  object: PartialObjectMetadata | KubeObject | null;
}

/** A meta.k8s.io Table, field for field as kube-apiserver serializes it. */
export interface Table {
  kind: 'Table';
  apiVersion: string;
  metadata: TableListMeta;
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

/** Options for {@link toTable}. */
export interface ToTableOptions {
  /** What each row's `object` carries; kube's default is `Metadata`. */
  includeObject?: IncludeObjectPolicy;
  /** The reference time for ages (AGE, LAST SEEN, RESTARTS); defaults to the current time. */
  now?: Date;
  /**
   * The list's metadata. For a single object (a GET, a watch event) leave it
   * out: the object's own resourceVersion is used, as kube does.
   */
  listMeta?: TableListMeta;
  /**
   * Leave out the column definitions (an empty list), as kube does for the
   * watch events after the first.
   */
  noHeaders?: boolean;
  /** The Table's version, from the Accept header's `v=`; defaults to `v1`. */
  version?: TableVersion;
}

/**
 * Reads the `includeObject` query parameter: `Metadata` when absent or empty,
 * and kube's 400 (`Unable to convert to Table as requested: includeObject:
 * Invalid value: ...`) for anything but `None`, `Metadata` or `Object`.
 */
export function parseIncludeObject(value: string | null | undefined): IncludeObjectPolicy {
  if (value === null || value === undefined || value === '' || value === 'Metadata') return 'Metadata';
  if (value === 'None' || value === 'Object') return value;
  const err = fieldErrors.invalid('includeObject', value, "must be 'Metadata', 'Object', 'None', or empty");
  throw badRequest(`Unable to convert to Table as requested: ${fieldErrorMessage(err)}`);
}

/**
 * The columns of a resource's Table, every one including the priority-1
 * (wide) columns: kube's printer columns for built-ins, Name and Created At
 * otherwise.
 */
export function columnsFor(resource: { group: string; resource: string }): TableColumnDefinition[] {
  return printerFor(resource).columns.map((c) => ({ ...c }));
}

function listMetaOf(objects: KubeObject[], given: TableListMeta | undefined): TableListMeta {
  const meta: TableListMeta = {};
  const source: TableListMeta =
    given ?? (objects.length === 1 ? { resourceVersion: objects[0].metadata?.resourceVersion } : {});
  if (source.resourceVersion) meta.resourceVersion = source.resourceVersion;
  if (source.continue) meta.continue = source.continue;
  if (source.remainingItemCount !== undefined && source.remainingItemCount !== null) {
    meta.remainingItemCount = source.remainingItemCount;
  }
  return meta;
}

function rowObject(
  obj: KubeObject,
  includeObject: IncludeObjectPolicy,
  apiVersion: string,
): PartialObjectMetadata | KubeObject | null {
  switch (includeObject) {
    case 'None':
      return null;
    case 'Object':
      return obj;
    case 'Metadata':
      return { kind: 'PartialObjectMetadata', apiVersion, metadata: obj.metadata ?? {} };
  }
}

/**
 * Converts objects of one resource to the meta.k8s.io Table kube-apiserver
 * sends: `{kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata,
 * columnDefinitions, rows: [{cells, conditions?, object}]}`. The Name column
 * comes first (format `name`), all columns are present including the wide ones,
 * and by default each row's object is a PartialObjectMetadata.
 */
export function toTable(
  resource: { group: string; resource: string },
  objects: KubeObject[],
  opts: ToTableOptions = {},
): Table {
  return tableFromPrinter(printerFor(resource), objects, opts);
}

/**
 * {@link toTable} with the columns and cells of a given printer, e.g. the one
 * a CustomResourceDefinition's printer columns describe. Rows, their objects,
 * the list metadata and `noHeaders` are handled as for built-ins.
 */
export function tableFromPrinter(printer: ResourcePrinter, objects: KubeObject[], opts: ToTableOptions = {}): Table {
  const now = opts.now ?? new Date();
  const includeObject = opts.includeObject ?? 'Metadata';
  const apiVersion = `meta.k8s.io/${opts.version ?? 'v1'}`;
  const rows = objects.map((obj): TableRow => {
    const printed = printer.print(obj, now);
    const object = rowObject(obj, includeObject, apiVersion);
    // Key order as kube writes a row: cells, conditions (only when set), object.
    return printed.conditions && printed.conditions.length > 0
      ? { cells: printed.cells, conditions: printed.conditions.map((c) => ({ ...c })), object }
      : { cells: printed.cells, object };
  });
  return {
    kind: 'Table',
    apiVersion,
    metadata: listMetaOf(objects, opts.listMeta),
    columnDefinitions: opts.noHeaders ? [] : printer.columns.map((c) => ({ ...c })),
    rows,
  };
}

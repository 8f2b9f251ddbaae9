/** The Table of any served resource: kube's printers for built-ins, printer columns for custom resources. */
import type { KubeObject } from '@operant/apimachinery';
import type { ResourceInfo } from '../registry/resource-info.js';
import type { ResourcePrinter } from './builtin-printers.js';
import { customResourcePrinter } from './custom-resource-table.js';
import { tableFromPrinter, toTable, type Table, type ToTableOptions } from './table.js';

/** Printers compiled once per CRD version (its ResourceInfo is replaced when the CRD changes). */
const customPrinters = new WeakMap<ResourceInfo, ResourcePrinter>();

export function tableForResource(info: ResourceInfo, objects: KubeObject[], opts: ToTableOptions = {}): Table {
  if (!info.custom) return toTable({ group: info.group, resource: info.resource }, objects, opts);
  let printer = customPrinters.get(info);
  if (!printer) {
    printer = customResourcePrinter(info.custom.printerColumns);
    customPrinters.set(info, printer);
  }
  return tableFromPrinter(printer, objects, opts);
}

/**
 * Label and field selectors of a list or watch, compiled once. Field selectors
 * are limited to metadata.name, metadata.namespace and the fields the resource
 * declares selectable; others are refused as kube refuses them.
 */
import { badRequest, fieldValue, parseFieldSelector, parseLabelSelector, type KubeObject } from '@operant/apimachinery';
import { pathTree, scanPaths } from '../storage/metadata-scan.js';
import type { Versioned } from '../storage/types.js';
import type { ListOptions } from './options.js';
import type { ResourceInfo } from './resource-info.js';

export interface ListFilter {
  /** True when neither selector restricts anything. */
  empty: boolean;
  matches(obj: KubeObject): boolean;
  /** `matches` for a stored object; one read back from disk and not parsed is judged by the fields the selectors read, scanned from its JSON, and stays unparsed. */
  matchesStored(v: Versioned): boolean;
}

/** Values a selectable field reads as when absent: Go's zero value of a non-pointer field. */
const zeroValues: Record<string, string> = { 'spec.hostNetwork': 'false', 'spec.unschedulable': 'false', 'status.successful': '0' };

/** Selectable fields whose value lives under another path (a Job's status.successful is its status.succeeded). */
const fieldPaths: Record<string, string> = { 'status.successful': 'status.succeeded' };

export function compileListFilter(info: ResourceInfo, opts: Pick<ListOptions, 'labelSelector' | 'fieldSelector'>): ListFilter {
  let labels: ReturnType<typeof parseLabelSelector> | undefined;
  let fields: ReturnType<typeof parseFieldSelector> | undefined;
  try {
    if (opts.labelSelector) labels = parseLabelSelector(opts.labelSelector);
  } catch (e) {
    throw badRequest((e as Error).message);
  }
  try {
    if (opts.fieldSelector) fields = parseFieldSelector(opts.fieldSelector);
  } catch (e) {
    throw badRequest((e as Error).message);
  }
  if (fields) {
    // Kinds with selectable fields have a field-label conversion function in kube
    // (which, for cluster-scoped kinds, does not take metadata.namespace); the rest
    // get runtime.DefaultMetaV1FieldSelectorConversion, with its own message.
    const converts = info.selectableFields !== undefined;
    const allowed = new Set(['metadata.name', ...(converts && !info.namespaced ? [] : ['metadata.namespace']), ...(info.selectableFields ?? [])]);
    for (const r of fields.requirements) {
      if (allowed.has(r.field)) continue;
      if (info.fieldLabelKind) throw badRequest(`field label ${JSON.stringify(r.field)} not supported for ${JSON.stringify(info.fieldLabelKind)}`);
      throw badRequest(
        converts ? `field label not supported: ${r.field}` : `${JSON.stringify(r.field)} is not a known field selector: only "metadata.name", "metadata.namespace"`,
      );
    }
  }
  const labelsEmpty = !labels || labels.empty();
  const fieldsEmpty = !fields || fields.requirements.length === 0;
  const matches = (obj: KubeObject): boolean => {
    if (!labelsEmpty && !labels!.matches(obj.metadata.labels as Record<string, string> | undefined)) return false;
    if (!fieldsEmpty && !fields!.matches((f) => fieldValue(obj, fieldPaths[f] ?? f) ?? zeroValues[f] ?? '')) return false;
    return true;
  };
  const empty = labelsEmpty && fieldsEmpty;
  // What the selectors read, for objects not parsed yet.
  const read = empty ? undefined : pathTree([...(labelsEmpty ? [] : ['metadata.labels']), ...(fields?.requirements ?? []).map((r) => fieldPaths[r.field] ?? r.field)]);
  return {
    empty,
    matches,
    matchesStored(v: Versioned): boolean {
      if (empty) return true;
      const raw = v.unparsed;
      const partial = raw && scanPaths(raw.jsonText(), read!);
      if (!partial) return matches(v.value);
      partial.metadata ??= {};
      return matches(partial as KubeObject);
    },
  };
}

/**
 * Field ownership across the scale subresource, as k8s.io/apimachinery's
 * util/managedfields ScaleHandler keeps it: a write to `<resource>/scale` is
 * tracked on an autoscaling/v1 Scale whose managedFields are the parent's
 * owners of the replicas field, moved to the Scale's `.spec.replicas`; after
 * the write they are mapped back onto the parent's entries.
 *
 * Kube's quirks are kept on purpose, since clients see them: a manager that
 * first appears through the scale subresource gets an entry without `time`
 * (kube takes the time from the parent's entries), and entries of API versions
 * the mapping does not know are dropped.
 */
import { FieldSet } from './field-set.js';
import { decodeManagedFields, encodeManagedFields, emptyManaged, type ManagedFieldsEntry } from './managed-fields.js';
import type { FieldPath } from './path-element.js';

/** The apiVersion of the Scale objects the subresource serves. */
export const scaleApiVersion = 'autoscaling/v1';

const replicasPathInScale: FieldPath = [{ field: 'spec' }, { field: 'replicas' }];

/**
 * Per API version of the parent (`apps/v1`), where it keeps its replicas; null
 * for a version without a scale subresource (a custom resource's version).
 */
export type ReplicasPathMappings = ReadonlyMap<string, FieldPath | null>;

/** The path of a dotted JSON path such as a CRD's `.spec.replicas`. */
export function replicasPathOf(jsonPath: string): FieldPath {
  return jsonPath
    .replace(/^\./, '')
    .split('.')
    .map((field) => ({ field }));
}

/**
 * Maps managedFields between a parent object and its Scale.
 *
 * @example
 * ```ts
 * import { ScaleHandler } from '@operant/apimachinery/managedfields';
 *
 * const parent = [{ manager: 'kubectl', operation: 'Apply' as const, apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }];
 * const handler = new ScaleHandler(parent, 'apps/v1', new Map([['apps/v1', [{ field: 'spec' }, { field: 'replicas' }]]]));
 * handler.toSubresource();
 * // [{ manager: 'kubectl', operation: 'Apply', apiVersion: 'autoscaling/v1', fieldsV1: { 'f:spec': { 'f:replicas': {} } }, ... }]
 * ```
 */
export class ScaleHandler {
  /**
   * @param parentEntries the parent object's managedFields
   * @param groupVersion the parent's API version the scale request was made to
   * @param mappings where each of the parent's API versions keeps its replicas
   */
  constructor(
    private readonly parentEntries: unknown,
    private readonly groupVersion: string,
    private readonly mappings: ReplicasPathMappings,
  ) {}

  /** The Scale's managedFields: the parent's owners of the replicas field, owning `.spec.replicas` of autoscaling/v1. */
  toSubresource(): ManagedFieldsEntry[] | undefined {
    const parent = decodeManagedFields(this.parentEntries);
    const out = emptyManaged();
    for (const [id, vs] of parent.sets) {
      const path = this.mappings.get(vs.apiVersion);
      if (!path || !vs.set.has(path)) continue;
      out.sets.set(id, { set: FieldSet.of(replicasPathInScale), apiVersion: scaleApiVersion, applied: vs.applied });
      out.times.set(id, parent.times.get(id));
    }
    return encodeManagedFields(out);
  }

  /**
   * The parent's managedFields after a write to the Scale left `scaleEntries`:
   * owners of the replicas field who no longer own the Scale's lose it, and the
   * Scale's owners of `.spec.replicas` own the parent's replicas field.
   */
  toParent(scaleEntries: unknown): ManagedFieldsEntry[] | undefined {
    const parent = decodeManagedFields(this.parentEntries);
    const scale = decodeManagedFields(scaleEntries);
    const out = emptyManaged();
    for (const [id, vs] of parent.sets) {
      if (!this.mappings.has(vs.apiVersion)) continue;
      const path = this.mappings.get(vs.apiVersion);
      if (!path || !vs.set.has(path)) {
        out.sets.set(id, vs);
        out.times.set(id, parent.times.get(id));
        continue;
      }
      if (scale.sets.has(id)) {
        // Still an owner through the Scale: the entry stays as it is.
        out.sets.set(id, vs);
        out.times.set(id, parent.times.get(id));
        scale.sets.delete(id);
        continue;
      }
      // The replicas field was taken through the Scale.
      const set = vs.set.difference(FieldSet.of(path));
      if (set.empty()) continue;
      out.sets.set(id, { ...vs, set });
      out.times.set(id, parent.times.get(id));
    }
    const parentPath = this.mappings.get(this.groupVersion);
    for (const [id, vs] of scale.sets) {
      if (!parentPath || !vs.set.has(replicasPathInScale)) continue;
      out.sets.set(id, { set: FieldSet.of(parentPath), apiVersion: this.groupVersion, applied: vs.applied });
      out.times.set(id, parent.times.get(id));
    }
    return encodeManagedFields(out);
  }
}

/**
 * A SidecarSet's patchPodMetadata applied to a pod's annotations (Kruise's
 * PatchPodMetadata): Retain adds the keys the pod lacks, Overwrite sets them,
 * MergePatchJson merges the value, a JSON object, into the pod's JSON value
 * (RFC 7386, as evanphx/json-patch's MergePatch, written back as Go writes
 * JSON: keys sorted).
 */
import { applyMergePatch } from '@operant/apimachinery';
import type { SidecarSetPatchPodMetadata } from '../../api/v1alpha1/sidecarset-types.js';
import { PatchPolicy } from '../../api/v1alpha1/sidecarset-types.js';
import { goJsonValue } from '../hash/go-json.js';

/** Applies the patches to `annotations` in place; true when something changed. Throws when a merge cannot be made. */
export function patchPodMetadata(annotations: Record<string, string>, patches: readonly SidecarSetPatchPodMetadata[] | undefined): boolean {
  const before = JSON.stringify(annotations);
  for (const patch of patches ?? []) {
    for (const [key, value] of Object.entries(patch.annotations ?? {})) {
      switch (patch.patchPolicy ?? PatchPolicy.Retain) {
        case PatchPolicy.Retain:
        case '':
          if (!(key in annotations)) annotations[key] = value;
          break;
        case PatchPolicy.Overwrite:
          annotations[key] = value;
          break;
        case PatchPolicy.MergePatchJson:
          annotations[key] = annotations[key] ? mergeJson(annotations[key], value, key) : value;
          break;
      }
    }
  }
  return JSON.stringify(annotations) !== before;
}

function mergeJson(origin: string, patch: string, key: string): string {
  const parse = (text: string, what: string): Record<string, unknown> => {
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      v = undefined;
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`annotation ${key}: the ${what} is not a JSON object: ${text}`);
    return v as Record<string, unknown>;
  };
  return goJsonValue(applyMergePatch(parse(origin, "pod's value"), parse(patch, 'patch')));
}

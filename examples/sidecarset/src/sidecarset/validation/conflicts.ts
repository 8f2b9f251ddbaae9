/**
 * Conflicts between a SidecarSet and the others (Kruise's
 * validateSidecarConflict): two SidecarSets that can select the same pod
 * (their namespace scopes and their selectors overlap) may not inject
 * containers or init containers of the same name, may not declare volumes of
 * the same name with different content, and may not both write an annotation
 * when either overwrites it. Pure: the caller lists the other SidecarSets and
 * says what labels the namespaces named by `spec.namespace` carry.
 */
import { isDeepStrictEqual } from 'node:util';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import { fieldErrors, type FieldError } from '@operant/runtime';
import { labelSelectorFromObject } from '@operant/apimachinery';
import type { SidecarSet } from '../../api/v1alpha1/sidecarset-types.js';
import { PatchPolicy } from '../../api/v1alpha1/sidecarset-types.js';
import { isSelectorOverlapping } from './selector-overlap.js';

/** The labels of a namespace, undefined when it does not exist. */
export type NamespaceLabels = (namespace: string) => Readonly<Record<string, string>> | undefined;

/** The conflicts of `obj` with `others` (which may include `obj` itself: it is skipped by name). */
export function validateSidecarSetConflicts(obj: SidecarSet, others: readonly SidecarSet[], namespaceLabels: NamespaceLabels): FieldError[] {
  const containerIn = new Map<string, string>();
  const initContainerIn = new Map<string, string>();
  const volumeIn = new Map<string, SidecarSet>();
  const annotationIn = new Map<string, { name: string; policy: string }>();
  for (const other of others) {
    if (other.metadata?.name === obj.metadata?.name) continue;
    if (!namespacesOverlap(obj, other, namespaceLabels) || !isSelectorOverlapping(obj.spec?.selector, other.spec?.selector)) continue;
    const name = other.metadata?.name ?? '';
    for (const c of other.spec?.initContainers ?? []) initContainerIn.set(c.name, name);
    for (const c of other.spec?.containers ?? []) containerIn.set(c.name, name);
    for (const v of other.spec?.volumes ?? []) volumeIn.set(v.name, other);
    for (const patch of other.spec?.patchPodMetadata ?? []) {
      if (patch.patchPolicy === PatchPolicy.Retain) continue;
      for (const key of Object.keys(patch.annotations ?? {})) annotationIn.set(key, { name, policy: patch.patchPolicy ?? '' });
    }
  }

  const errs: FieldError[] = [];
  for (const [list, seen] of [[obj.spec?.initContainers, initContainerIn], [obj.spec?.containers, containerIn]] as const) {
    for (const c of list ?? []) {
      const other = seen.get(c.name);
      if (other !== undefined) errs.push(fieldErrors.invalid('spec.containers', c.name, `container ${c.name} already exist in ${other}`));
    }
  }
  for (const v of obj.spec?.volumes ?? []) {
    const other = volumeIn.get(v.name);
    if (other && !isDeepStrictEqual(v, other.spec?.volumes?.find((o) => o.name === v.name))) {
      errs.push(fieldErrors.invalid('spec.volumes', v.name, `volume ${v.name} is in conflict with sidecarset ${other.metadata?.name ?? ''}`));
    }
  }
  for (const patch of obj.spec?.patchPodMetadata ?? []) {
    if (patch.patchPolicy === PatchPolicy.Retain) continue;
    for (const key of Object.keys(patch.annotations ?? {})) {
      const other = annotationIn.get(key);
      if (other && (patch.patchPolicy === PatchPolicy.Overwrite || other.policy === PatchPolicy.Overwrite)) {
        errs.push(fieldErrors.invalid('spec.patchPodMetadata', key, `annotation ${key} is in conflict with sidecarset ${other.name}`));
      }
    }
  }
  return errs;
}

/**
 * Whether two SidecarSets' namespace scopes can meet (isSidecarSetNamespaceOverlapping):
 * not when they name different namespaces, nor when their namespace selectors
 * are disjoint, nor when one names a namespace the other's selector does not
 * match. (Kruise tests that last case with the wrong selector when the other
 * SidecarSet is the one naming a namespace, and so never finds that overlap;
 * this checks what it means to.)
 */
export function namespacesOverlap(a: SidecarSet, b: SidecarSet, namespaceLabels: NamespaceLabels): boolean {
  const [nsA, nsB] = [a.spec?.namespace ?? '', b.spec?.namespace ?? ''];
  const [selA, selB] = [a.spec?.namespaceSelector, b.spec?.namespaceSelector];
  if (nsA && nsB && nsA !== nsB) return false;
  if (selA && selB && !isSelectorOverlapping(selA, selB)) return false;
  if (nsA && selB && !namespaceMatches(nsA, selB, namespaceLabels)) return false;
  if (nsB && selA && !namespaceMatches(nsB, selA, namespaceLabels)) return false;
  return true;
}

function namespaceMatches(namespace: string, selector: LabelSelector, namespaceLabels: NamespaceLabels): boolean {
  const labels = namespaceLabels(namespace);
  if (!labels) return false;
  try {
    return labelSelectorFromObject(selector).matches(labels);
  } catch {
    return false;
  }
}

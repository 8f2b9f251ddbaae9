/**
 * The SidecarSet validating webhook's decision, pure: the SidecarSet's own
 * checks first, and only when it passes them, its conflicts with the other
 * SidecarSets (Kruise lists the others only for a SidecarSet that is valid).
 */
import type { FieldError } from '@operant/runtime';
import type { SidecarSet } from '../../api/v1alpha1/sidecarset-types.js';
import { validateSidecarSetConflicts, type NamespaceLabels } from './conflicts.js';
import { validateSidecarSet, type ValidationInput } from './sidecarset-validation.js';

export interface AdmissionInput extends ValidationInput {
  /** Every SidecarSet in the cluster (the one being validated may be among them). */
  others: readonly SidecarSet[];
  namespaceLabels: NamespaceLabels;
}

/** The field errors that refuse `obj` (created, or updated from `old`), or none. */
export function validateSidecarSetAdmission(obj: SidecarSet, old: SidecarSet | undefined, input: AdmissionInput): FieldError[] {
  const errs = validateSidecarSet(obj, old, input);
  return errs.length > 0 ? errs : validateSidecarSetConflicts(obj, input.others, input.namespaceLabels);
}

export { validateSidecarSet, type ValidationInput } from './sidecarset-validation.js';
export { validateSidecarSetConflicts, namespacesOverlap, type NamespaceLabels } from './conflicts.js';
export { isSelectorOverlapping } from './selector-overlap.js';

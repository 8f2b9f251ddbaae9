/**
 * Reconcile helpers, after controller-runtime's controllerutil and
 * apimachinery's meta conditions: finalizers, owner and controller
 * references, status conditions, createOrUpdate and createOrPatch.
 */
export {
  addFinalizer,
  containsFinalizer,
  handleFinalizer,
  removeFinalizer,
  type FinalizerCleanup,
  type FinalizerResult,
  type HandleFinalizerOptions,
} from './finalizers.js';
export {
  AlreadyOwnedError,
  getControllerOf,
  hasControllerReference,
  hasOwnerReference,
  isControlledBy,
  removeOwnerReference,
  setControllerReference,
  setOwnerReference,
  type OwnerReferenceOptions,
} from './owner-references.js';
export {
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
  type Condition,
  type ConditionOptions,
  type ConditionStatus,
  type NewCondition,
} from './conditions.js';
export {
  createOrPatch,
  createOrUpdate,
  type CreateOrUpdateOptions,
  type MutateFn,
  type OperationOutcome,
  type OperationResult,
} from './create-or-update.js';
export { createMergePatch } from './merge-patch.js';

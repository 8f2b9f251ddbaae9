export { FieldSet, type FieldsV1 } from './field-set.js';
export { FieldManager, applyConflictError, type FieldManagerOptions } from './field-manager.js';
export { decodeManagedFields, encodeManagedFields, isResetManagedFields, managerIdentifier, type ManagedFieldsEntry } from './managed-fields.js';
export { mergeTypeOf, untypedType, type MergeType } from './merge-type.js';
export { pathString, serializePathElement, parsePathElement, type FieldPath, type PathElement } from './path-element.js';
export { compareTyped, mergeTyped, toFieldSet, validateTyped, removeItems } from './typed.js';
export { Updater, ConflictsError, type SetFilter, type ManagerSets, type VersionedSet, type Conflict } from './updater.js';

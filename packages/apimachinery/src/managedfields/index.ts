export { FieldManager, type FieldManagerOptions } from './field-manager.js';
export { FieldSet, type FieldsV1 } from './field-set.js';
export { managedFieldsTime, type ManagedFieldsEntry } from './managed-fields.js';
export { mergeTypeOf, untypedType, type MergeType } from './merge-type.js';
export type { FieldPath, PathElement } from './path-element.js';
export type { SetFilter } from './updater.js';
export { ScaleHandler, replicasPathOf, scaleApiVersion, type ReplicasPathMappings } from './scale-handler.js';
export { shareManagedFields } from './shared-fields.js';

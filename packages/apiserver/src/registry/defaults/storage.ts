/**
 * storage.k8s.io/v1 defaults (k8s.io/kubernetes pkg/apis/storage/v1/
 * defaults.go at 1.32): SetDefaults_StorageClass.
 */
import { defaultNil, type Json } from './json-fields.js';

/** A StorageClass's volumes are deleted with their claims and bound at once, unless it says otherwise. */
export function defaultStorageClass(storageClass: Json): void {
  defaultNil(storageClass, 'reclaimPolicy', 'Delete');
  defaultNil(storageClass, 'volumeBindingMode', 'Immediate');
}

/**
 * storage.k8s.io/v1 defaults (k8s.io/kubernetes pkg/apis/storage/v1/
 * defaults.go at 1.32): SetDefaults_StorageClass and SetDefaults_CSIDriver.
 */
import { defaultNil, structAt, type Json } from './json-fields.js';

/** A StorageClass's volumes are deleted with their claims and bound at once, unless it says otherwise. */
export function defaultStorageClass(storageClass: Json): void {
  defaultNil(storageClass, 'reclaimPolicy', 'Delete');
  defaultNil(storageClass, 'volumeBindingMode', 'Immediate');
}

/** A CSIDriver's spec: attach required, no pod info, persistent volumes, fsGroup for RWO volumes with an fsType. */
export function defaultCSIDriver(driver: Json): void {
  const spec = structAt(driver, 'spec');
  defaultNil(spec, 'attachRequired', true);
  defaultNil(spec, 'podInfoOnMount', false);
  defaultNil(spec, 'storageCapacity', false);
  defaultNil(spec, 'fsGroupPolicy', 'ReadWriteOnceWithFSType');
  if (!Array.isArray(spec.volumeLifecycleModes) || spec.volumeLifecycleModes.length === 0) spec.volumeLifecycleModes = ['Persistent'];
  defaultNil(spec, 'requiresRepublish', false);
  // SELinuxMountReadWriteOncePod is on by default in 1.32.
  defaultNil(spec, 'seLinuxMount', false);
}

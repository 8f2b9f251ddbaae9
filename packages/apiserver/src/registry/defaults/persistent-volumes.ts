/**
 * core/v1 defaults of PersistentVolumes and PersistentVolumeClaims
 * (k8s.io/kubernetes pkg/apis/core/v1/defaults.go at 1.32).
 */
import { defaultNil, defaultString, structAt, type Json } from './json-fields.js';

/** SetDefaults_PersistentVolume: Retain, Filesystem, and a Pending phase. */
export function defaultPersistentVolume(pv: Json): void {
  const spec = structAt(pv, 'spec');
  defaultString(spec, 'persistentVolumeReclaimPolicy', 'Retain');
  defaultNil(spec, 'volumeMode', 'Filesystem');
  defaultString(structAt(pv, 'status'), 'phase', 'Pending');
}

/** SetDefaults_PersistentVolumeClaim: Filesystem, and a Pending phase. */
export function defaultPersistentVolumeClaim(pvc: Json): void {
  defaultNil(structAt(pvc, 'spec'), 'volumeMode', 'Filesystem');
  defaultString(structAt(pvc, 'status'), 'phase', 'Pending');
}

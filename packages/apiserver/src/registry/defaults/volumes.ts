/**
 * Volume defaults (k8s.io/kubernetes pkg/apis/core/v1/defaults.go at 1.32:
 * SetDefaults_Volume and the per-source functions, plus the `+default`
 * markers of k8s.io/api core/v1 v0.32 on the RBD, iSCSI, AzureDisk and ScaleIO
 * sources, which zz_generated.defaults.go applies).
 */
import { defaultFieldRef } from './containers.js';
import { asObject, defaultNil, defaultString, objectsAt, type Json } from './json-fields.js';

/** 0644, the mode kube gives secret, configMap, downwardAPI and projected files. */
const defaultFileMode = 420;

/** Each source's defaults, keyed by the VolumeSource field that holds it. */
const sourceDefaults: Record<string, (source: Json) => void> = {
  // HostPathUnset is "", and the pointer makes it visible.
  hostPath: (s) => defaultNil(s, 'type', ''),
  secret: (s) => defaultNil(s, 'defaultMode', defaultFileMode),
  configMap: (s) => defaultNil(s, 'defaultMode', defaultFileMode),
  downwardAPI(s) {
    defaultNil(s, 'defaultMode', defaultFileMode);
    for (const item of objectsAt(s, 'items')) defaultFieldRef(item);
  },
  projected(s) {
    defaultNil(s, 'defaultMode', defaultFileMode);
    for (const projection of objectsAt(s, 'sources')) {
      const downwardAPI = asObject(projection.downwardAPI);
      if (downwardAPI) for (const item of objectsAt(downwardAPI, 'items')) defaultFieldRef(item);
      const token = asObject(projection.serviceAccountToken);
      if (token) defaultNil(token, 'expirationSeconds', 3600);
    }
  },
  iscsi: (s) => defaultString(s, 'iscsiInterface', 'default'),
  rbd(s) {
    defaultString(s, 'pool', 'rbd');
    defaultString(s, 'user', 'admin');
    defaultString(s, 'keyring', '/etc/ceph/keyring');
  },
  azureDisk(s) {
    defaultNil(s, 'cachingMode', 'ReadWrite');
    defaultNil(s, 'fsType', 'ext4');
    defaultNil(s, 'readOnly', false);
    defaultNil(s, 'kind', 'Shared');
  },
  scaleIO(s) {
    defaultString(s, 'storageMode', 'ThinProvisioned');
    defaultString(s, 'fsType', 'xfs');
  },
  ephemeral(s) {
    // SetDefaults_PersistentVolumeClaimSpec on the claim template.
    const claimSpec = asObject(asObject(s.volumeClaimTemplate)?.spec);
    if (claimSpec) defaultNil(claimSpec, 'volumeMode', 'Filesystem');
  },
};

/** Fills in one volume's defaults in place; a volume naming no source is an emptyDir. */
export function defaultVolume(volume: Json): void {
  const sources = Object.keys(volume).filter((k) => k !== 'name' && volume[k] !== null && volume[k] !== undefined);
  if (sources.length === 0) volume.emptyDir = {};
  for (const key of sources) {
    const source = asObject(volume[key]);
    if (source) sourceDefaults[key]?.(source);
  }
}

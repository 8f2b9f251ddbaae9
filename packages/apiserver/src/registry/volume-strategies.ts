/**
 * The strategies of core/v1 PersistentVolumes and PersistentVolumeClaims
 * (pkg/registry/core/persistentvolume{,claim}/strategy.go): kube's defaults,
 * the DefaultStorageClass admission plugin (a claim without a class gets the
 * default StorageClass), and the checks of pkg/apis/core/validation users hit,
 * in kube's words.
 */
import { canonicalQuantity, fieldErrors, isDNS1123Subdomain, type FieldError, type KubeObject } from '@operant/apimachinery';
import { baseStrategy, type Strategy } from './strategy.js';
import { defaultPersistentVolume, defaultPersistentVolumeClaim } from './defaults/persistent-volumes.js';
import { defaultStorageClassAnnotations } from './storage-strategies.js';
import { asObj } from './defaults/json-fields.js';

type Json = Record<string, unknown>;
const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The access modes kube knows, in the order kube abbreviates them (RWO, ROX, RWX, RWOP). */
export const accessModes = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'];
const volumeModes = ['Block', 'Filesystem'];
const reclaimPolicies = ['Delete', 'Recycle', 'Retain'];
/** The beta annotation that still names a claim's or volume's class before spec.storageClassName. */
export const betaStorageClassAnnotation = 'volume.beta.kubernetes.io/storage-class';

/** The volume sources a PersistentVolume may name (exactly one). */
const volumeSources = [
  'awsElasticBlockStore', 'azureDisk', 'azureFile', 'cephfs', 'cinder', 'csi', 'fc', 'flexVolume', 'flocker', 'gcePersistentDisk', 'glusterfs',
  'hostPath', 'iscsi', 'local', 'nfs', 'photonPersistentDisk', 'portworxVolume', 'quobyte', 'rbd', 'scaleIO', 'storageos', 'vsphereVolume',
];

function validateAccessModes(modes: unknown, path: string, requiredDetail: string): FieldError[] {
  const list = Array.isArray(modes) ? (modes as unknown[]) : [];
  if (list.length === 0) return [fieldErrors.required(path, requiredDetail)];
  const sorted = [...accessModes].sort();
  return list.filter((m) => !accessModes.includes(String(m))).map((m) => fieldErrors.notSupported(path, m, sorted));
}

function validateClassName(spec: Json): FieldError[] {
  const name = spec.storageClassName;
  if (typeof name !== 'string' || name === '') return [];
  return isDNS1123Subdomain(name).map((msg) => fieldErrors.invalid('spec.storageClassName', name, msg));
}

function validateVolumeMode(spec: Json): FieldError[] {
  return spec.volumeMode !== undefined && !volumeModes.includes(String(spec.volumeMode)) ? [fieldErrors.notSupported('spec.volumeMode', spec.volumeMode, volumeModes)] : [];
}

function positiveQuantity(value: unknown, path: string): FieldError[] {
  try {
    const q = canonicalQuantity(value as string | number);
    return q === '0' || q.startsWith('-') ? [fieldErrors.invalid(path, q, 'must be greater than zero')] : [];
  } catch (e) {
    return [fieldErrors.invalid(path, value ?? null, (e as Error).message)];
  }
}

// ---------------------------------------------------------------------------
// PersistentVolume

function validatePersistentVolume(o: KubeObject): FieldError[] {
  const spec = asObj(o.spec);
  const errs: FieldError[] = [];
  const capacity = asObj(spec.capacity);
  if (Object.keys(capacity).length === 0) errs.push(fieldErrors.required('spec.capacity', ''));
  else if (!('storage' in capacity) || Object.keys(capacity).length > 1) errs.push(fieldErrors.notSupported('spec.capacity', capacity, ['storage']));
  if ('storage' in capacity) errs.push(...positiveQuantity(capacity.storage, 'spec.capacity[storage]'));
  errs.push(...validateAccessModes(spec.accessModes, 'spec.accessModes', ''));
  if (!reclaimPolicies.includes(String(spec.persistentVolumeReclaimPolicy))) {
    errs.push(fieldErrors.notSupported('spec.persistentVolumeReclaimPolicy', spec.persistentVolumeReclaimPolicy, reclaimPolicies));
  }
  const sources = volumeSources.filter((k) => spec[k] !== undefined && spec[k] !== null);
  if (sources.length === 0) errs.push(fieldErrors.required('spec', 'must specify a volume type'));
  for (const extra of sources.slice(1)) errs.push(fieldErrors.forbidden(`spec.${extra}`, 'may not specify more than 1 volume type'));
  errs.push(...validateClassName(spec), ...validateVolumeMode(spec));
  return errs;
}

// ---------------------------------------------------------------------------
// PersistentVolumeClaim

function validatePersistentVolumeClaim(o: KubeObject): FieldError[] {
  const spec = asObj(o.spec);
  const errs = validateAccessModes(spec.accessModes, 'spec.accessModes', 'at least 1 access mode is required');
  const requests = asObj(asObj(spec.resources).requests);
  if (requests.storage === undefined) errs.push(fieldErrors.required('spec.resources[storage]', ''));
  else errs.push(...positiveQuantity(requests.storage, 'spec.resources[storage]'));
  errs.push(...validateClassName(spec), ...validateVolumeMode(spec));
  return errs;
}

/**
 * kube's ValidatePersistentVolumeClaimUpdate: the spec stays as created,
 * except a volume name or a class set where there was none (the binder;
 * RetroactiveDefaultStorageClass),
 * and, for bound claims, larger storage requests and the attributes class.
 */
function validatePersistentVolumeClaimUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const errs = validatePersistentVolumeClaim(o);
  const spec = { ...asObj(o.spec) };
  const was = { ...asObj(old.spec) };
  if (was.storageClassName === undefined && spec.storageClassName !== undefined) was.storageClassName = spec.storageClassName;
  // The binder sets volumeName once.
  if (!was.volumeName) was.volumeName = spec.volumeName;
  const bound = asObj(old.status).phase === 'Bound';
  if (bound) {
    spec.resources = { ...asObj(spec.resources), requests: asObj(asObj(was.resources).requests) };
    spec.volumeAttributesClassName = was.volumeAttributesClassName;
  }
  if (!sameJson(spec, was)) {
    errs.push(fieldErrors.forbidden('spec', 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims'));
  }
  return errs;
}

/**
 * PersistentVolumeClaims; `storageClasses` lists the stored StorageClasses for
 * the DefaultStorageClass admission plugin (the newest default one wins).
 */
export function persistentVolumeClaimStrategy(storageClasses: () => KubeObject[]): Strategy {
  return baseStrategy({
    hasStatusSubresource: true,
    applyDefaults: defaultPersistentVolumeClaim,
    admitCreate(o) {
      const spec = asObj(o.spec);
      if (spec.storageClassName !== undefined && spec.storageClassName !== null) return;
      if (o.metadata.annotations?.[betaStorageClassAnnotation] !== undefined) return;
      const defaults = storageClasses()
        .filter((sc) => defaultStorageClassAnnotations.some((a) => sc.metadata.annotations?.[a] === 'true'))
        .sort((a, b) => String(b.metadata.creationTimestamp).localeCompare(String(a.metadata.creationTimestamp)) || String(a.metadata.name).localeCompare(String(b.metadata.name)));
      if (defaults.length > 0) o.spec = { ...spec, storageClassName: defaults[0].metadata.name };
    },
    prepareForCreate(o) {
      o.status = { phase: 'Pending' };
    },
    validate: validatePersistentVolumeClaim,
    validateUpdate: validatePersistentVolumeClaimUpdate,
  });
}

/** PersistentVolumes. */
export function persistentVolumeStrategy(): Strategy {
  return baseStrategy({
    hasStatusSubresource: true,
    applyDefaults: defaultPersistentVolume,
    prepareForCreate(o) {
      o.status = { phase: 'Pending' };
    },
    validate: validatePersistentVolume,
    validateUpdate: validatePersistentVolume,
  });
}

/**
 * The strategies of storage.k8s.io/v1 StorageClasses, CSIDrivers, CSINodes,
 * VolumeAttachments and CSIStorageCapacities (pkg/registry/storage/*\/strategy.go):
 * kube's defaults and pkg/apis/storage/validation's checks in kube's words,
 * with the fields an update may not change.
 */
import { fieldErrors, isDNS1123Subdomain, isQualifiedName, type FieldError, type KubeObject } from '@operant/apimachinery';
import { baseStrategy, statusSubresourceStrategy, type Strategy } from './strategy.js';
import { validateImmutableField } from './immutable-field.js';
import { defaultCSIDriver, defaultStorageClass } from './defaults/storage.js';
import { asObj } from './defaults/json-fields.js';

type Json = Record<string, unknown>;
const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The annotation that makes a StorageClass the default (and its beta spelling, still honoured). */
export const defaultStorageClassAnnotations = ['storageclass.kubernetes.io/is-default-class', 'storageclass.beta.kubernetes.io/is-default-class'];

const reclaimPolicies = ['Delete', 'Retain'];
const bindingModes = ['Immediate', 'WaitForFirstConsumer'];
const maxParametersBytes = 256 * 1024;

function validateStorageClass(o: KubeObject): FieldError[] {
  const sc = o as unknown as Json;
  const errs: FieldError[] = [];
  const provisioner = typeof sc.provisioner === 'string' ? sc.provisioner : '';
  if (provisioner === '') errs.push(fieldErrors.required('provisioner', ''));
  else for (const msg of isQualifiedName(provisioner.toLowerCase())) errs.push(fieldErrors.invalid('provisioner', provisioner, msg));
  const parameters = typeof sc.parameters === 'object' && sc.parameters !== null ? (sc.parameters as Record<string, string>) : {};
  let size = 0;
  for (const [k, v] of Object.entries(parameters)) {
    if (k === '') errs.push(fieldErrors.invalid('parameters', '', 'field can not be empty.'));
    size += k.length + String(v).length;
  }
  if (size > maxParametersBytes) errs.push(fieldErrors.tooLong('parameters', '', maxParametersBytes));
  if (!reclaimPolicies.includes(String(sc.reclaimPolicy))) errs.push(fieldErrors.notSupported('reclaimPolicy', sc.reclaimPolicy, reclaimPolicies));
  if (sc.volumeBindingMode === undefined || sc.volumeBindingMode === null) errs.push(fieldErrors.required('volumeBindingMode', ''));
  else if (!bindingModes.includes(String(sc.volumeBindingMode))) errs.push(fieldErrors.notSupported('volumeBindingMode', sc.volumeBindingMode, bindingModes));
  return errs;
}

/** kube's ValidateStorageClassUpdate: parameters, provisioner, reclaimPolicy and volumeBindingMode stay as created. */
function validateStorageClassUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const sc = o as unknown as Json;
  const was = old as unknown as Json;
  const errs = validateStorageClass(o);
  if (!sameJson(sc.parameters, was.parameters)) errs.push(fieldErrors.forbidden('parameters', 'updates to parameters are forbidden.'));
  if (sc.provisioner !== was.provisioner) errs.push(fieldErrors.forbidden('provisioner', 'updates to provisioner are forbidden.'));
  if (sc.reclaimPolicy !== was.reclaimPolicy) errs.push(fieldErrors.forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  errs.push(...validateImmutableField(sc.volumeBindingMode, was.volumeBindingMode, 'volumeBindingMode'));
  return errs;
}

// ---------------------------------------------------------------------------
// CSI


/** kube's ValidateCSIDriverName: at most 63 characters, a DNS subdomain once lowercased. */
function csiDriverNameProblems(name: unknown, path: string): FieldError[] {
  const value = typeof name === 'string' ? name : '';
  if (value === '') return [fieldErrors.required(path, value)];
  if (value.length > 63) return [fieldErrors.tooLong(path, value, 63)];
  return isDNS1123Subdomain(value.toLowerCase()).map((msg) => fieldErrors.invalid(path, value, msg));
}

const fsGroupPolicies = ['File', 'None', 'ReadWriteOnceWithFSType'];
const lifecycleModes = ['Ephemeral', 'Persistent'];

function validateCSIDriver(o: KubeObject): FieldError[] {
  const spec = asObj(o.spec);
  const errs: FieldError[] = [];
  for (const field of ['attachRequired', 'podInfoOnMount', 'requiresRepublish', 'storageCapacity']) {
    if (typeof spec[field] !== 'boolean') errs.push(fieldErrors.required(`spec.${field}`, ''));
  }
  if (spec.fsGroupPolicy !== undefined && !fsGroupPolicies.includes(String(spec.fsGroupPolicy))) {
    errs.push(fieldErrors.notSupported('spec.fsGroupPolicy', spec.fsGroupPolicy, fsGroupPolicies));
  }
  (Array.isArray(spec.volumeLifecycleModes) ? (spec.volumeLifecycleModes as unknown[]) : []).forEach((mode, i) => {
    if (!lifecycleModes.includes(String(mode))) errs.push(fieldErrors.notSupported(`spec.volumeLifecycleModes[${i}]`, mode, lifecycleModes));
  });
  const audiences = new Set<string>();
  (Array.isArray(spec.tokenRequests) ? (spec.tokenRequests as unknown[]) : []).forEach((t, i) => {
    const audience = String(asObj(t).audience ?? '');
    if (audiences.has(audience)) errs.push(fieldErrors.duplicate(`spec.tokenRequests[${i}].audience`, audience));
    audiences.add(audience);
  });
  return errs;
}

function validateCSINode(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  (Array.isArray(asObj(o.spec).drivers) ? (asObj(o.spec).drivers as unknown[]) : []).forEach((raw, i) => {
    const driver = asObj(raw);
    const at = `spec.drivers[${i}]`;
    errs.push(...csiDriverNameProblems(driver.name, `${at}.name`));
    if (!driver.nodeID) errs.push(fieldErrors.required(`${at}.nodeID`, 'nodeID must be provided'));
    const name = String(driver.name ?? '');
    if (names.has(name)) errs.push(fieldErrors.duplicate(`${at}.name`, name));
    names.add(name);
  });
  return errs;
}

function validateVolumeAttachment(o: KubeObject): FieldError[] {
  const spec = asObj(o.spec);
  const errs = csiDriverNameProblems(spec.attacher, 'spec.attacher');
  if (!spec.nodeName) errs.push(fieldErrors.required('spec.nodeName', ''));
  const source = asObj(spec.source);
  const sources = ['persistentVolumeName', 'inlineVolumeSpec'].filter((k) => source[k] !== undefined && source[k] !== null);
  if (sources.length !== 1) errs.push(fieldErrors.required('spec.source', 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
  return errs;
}

function validateCSIStorageCapacity(o: KubeObject): FieldError[] {
  const name = (o as unknown as Json).storageClassName;
  if (typeof name !== 'string' || name === '') return [fieldErrors.required('storageClassName', '')];
  return isDNS1123Subdomain(name).map((msg) => fieldErrors.invalid('storageClassName', name, msg));
}

/** The storage.k8s.io/v1 strategies, keyed `group/resource`. */
export function storageStrategies(): Array<[string, Strategy]> {
  return [
    ['storage.k8s.io/storageclasses', baseStrategy({ applyDefaults: defaultStorageClass, validate: validateStorageClass, validateUpdate: validateStorageClassUpdate })],
    [
      'storage.k8s.io/csidrivers',
      baseStrategy({
        tracksGeneration: true,
        applyDefaults: defaultCSIDriver,
        validate: validateCSIDriver,
        validateUpdate(o, old) {
          return [...validateCSIDriver(o), ...validateImmutableField(asObj(o.spec).attachRequired, asObj(old.spec).attachRequired, 'spec.attachRequired')];
        },
      }),
    ],
    ['storage.k8s.io/csinodes', baseStrategy({ validate: validateCSINode, validateUpdate: validateCSINode })],
    [
      'storage.k8s.io/volumeattachments',
      statusSubresourceStrategy({
        validate: validateVolumeAttachment,
        validateUpdate(o, old) {
          return [...validateVolumeAttachment(o), ...validateImmutableField(o.spec, old.spec, 'spec')];
        },
      }),
    ],
    ['storage.k8s.io/csistoragecapacities', baseStrategy({ validate: validateCSIStorageCapacity, validateUpdate: validateCSIStorageCapacity })],
  ];
}

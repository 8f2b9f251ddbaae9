/**
 * The strategy of storage.k8s.io/v1 StorageClasses
 * (pkg/registry/storage/storageclass/strategy.go): kube's defaults and
 * pkg/apis/storage/validation's checks in kube's words, with the fields an
 * update may not change.
 */
import { fieldErrors, isQualifiedName, type FieldError, type KubeObject } from '@operant/apimachinery';
import { baseStrategy, type Strategy } from './strategy.js';
import { defaultStorageClass } from './defaults/storage.js';

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
  if (sc.volumeBindingMode !== was.volumeBindingMode) errs.push(fieldErrors.invalid('volumeBindingMode', sc.volumeBindingMode ?? null, 'field is immutable'));
  return errs;
}

/** The storage.k8s.io/v1 strategies, keyed `group/resource`. */
export function storageStrategies(): Array<[string, Strategy]> {
  return [
    ['storage.k8s.io/storageclasses', baseStrategy({ applyDefaults: defaultStorageClass, validate: validateStorageClass, validateUpdate: validateStorageClassUpdate })],
  ];
}

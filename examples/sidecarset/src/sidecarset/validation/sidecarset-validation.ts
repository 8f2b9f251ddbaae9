/**
 * The SidecarSet validating webhook's checks of one SidecarSet (Kruise's
 * validateSidecarSet in pkg/webhook/sidecarset/validating), on create and on
 * update, as field errors with Kruise's paths and words. Kruise's paths are
 * kept where they are odd (`spec.container.podInjectPolicy` without an index,
 * `updateStrategy` and `revision` without `spec.`, `spec[0].transferEnv`), so
 * that a user sees the message Kruise would show. Conflicts with the other
 * SidecarSets are `conflicts.ts`'s.
 */
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { ObjectFieldSelector } from 'kubernetes-types/core/v1.js';
import { fieldErrors, type FieldError, type IntOrString } from '@operant/runtime';
import { isQualifiedName, maxLenError, regexError, validateObjectMeta } from '@operant/apimachinery';
import type { SidecarContainer, SidecarSet, SidecarSetSpec, SidecarSetUpdateStrategy } from '../../api/v1alpha1/sidecarset-types.js';
import { SidecarSetCustomVersionLabel, UpdateStrategyType } from '../../api/v1alpha1/sidecarset-types.js';
import { isNativeSidecar } from '../hash/hash.js';
import { SidecarSetKindName } from '../annotations.js';
import { splitSubscriptedPath } from '../field-path.js';
import { validateSelector } from './label-selector.js';
import { validatePodParts } from './pod-spec.js';

export interface ValidationInput {
  /**
   * The ControllerRevisions in the operator's namespace, to check that
   * `injectionStrategy.revision` names one; undefined skips the check.
   */
  revisions?: readonly ControllerRevision[];
}

const nameFormat = '^[a-zA-Z0-9\\-]+$';
const nameMaxLength = 63;

/** validateSidecarSetName: letters, digits and '-', at most 63 characters. */
export function sidecarSetNameErrors(name: string): string[] {
  const errs: string[] = [];
  if (!new RegExp(nameFormat).test(name)) errs.push(regexError("sidecarset name must consist of alphanumeric characters or '-'", nameFormat, 'example-com'));
  if (name.length > nameMaxLength) errs.push(maxLenError(nameMaxLength));
  return errs;
}

/** Every check of a SidecarSet on its own; `old` is the stored SidecarSet on update. */
export function validateSidecarSet(obj: SidecarSet, old?: SidecarSet, input: ValidationInput = {}): FieldError[] {
  const errs = validateObjectMeta(obj.metadata, { namespaced: false, nameValidator: (name) => sidecarSetNameErrors(name) });
  errs.push(...validateSpec(obj, input));
  if (old) errs.push(...validateContainersUpdate(obj.spec?.containers ?? [], old.spec?.containers ?? []));
  return errs;
}

function validateSpec(obj: SidecarSet, input: ValidationInput): FieldError[] {
  const spec: SidecarSetSpec = obj.spec ?? {};
  const errs: FieldError[] = [];
  const rolling = spec.updateStrategy?.type === UpdateStrategyType.RollingUpdate;
  for (const c of spec.initContainers ?? []) {
    if (isNativeSidecar(c) && rolling) errs.push(fieldErrors.required('spec.updateStrategy', 'The initContainer in-place upgrade is not currently supported.'));
  }
  if (!spec.selector) errs.push(fieldErrors.required('spec.selector', 'no selector defined for SidecarSet'));
  else errs.push(...validateSelector(spec.selector, 'spec.selector'));
  if (spec.namespace && spec.namespaceSelector) {
    errs.push(fieldErrors.required('spec.namespace, namespaceSelector', 'namespace and namespaceSelector are mutually exclusive'));
  } else if (spec.namespaceSelector) {
    errs.push(...validateSelector(spec.namespaceSelector, 'spec.namespaceSelector'));
  }
  errs.push(...validateInjectionStrategy(obj, input));
  errs.push(...validateUpdateStrategy(spec.updateStrategy ?? {}));
  if ((spec.initContainers ?? []).length === 0 && (spec.containers ?? []).length === 0) {
    errs.push(fieldErrors.required('spec', 'no initContainer or container defined for SidecarSet'));
  } else {
    errs.push(...validateSidecarContainers(spec));
  }
  errs.push(...validatePatchPodMetadata(spec));
  return errs;
}

function validateInjectionStrategy(obj: SidecarSet, input: ValidationInput): FieldError[] {
  const revision = obj.spec?.injectionStrategy?.revision;
  if (!revision) return [];
  const errs: FieldError[] = [];
  if (revision.revisionName === undefined && revision.customVersion === undefined) {
    errs.push(fieldErrors.invalid('revision', revision, 'revisionName and customVersion cannot be empty simultaneously'));
  } else if (input.revisions) {
    const notFound = findRevision(obj, input.revisions);
    if (notFound) errs.push(fieldErrors.invalid('revision', null, `Cannot find specific ControllerRevision, err: ${notFound}`));
  }
  if (revision.policy && revision.policy !== 'Always' && revision.policy !== 'Partial') {
    errs.push(fieldErrors.invalid('revision.policy', revision, `Invalid policy ${revision.policy}, supported: [Always, Partial]`));
  }
  return errs;
}

/** Why the revision that injectionStrategy names cannot be found, or undefined when it is there. */
function findRevision(obj: SidecarSet, revisions: readonly ControllerRevision[]): string | undefined {
  const { revisionName, customVersion } = obj.spec!.injectionStrategy!.revision!;
  if (revisionName !== undefined) {
    return revisions.some((r) => r.metadata?.name === revisionName) ? undefined : `controllerrevisions.apps ${JSON.stringify(revisionName)} not found`;
  }
  const found = revisions.some(
    (r) => r.metadata?.labels?.[SidecarSetKindName] === obj.metadata?.name && r.metadata?.labels?.[SidecarSetCustomVersionLabel] === customVersion,
  );
  return found ? undefined : `ControllerRevision.apps ${JSON.stringify(obj.metadata?.name ?? '')} not found`;
}

function validateUpdateStrategy(strategy: SidecarSetUpdateStrategy): FieldError[] {
  if (strategy.type !== UpdateStrategyType.RollingUpdate) return [];
  const errs: FieldError[] = [];
  const path = 'spec.updateStrategy';
  const partitionSet = typeof strategy.partition === 'string' || (typeof strategy.partition === 'number' && strategy.partition !== 0);
  if (partitionSet && strategy.selector) errs.push(fieldErrors.invalid('updateStrategy', strategy, 'Partition and Selector cannot be used together'));
  if (strategy.selector) errs.push(...validateSelector(strategy.selector, `${path}.selector`));
  if (strategy.partition !== undefined) errs.push(...validatePositiveIntOrPercent(strategy.partition, `${path}.partition`));
  if (strategy.maxUnavailable !== undefined) errs.push(...validatePositiveIntOrPercent(strategy.maxUnavailable, `${path}.maxUnavailable`));
  const scatter = scatterStrategyError(strategy.scatterStrategy ?? []);
  if (scatter) errs.push(fieldErrors.required(`${path}.scatterStrategy`, scatter));
  return errs;
}

/** apps validation's ValidatePositiveIntOrPercent: a percentage string, or an integer at least 0. */
function validatePositiveIntOrPercent(value: IntOrString, path: string): FieldError[] {
  if (typeof value === 'string') {
    return /^[0-9]+%$/.test(value) ? [] : [fieldErrors.invalid(path, value, regexError("a valid percent string must be a numeric string followed by an ending '%'", '[0-9]+%', '1%', '93%'))];
  }
  return value < 0 ? [fieldErrors.invalid(path, value, 'must be greater than or equal to 0')] : [];
}

/** UpdateScatterStrategy.FieldsValidation. */
function scatterStrategyError(terms: ReadonlyArray<{ key: string; value: string }>): string | undefined {
  const seen = new Set<string>();
  for (const term of terms) {
    if (!term.key) return 'key should not be empty';
    const id = `${term.key}:${term.value}`;
    if (seen.has(id)) return `duplicated key=${term.key} value=${term.value}`;
    seen.add(id);
  }
  return undefined;
}

function validateSidecarContainers(spec: SidecarSetSpec): FieldError[] {
  const errs: FieldError[] = [];
  (spec.containers ?? []).forEach((c, i) => {
    if (c.podInjectPolicy !== 'BeforeAppContainer' && c.podInjectPolicy !== 'AfterAppContainer') {
      errs.push(fieldErrors.invalid('spec.container.podInjectPolicy', c.podInjectPolicy ?? '', 'unsupported pod inject policy'));
    }
    const share = c.shareVolumePolicy?.type;
    if (share !== 'enabled' && share !== 'disabled') {
      errs.push(fieldErrors.invalid('spec.container.shareVolumePolicy', c.shareVolumePolicy ?? {}, 'unsupported share volume policy'));
    }
    errs.push(...validateTransferEnv(c, `spec[${i}].transferEnv`));
    errs.push(...validateUpgradeType(c, `spec.containers[${i}]`));
  });
  (spec.initContainers ?? []).forEach((c, i) => errs.push(...validateUpgradeType(c, `spec.initContainers[${i}]`)));
  errs.push(...validatePodParts({ containers: spec.containers, initContainers: spec.initContainers, volumes: spec.volumes }));
  return errs;
}

/**
 * Hot upgrade (a spare container per sidecar, swapped at upgrade) is not in
 * this operator yet: refuse it rather than inject it as a cold one. Kruise
 * accepts it; this check is ours (see the README).
 */
function validateUpgradeType(c: SidecarContainer, path: string): FieldError[] {
  const type = c.upgradeStrategy?.upgradeType;
  return type && type !== 'ColdUpgrade' ? [fieldErrors.notSupported(`${path}.upgradeStrategy.upgradeType`, type, ['ColdUpgrade'])] : [];
}

function validateTransferEnv(c: SidecarContainer, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const t of c.transferEnv ?? []) {
    if (t.sourceContainerNameFrom?.fieldRef) errs.push(...validateFieldSelector(t.sourceContainerNameFrom.fieldRef, `${path}.fieldRef`));
  }
  return errs;
}

/** Kruise's validateObjectFieldSelector: only metadata.labels['<key>'] and metadata.annotations['<key>'] of a v1 pod. */
function validateFieldSelector(fs: ObjectFieldSelector, path: string): FieldError[] {
  if (!fs.apiVersion) return [fieldErrors.required(`${path}.apiVersion`, '')];
  if (!fs.fieldPath) return [fieldErrors.required(`${path}.fieldPath`, '')];
  const split = splitSubscriptedPath(fs.fieldPath);
  let problem: string | undefined;
  if (fs.apiVersion !== 'v1') problem = `unsupported pod version: ${fs.apiVersion}`;
  else if (!split) problem = `field label not supported: ${fs.fieldPath}`;
  else if (split.path !== 'metadata.annotations' && split.path !== 'metadata.labels') problem = `field path not supported: ${split.path}`;
  if (problem) return [fieldErrors.invalid(`${path}.fieldPath`, fs.fieldPath, `error converting fieldPath: ${problem}`)];
  const key = split!.path === 'metadata.annotations' ? split!.subscript.toLowerCase() : split!.subscript;
  return isQualifiedName(key).map((msg) => fieldErrors.invalid(path, split!.subscript, msg));
}

function validatePatchPodMetadata(spec: SidecarSetSpec): FieldError[] {
  const errs: FieldError[] = [];
  const keys = new Set<string>();
  for (const patch of spec.patchPodMetadata ?? []) {
    const annotations = patch.annotations ?? {};
    if (Object.keys(annotations).length === 0) {
      errs.push(fieldErrors.required('spec.patchPodMetadata', 'no annotations defined for SidecarSet'));
    } else {
      const meta = validateObjectMeta({ name: 'fake-name', annotations }, { namespaced: false, nameValidator: (n) => sidecarSetNameErrors(n), path: 'patchPodMetadata' });
      errs.push(...meta);
    }
    if (!patch.patchPolicy) errs.push(fieldErrors.required('spec.patchPodMetadata', 'no patchPolicy defined for patchPodMetadata'));
    for (const key of Object.keys(annotations)) {
      if (keys.has(key)) errs.push(fieldErrors.required('spec.patchPodMetadata', `patch annotation[${key}] already exist`));
      keys.add(key);
    }
  }
  return errs;
}

/** On update (validateSidecarContainerConflict): a container keeps its upgradeType, and no container is added. */
function validateContainersUpdate(containers: SidecarContainer[], oldContainers: SidecarContainer[]): FieldError[] {
  const oldTypes = new Map(oldContainers.map((c) => [c.name, c.upgradeStrategy?.upgradeType ?? '']));
  const errs: FieldError[] = [];
  for (const c of containers) {
    const oldType = oldTypes.get(c.name);
    if (oldType === undefined) {
      errs.push(fieldErrors.invalid('spec.containers.name', c.name, `container ${c.name} is not found`));
    } else if (oldType !== '' && (c.upgradeStrategy?.upgradeType ?? '') !== oldType) {
      errs.push(fieldErrors.invalid('spec.containers.upgradeStrategy.upgradeType', c.name, `container ${c.name} upgradeType is immutable`));
    }
  }
  return errs;
}

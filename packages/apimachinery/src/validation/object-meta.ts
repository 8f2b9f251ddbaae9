/**
 * ObjectMeta validation as k8s.io/apimachinery/pkg/api/validation (objectmeta.go)
 * does it on create and update: same checks, same order, same field paths and words.
 */
import { fieldErrors, type FieldError } from '../field-errors.js';
import type { ObjectMeta, OwnerReference } from '../object.js';
import {
  isDNS1123Label,
  isQualifiedName,
  isValidLabelValue,
  nameIsDNS1035Label,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  utf8Length,
  validatePathSegmentName,
  type NameValidator,
} from './names.js';

/** The detail of every immutability error. */
export const fieldImmutableErrorMsg = 'field is immutable';

/** The most bytes all annotation keys and values together may take (256 KiB). */
export const totalAnnotationSizeLimitBytes = 256 * 1024;

/** The name rules a kind can have; see {@link ObjectMetaValidationOptions.nameValidator}. */
export type NameValidatorName = 'subdomain' | 'label' | 'dns1035-label' | 'path-segment';

/** How {@link validateObjectMeta} treats a kind. */
export interface ObjectMetaValidationOptions {
  /** Namespaced kinds need a namespace; cluster-scoped kinds may not have one. */
  namespaced: boolean;
  /**
   * The name rule: `subdomain` (the default; most kinds and all custom resources), `label`
   * (namespaces), `dns1035-label` (services), `path-segment` (RBAC), or a function of your own.
   */
  nameValidator?: NameValidatorName | NameValidator;
  /** Where the metadata sits, `metadata` unless given (e.g. `spec.template.metadata`). */
  path?: string;
}

const nameValidators: Record<NameValidatorName, NameValidator> = {
  subdomain: nameIsDNSSubdomain,
  label: nameIsDNSLabel,
  'dns1035-label': nameIsDNS1035Label,
  'path-segment': validatePathSegmentName,
};

/** Finalizers that make the garbage collector orphan dependents, or delete them first. */
const finalizerOrphanDependents = 'orphan';
const finalizerDeleteDependents = 'foregroundDeletion';

/** Kinds that may not own other objects, as `group/version, Kind=kind` (kube's GVK string). */
const bannedOwners = new Set(['/v1, Kind=Event']);

/** Label keys must be qualified names and values valid label values; errors are reported at `path` itself. */
export function validateLabels(labels: Record<string, string> | undefined | null, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels ?? {})) {
    for (const msg of isQualifiedName(k)) errs.push(fieldErrors.invalid(path, k, msg));
    for (const msg of isValidLabelValue(v)) errs.push(fieldErrors.invalid(path, v, msg));
  }
  return errs;
}

/** Annotation keys must be qualified names (case-insensitively); keys and values together at most 256 KiB. */
export function validateAnnotations(annotations: Record<string, string> | undefined | null, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(fieldErrors.invalid(path, k, msg));
    total += utf8Length(k) + utf8Length(String(v));
  }
  if (total > totalAnnotationSizeLimitBytes) errs.push(fieldErrors.tooLong(path, '', totalAnnotationSizeLimitBytes));
  return errs;
}

/** kube's schema.ParseGroupVersion, minus the error: `undefined` for more than one slash. */
function parseGroupVersion(gv: string): { group: string; version: string } | undefined {
  if (gv === '' || gv === '/') return { group: '', version: '' };
  const slashes = gv.split('/').length - 1;
  if (slashes === 0) return { group: '', version: gv };
  if (slashes === 1) {
    const i = gv.indexOf('/');
    return { group: gv.slice(0, i), version: gv.slice(i + 1) };
  }
  return undefined;
}

function validateOwnerReference(ref: OwnerReference, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = ref.apiVersion ?? '';
  const kind = ref.kind ?? '';
  const gv = parseGroupVersion(apiVersion) ?? { group: '', version: '' };
  if (!gv.version) errs.push(fieldErrors.invalid(`${path}.apiVersion`, apiVersion, 'version must not be empty'));
  if (!kind) errs.push(fieldErrors.invalid(`${path}.kind`, kind, 'must not be empty'));
  if (!ref.name) errs.push(fieldErrors.invalid(`${path}.name`, ref.name ?? '', 'must not be empty'));
  if (!ref.uid) errs.push(fieldErrors.invalid(`${path}.uid`, ref.uid ?? '', 'must not be empty'));
  const gvk = `${gv.group}/${gv.version}, Kind=${kind}`;
  if (bannedOwners.has(gvk)) errs.push(fieldErrors.invalid(path, ref, `${gvk} is disallowed from being an owner`));
  return errs;
}

/**
 * Each reference needs apiVersion, kind, name and uid, and at most one may be the controller.
 * Like kube, the errors carry the list's path, not the item's index.
 */
export function validateOwnerReferences(refs: OwnerReference[] | undefined | null, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let firstController = '';
  for (const ref of refs ?? []) {
    errs.push(...validateOwnerReference(ref, path));
    if (ref.controller === true) {
      const current = `${ref.kind}/${ref.name}`;
      if (firstController) {
        errs.push(
          fieldErrors.invalid(
            path,
            refs,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errs;
}

/** Finalizers must be qualified names, and `orphan` and `foregroundDeletion` exclude each other. */
export function validateFinalizers(finalizers: string[] | undefined | null, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const list = finalizers ?? [];
  for (const f of list) for (const msg of isQualifiedName(f)) errs.push(fieldErrors.invalid(path, f, msg));
  if (list.includes(finalizerOrphanDependents) && list.includes(finalizerDeleteDependents)) {
    errs.push(
      fieldErrors.invalid(
        path,
        list,
        `finalizer ${finalizerOrphanDependents} and ${finalizerDeleteDependents} cannot be both set`,
      ),
    );
  }
  return errs;
}

const fieldManagerMaxLength = 128;
const maxSubresourceNameLength = 256;
/**
 * Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. Made at
 * first use: V8 parses a regular expression as it makes it, and these Unicode classes cost about
 * half a millisecond of every start.
 */
let printableRe: RegExp | undefined;
const printable = (): RegExp => (printableRe ??= /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u);

function validateFieldManager(manager: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (utf8Length(manager) > fieldManagerMaxLength) errs.push(fieldErrors.tooLong(path, manager, fieldManagerMaxLength));
  let bytePos = 0;
  for (const ch of manager) {
    if (!printable().test(ch)) {
      const code = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      errs.push(fieldErrors.invalid(path, manager, `invalid character U+${code} (at position ${bytePos})`));
    }
    bytePos += utf8Length(ch);
  }
  return errs;
}

function validateManagedFields(entries: ObjectMeta['managedFields'] | null, path: string): FieldError[] {
  const errs: FieldError[] = [];
  (entries ?? []).forEach((entry, i) => {
    const p = `${path}[${i}]`;
    if (entry.operation !== 'Apply' && entry.operation !== 'Update') {
      errs.push(fieldErrors.invalid(`${p}.operation`, entry.operation ?? '', 'must be `Apply` or `Update`'));
    }
    if (entry.fieldsType && entry.fieldsType !== 'FieldsV1') {
      errs.push(fieldErrors.invalid(`${p}.fieldsType`, entry.fieldsType, 'must be `FieldsV1`'));
    }
    errs.push(...validateFieldManager(entry.manager ?? '', `${p}.manager`));
    if (entry.subresource && utf8Length(entry.subresource) > maxSubresourceNameLength) {
      errs.push(fieldErrors.tooLong(`${p}.subresource`, entry.subresource, maxSubresourceNameLength));
    }
  });
  return errs;
}

/**
 * Validates metadata on create, as kube's ValidateObjectMetaAccessor: generateName and
 * name format, namespace presence, generation, labels, annotations, ownerReferences,
 * finalizers and managedFields.
 *
 * Kube generates the name from generateName before validating, so an object that
 * has only a generateName reports `name or generateName is required`: generate first.
 */
export function validateObjectMeta(meta: ObjectMeta | undefined | null, opts: ObjectMetaValidationOptions): FieldError[] {
  const m = meta ?? {};
  const path = opts.path ?? 'metadata';
  const nameFn =
    typeof opts.nameValidator === 'function' ? opts.nameValidator : nameValidators[opts.nameValidator ?? 'subdomain'];
  const errs: FieldError[] = [];

  if (m.generateName) {
    for (const msg of nameFn(m.generateName, true)) errs.push(fieldErrors.invalid(`${path}.generateName`, m.generateName, msg));
  }
  if (!m.name) {
    errs.push(fieldErrors.required(`${path}.name`, 'name or generateName is required'));
  } else {
    for (const msg of nameFn(m.name, false)) errs.push(fieldErrors.invalid(`${path}.name`, m.name, msg));
  }

  if (opts.namespaced) {
    if (!m.namespace) {
      errs.push(fieldErrors.required(`${path}.namespace`));
    } else {
      for (const msg of isDNS1123Label(m.namespace)) errs.push(fieldErrors.invalid(`${path}.namespace`, m.namespace, msg));
    }
  } else if (m.namespace) {
    errs.push(fieldErrors.forbidden(`${path}.namespace`, 'not allowed on this type'));
  }

  if (typeof m.generation === 'number' && m.generation < 0) {
    errs.push(fieldErrors.invalid(`${path}.generation`, m.generation, 'must be greater than or equal to 0'));
  }
  errs.push(...validateCommon(m, path));
  errs.push(...validateFinalizers(m.finalizers, `${path}.finalizers`));
  errs.push(...validateManagedFields(m.managedFields, `${path}.managedFields`));
  return errs;
}

function validateCommon(m: ObjectMeta, path: string): FieldError[] {
  return [
    ...validateLabels(m.labels, `${path}.labels`),
    ...validateAnnotations(m.annotations, `${path}.annotations`),
    ...validateOwnerReferences(m.ownerReferences, `${path}.ownerReferences`),
  ];
}

/** Timestamps are equal when they name the same instant, whatever their spelling (kube compares semantically). */
function sameTimestamp(a: string | undefined | null, b: string | undefined | null): boolean {
  if ((a ?? '') === (b ?? '')) return true;
  if (!a || !b) return false;
  const ta = Date.parse(a);
  const tb = Date.parse(b);
  return !Number.isNaN(ta) && ta === tb;
}

function immutable(path: string, newVal: unknown, same: boolean): FieldError[] {
  return same ? [] : [fieldErrors.invalid(path, newVal ?? null, fieldImmutableErrorMsg)];
}

/**
 * Validates metadata on update, as kube's ValidateObjectMetaAccessorUpdate plus the
 * create-time checks of labels, annotations, ownerReferences, finalizers and
 * managedFields: no new finalizers once deleting, a resourceVersion, generation not
 * decremented, and name, namespace, uid, creationTimestamp, deletionTimestamp and
 * deletionGracePeriodSeconds unchanged.
 *
 * As in kube's store, the caller copies the stored resourceVersion into an
 * unconditional update, and the server-owned fields kube silently keeps (uid when
 * absent, creationTimestamp, deletionTimestamp) before calling this.
 */
export function validateObjectMetaUpdate(
  newMeta: ObjectMeta | undefined | null,
  oldMeta: ObjectMeta | undefined | null,
  path = 'metadata',
): FieldError[] {
  const n = newMeta ?? {};
  const o = oldMeta ?? {};
  const errs: FieldError[] = [];

  if (o.deletionTimestamp) {
    const old = new Set(o.finalizers ?? []);
    const extra = [...new Set((n.finalizers ?? []).filter((f) => !old.has(f)))].sort();
    if (extra.length > 0) {
      errs.push(
        fieldErrors.forbidden(
          `${path}.finalizers`,
          `no new finalizers can be added if the object is being deleted, found new finalizers []string{${extra.map((f) => JSON.stringify(f)).join(', ')}}`,
        ),
      );
    }
  }
  if (!n.resourceVersion) {
    errs.push(fieldErrors.invalid(`${path}.resourceVersion`, n.resourceVersion ?? '', 'must be specified for an update'));
  }
  if ((n.generation ?? 0) < (o.generation ?? 0)) {
    errs.push(fieldErrors.invalid(`${path}.generation`, n.generation ?? 0, 'must not be decremented'));
  }

  errs.push(...immutable(`${path}.name`, n.name ?? '', (n.name ?? '') === (o.name ?? '')));
  errs.push(...immutable(`${path}.namespace`, n.namespace ?? '', (n.namespace ?? '') === (o.namespace ?? '')));
  errs.push(...immutable(`${path}.uid`, n.uid ?? '', (n.uid ?? '') === (o.uid ?? '')));
  errs.push(
    ...immutable(`${path}.creationTimestamp`, n.creationTimestamp, sameTimestamp(n.creationTimestamp, o.creationTimestamp)),
  );
  errs.push(
    ...immutable(`${path}.deletionTimestamp`, n.deletionTimestamp, sameTimestamp(n.deletionTimestamp, o.deletionTimestamp)),
  );
  errs.push(
    ...immutable(
      `${path}.deletionGracePeriodSeconds`,
      n.deletionGracePeriodSeconds,
      (n.deletionGracePeriodSeconds ?? null) === (o.deletionGracePeriodSeconds ?? null),
    ),
  );

  errs.push(...validateCommon(n, path));
  errs.push(...validateFinalizers(n.finalizers, `${path}.finalizers`));
  errs.push(...validateManagedFields(n.managedFields, `${path}.managedFields`));
  return errs;
}

/**
 * Serving one CRD version: its ResourceInfo, and the strategy, decoder,
 * patcher and storage conversion its ResourceStore uses. Custom resources are
 * validated against the version's structural schema and CEL rules, pruned,
 * and defaulted on writes and on reads (so a default added to the schema
 * later shows on old objects).
 */
import {
  StatusError,
  applyJsonPatch,
  applyMergePatch,
  badRequest,
  deepCopy,
  unsupportedMediaType,
  type FieldError,
  type KubeObject,
  type OpenApiSchema,
} from '@operant/apimachinery';
import { applyDefaults, pruneNonNullableNullsWithoutDefaults, pruneValue, validateValue } from '@operant/apimachinery/schema';
import { cel, mentionsCelRules } from '../cel-loader.js';
import { parseJson } from '../http/body.js';
import { cannotBeHandledMessage, pruneUnknownFields, strictDecodingError, unknownFieldWarning } from '../openapi/unknown-fields.js';
import { resolveBuiltinSchema, schemaRef } from '../openapi/builtin-schemas.js';
import type { ObjectDecoder, PatchApplier, StorageConversion } from '../registry/resource-store.js';
import type { ResourceInfo } from '../registry/resource-info.js';
import type { Verb } from '../registry/resource-info.js';
import { baseStrategy, type Strategy } from '../registry/strategy.js';
import type { CrdVersion, CustomResourceDefinition } from './types.js';

const objectMetaSchema: OpenApiSchema = { $ref: schemaRef('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta') };

/** The verbs of a custom resource, in the order kube's CRD discovery lists them (kubectl prints them so). */
const customResourceVerbs: Verb[] = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];

/** The patch types custom resources accept: no strategic merge patch, as in kube. */
export const customResourcePatchTypes = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];

/** The ResourceInfo of one served version of a CRD's resource. */
export function customResourceInfo(crd: CustomResourceDefinition, version: CrdVersion): ResourceInfo {
  const { group, names } = crd.spec;
  const subresources: string[] = [];
  if (version.subresources?.status) subresources.push('status');
  if (version.subresources?.scale) subresources.push('scale');
  return {
    group,
    version: version.name,
    resource: names.plural,
    singular: names.singular ?? names.kind.toLowerCase(),
    kind: names.kind,
    listKind: names.listKind ?? `${names.kind}List`,
    namespaced: crd.spec.scope === 'Namespaced',
    verbs: customResourceVerbs,
    shortNames: names.shortNames,
    categories: names.categories,
    subresources,
    selectableFields: (version.selectableFields ?? []).map((f) => f.jsonPath.replace(/^\./, '')),
    custom: {
      schema: version.schema?.openAPIV3Schema,
      printerColumns: version.additionalPrinterColumns ?? [],
      scale: version.subresources?.scale,
      replicasPaths: Object.fromEntries(crd.spec.versions.map((v) => [`${group}/${v.name}`, v.subresources?.scale?.specReplicasPath ?? null])),
      storageVersion: crd.spec.versions.find((v) => v.storage)?.name,
      deprecationWarning: version.deprecated
        ? (version.deprecationWarning ?? `${group}/${version.name} ${names.kind} is deprecated`)
        : undefined,
    },
  };
}

/** The schema errors after which kube does not evaluate a custom resource's CEL rules (its hasBlockingErr). */
const celBlockingErrors = new Set<FieldError['type']>(['FieldValueNotSupported', 'FieldValueRequired', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid']);

/** kube's `field.Invalid(nil, nil, ...)` when it skips the CEL rules: a nil path and a nil value. */
const celSkipped: FieldError = {
  type: 'FieldValueInvalid',
  field: '<nil>',
  value: 'null',
  hasValue: true,
  detail: 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
};

/** Validation and defaulting of one version's custom resources. */
export function customResourceStrategy(info: ResourceInfo, terminating: () => boolean): Strategy {
  const schema = info.custom?.schema;
  // A CRD with rules loaded CEL before it was stored (see cel-loader.ts).
  const rules = schema && mentionsCelRules(schema) ? cel().rules.compileSchemaRules(schema, '').rules : undefined;
  const validate = (obj: KubeObject, old: KubeObject | undefined) => {
    if (!schema) return [];
    const errs = validateValue(obj, schema, '', { isResourceRoot: true, old });
    if (!rules || rules.empty) return errs;
    // As kube: CEL rules are skipped when the object does not have the schema's shape (a wrong
    // type, a missing required field, an unsupported enum value, too long, too many), with a
    // note saying so; after lesser errors (bounds, patterns, duplicates) they still run.
    if (errs.some((e) => celBlockingErrors.has(e.type))) errs.push(celSkipped);
    else errs.push(...cel().rules.evaluateRules(rules, obj, old, ''));
    return errs;
  };
  return baseStrategy({
    tracksGeneration: true,
    // apiextensions-apiserver's strategies: an update must name the version it replaces.
    allowUnconditionalUpdate: false,
    hasStatusSubresource: (info.subresources ?? []).includes('status'),
    applyDefaults(obj) {
      if (!schema) return;
      // kube's order: nulls the schema does not allow are dropped, then defaults are filled in.
      pruneNonNullableNullsWithoutDefaults(obj, schema);
      applyDefaults(obj, schema);
    },
    prepareForCreate() {
      if (terminating()) {
        throw new StatusError(405, 'MethodNotAllowed', 'create not allowed while custom resource definition is terminating');
      }
    },
    validate: (obj) => validate(obj, undefined),
    validateUpdate: (obj, old) => validate(obj, old),
  });
}

/** Prunes fields the schema does not declare (and unknown metadata fields), per fieldValidation. */
export function customResourceDecoder(info: ResourceInfo): ObjectDecoder {
  const schema = info.custom?.schema;
  return (obj, validation, source = 'body') => {
    if (!schema) return { object: obj, warnings: [] };
    const probe = validation === 'Strict' ? deepCopy(obj) : obj;
    const pruned = [
      ...pruneUnknownFields(probe.metadata, objectMetaSchema, resolveBuiltinSchema).map((p) => `metadata.${p}`),
      ...pruneValue(probe, schema, { isResourceRoot: true }),
    ];
    if (validation === 'Strict' && pruned.length) {
      const detail = strictDecodingError(pruned);
      throw badRequest(source === 'patch' ? detail : cannotBeHandledMessage(info.kind, info.version, detail));
    }
    return { object: obj, warnings: validation === 'Warn' ? pruned.map(unknownFieldWarning) : [] };
  };
}

export function customResourcePatcher(): PatchApplier {
  return (current, patchType, body) => {
    switch (patchType) {
      case 'application/json-patch+json':
        return applyJsonPatch(current, parseJson(body)) as KubeObject;
      case 'application/merge-patch+json':
        return applyMergePatch(current, parseJson(body)) as KubeObject;
      default:
        throw unsupportedMediaType(patchType, customResourcePatchTypes);
    }
  };
}

/**
 * Objects are stored in the storage version; with conversion strategy None a
 * version differs only in apiVersion. Reads apply the read version's defaults.
 */
export function noneConversion(info: ResourceInfo, storageVersion: string): StorageConversion {
  const apiVersion = `${info.group}/${info.version}`;
  // Defaulting on read costs a copy of every object read: only when the schema has defaults.
  const schema = info.custom?.schema && hasDefaults(info.custom.schema) ? info.custom.schema : undefined;
  const toServed = (obj: KubeObject): KubeObject => {
    if (!schema && obj.apiVersion === apiVersion) return obj;
    const out = deepCopy(obj);
    out.apiVersion = apiVersion;
    if (schema) applyDefaults(out, schema);
    return out;
  };
  return {
    storedAs: { apiVersion: `${info.group}/${storageVersion}`, kind: info.kind },
    toStorage: (objs) => objs.map((obj) => ({ ...obj, apiVersion: `${info.group}/${storageVersion}` })),
    fromStorage: (objs) => objs.map(toServed),
  };
}

/** Whether any node of a schema declares a default. */
export function hasDefaults(schema: OpenApiSchema): boolean {
  if (schema.default !== undefined) return true;
  const children: OpenApiSchema[] = [
    ...Object.values(schema.properties ?? {}),
    ...(schema.items ? [schema.items] : []),
    ...(typeof schema.additionalProperties === 'object' ? [schema.additionalProperties] : []),
  ];
  return children.some(hasDefaults);
}

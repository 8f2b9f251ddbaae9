/**
 * Validation of CustomResourceDefinitions as kube's apiextensions validation
 * does it: names, group, scope, versions, schemas (structural, CEL rules),
 * printer columns, subresources and conversion, with kube's field paths.
 */
import { fieldErrors, isDNS1035Label, isDNS1123Subdomain, jsonEqual, type FieldError, type OpenApiSchema } from '@operant/apimachinery';
import { validatePrinterColumn } from '@operant/apimachinery/jsonpath';
import { validateStructuralSchema } from '@operant/apimachinery/schema';
import type { CrdNames, CrdSpec, CrdVersion, CustomResourceDefinition } from './types.js';
import { cel, mentionsCelRules } from '../cel-loader.js';

/** The checks on a CRD on create (beyond ObjectMeta, which the registry validates). */
export function validateCrd(crd: CustomResourceDefinition): FieldError[] {
  const spec = crd.spec ?? ({} as CrdSpec);
  const errs: FieldError[] = [];
  const required = `${spec.names?.plural ?? ''}.${spec.group ?? ''}`;
  if (crd.metadata.name !== required) errs.push(fieldErrors.invalid('metadata.name', crd.metadata.name ?? '', 'must be spec.names.plural+"."+spec.group'));
  errs.push(...validateSpec(spec));
  return errs;
}

/** The checks on update: those of create, plus what may not change. */
export function validateCrdUpdate(crd: CustomResourceDefinition, old: CustomResourceDefinition): FieldError[] {
  const errs = validateCrd(crd);
  const immutable = (path: string, now: unknown, before: unknown): void => {
    if (now !== before) errs.push(fieldErrors.invalid(path, now ?? '', 'field is immutable'));
  };
  const established = (old.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
  if (established) {
    immutable('spec.scope', crd.spec.scope, old.spec.scope);
    immutable('spec.names.kind', crd.spec.names?.kind, old.spec.names?.kind);
  }
  immutable('spec.group', crd.spec.group, old.spec.group);
  immutable('spec.names.plural', crd.spec.names?.plural, old.spec.names?.plural);
  const versions = new Set((crd.spec.versions ?? []).map((v) => v.name));
  (crd.status?.storedVersions ?? []).forEach((v, i) => {
    if (!versions.has(v)) {
      const detail = `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`;
      errs.push(fieldErrors.invalid(`status.storedVersions[${i}]`, v, detail));
    }
  });
  return errs;
}

/**
 * Where kube reports a version's schema, subresources and printer columns. kube
 * validates its internal form of the CRD, in which a field that is identical in
 * every version is moved to the top level: a one-version CRD's schema is checked as
 * `spec.validation.openAPIV3Schema`, its columns as `spec.additionalPrinterColumns[i]`,
 * its subresources as `spec.subresources`.
 */
interface Hoisting {
  schema: boolean;
  subresources: boolean;
  columns: boolean;
}

function hoisting(versions: CrdVersion[]): Hoisting {
  const same = (get: (v: CrdVersion) => unknown): boolean => versions.length > 0 && versions.every((v) => jsonEqual(get(v), get(versions[0])));
  return {
    schema: same((v) => v.schema ?? null),
    subresources: same((v) => v.subresources ?? null),
    // Empty and missing column lists are equal, as in kube's semantic equality.
    columns: same((v) => v.additionalPrinterColumns ?? []),
  };
}

/** kube's validateCustomResourceDefinitionSpec, in its order. */
function validateSpec(spec: CrdSpec): FieldError[] {
  const errs: FieldError[] = [];
  if (!spec.group) errs.push(fieldErrors.required('spec.group', ''));
  else {
    const bad = isDNS1123Subdomain(spec.group);
    if (bad.length) errs.push(fieldErrors.invalid('spec.group', spec.group, bad.join(',')));
    else if (spec.group.split('.').length < 2) errs.push(fieldErrors.invalid('spec.group', spec.group, 'should be a domain with at least one dot'));
  }
  if (!spec.scope) errs.push(fieldErrors.required('spec.scope', ''));
  else if (spec.scope !== 'Cluster' && spec.scope !== 'Namespaced') errs.push(fieldErrors.notSupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']));

  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  const hoisted = hoisting(versions);
  const topSchema = hoisted.schema ? versions[0]?.schema?.openAPIV3Schema : undefined;
  if (!topSchema && !spec.preserveUnknownFields) {
    versions.forEach((v, i) => {
      if (!v.schema?.openAPIV3Schema) errs.push(fieldErrors.required(`spec.versions[${i}].schema.openAPIV3Schema`, 'schemas are required'));
    });
  }
  if (versions.length === 0) errs.push(fieldErrors.required('spec.versions', 'must have exactly one version marked as storage version'));
  const seen = new Set<string>();
  let storage = 0;
  let unique = true;
  versions.forEach((v, i) => {
    if (v.storage) storage++;
    if (seen.has(v.name)) unique = false;
    seen.add(v.name);
    const bad = isDNS1035Label(v.name ?? '');
    if (bad.length) errs.push(fieldErrors.invalid(`spec.versions[${i}].name`, v.name ?? '', bad.join(',')));
    errs.push(...validateVersion(v, `spec.versions[${i}]`, hoisted));
  });
  if (versions.length && !unique) errs.push(fieldErrors.invalid('spec.versions', versions, 'must contain unique version names'));
  if (versions.length && storage !== 1) errs.push(fieldErrors.invalid('spec.versions', versions, 'must have exactly one version marked as storage version'));

  const names = spec.names ?? ({} as CrdNames);
  if (!names.plural) errs.push(fieldErrors.required('spec.names.plural', ''));
  if (!names.singular) errs.push(fieldErrors.required('spec.names.singular', ''));
  if (!names.kind) errs.push(fieldErrors.required('spec.names.kind', ''));
  if (!names.listKind) errs.push(fieldErrors.required('spec.names.listKind', ''));
  errs.push(...validateNames(names, 'spec.names'));

  // The fields every version shares, checked once at the top level.
  if (topSchema) errs.push(...validateSchema(topSchema, 'spec.validation.openAPIV3Schema'));
  if (hoisted.subresources && versions[0]?.subresources) errs.push(...validateSubresources(versions[0].subresources, 'spec.subresources'));
  if (hoisted.columns) {
    (versions[0]?.additionalPrinterColumns ?? []).forEach((c, i) => errs.push(...validatePrinterColumn(c, `spec.additionalPrinterColumns[${i}]`)));
  }
  errs.push(...validateConversion(spec));
  return errs;
}

/** kube's ValidateCustomResourceDefinitionNames. */
export function validateNames(names: Partial<CrdNames>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const label = (field: string, value: string | undefined, mixedCase = false): void => {
    if (!value) return;
    const bad = isDNS1035Label(mixedCase ? value.toLowerCase() : value);
    if (bad.length) errs.push(fieldErrors.invalid(`${path}.${field}`, value, mixedCase ? `may have mixed case, but should otherwise match: ${bad.join(',')}` : bad.join(',')));
  };
  label('plural', names.plural);
  label('singular', names.singular);
  label('kind', names.kind, true);
  label('listKind', names.listKind, true);
  (names.shortNames ?? []).forEach((s, i) => {
    const bad = isDNS1035Label(s);
    if (bad.length) errs.push(fieldErrors.invalid(`${path}.shortNames[${i}]`, s, bad.join(',')));
  });
  if (names.kind && names.kind === names.listKind) errs.push(fieldErrors.invalid(`${path}.listKind`, names.listKind, 'kind and listKind may not be the same'));
  (names.categories ?? []).forEach((c, i) => {
    const bad = isDNS1035Label(c);
    if (bad.length) errs.push(fieldErrors.invalid(`${path}.categories[${i}]`, c, bad.join(',')));
  });
  return errs;
}

/** The checks on one version; the fields shared by every version are checked at the top level instead. */
function validateVersion(v: CrdVersion, path: string, hoisted: Hoisting): FieldError[] {
  const errs: FieldError[] = [];
  const schema = v.schema?.openAPIV3Schema;
  if (schema && !hoisted.schema) errs.push(...validateSchema(schema, `${path}.schema.openAPIV3Schema`));
  if (v.subresources && !hoisted.subresources) errs.push(...validateSubresources(v.subresources, `${path}.subresources`));
  if (!hoisted.columns) (v.additionalPrinterColumns ?? []).forEach((c, i) => errs.push(...validatePrinterColumn(c, `${path}.additionalPrinterColumns[${i}]`)));
  (v.selectableFields ?? []).forEach((f, i) => {
    const at = `${path}.selectableFields[${i}].jsonPath`;
    if (!f.jsonPath) errs.push(fieldErrors.required(at, ''));
    else if (!/^(\.[A-Za-z0-9_-]+)+$/.test(f.jsonPath)) errs.push(fieldErrors.invalid(at, f.jsonPath, 'must be a simple json path starting with .'));
  });
  return errs;
}

function validateSchema(schema: OpenApiSchema, path: string): FieldError[] {
  const structural = validateStructuralSchema(schema, path);
  // Rules are compiled only against a structural schema, as kube does.
  if (structural.length) return structural;
  // Without rules there is nothing to compile (and CEL may not be loaded: see cel-loader.ts).
  return mentionsCelRules(schema) ? cel().rules.compileSchemaRules(schema, path).errors : [];
}

/** kube's validateSimpleJSONPath. */
function simpleJsonPath(value: string, path: string): FieldError[] {
  if (value.length === 0) return [fieldErrors.invalid(path, value, 'must not be empty')];
  if (value[0] !== '.') return [fieldErrors.invalid(path, value, 'must be a simple json path starting with .')];
  return [];
}

/** kube's ValidateCustomResourceDefinitionSubresources. */
function validateSubresources(sub: NonNullable<CrdVersion['subresources']>, path: string): FieldError[] {
  const scale = sub.scale;
  if (!scale) return [];
  const errs: FieldError[] = [];
  const at = `${path}.scale`;
  if (!scale.specReplicasPath) errs.push(fieldErrors.required(`${at}.specReplicasPath`, ''));
  else {
    const bad = simpleJsonPath(scale.specReplicasPath, `${at}.specReplicasPath`);
    if (bad.length) errs.push(...bad);
    else if (!scale.specReplicasPath.startsWith('.spec.')) errs.push(fieldErrors.invalid(`${at}.specReplicasPath`, scale.specReplicasPath, 'should be a json path under .spec'));
  }
  if (!scale.statusReplicasPath) errs.push(fieldErrors.required(`${at}.statusReplicasPath`, ''));
  else {
    const bad = simpleJsonPath(scale.statusReplicasPath, `${at}.statusReplicasPath`);
    if (bad.length) errs.push(...bad);
    else if (!scale.statusReplicasPath.startsWith('.status.')) errs.push(fieldErrors.invalid(`${at}.statusReplicasPath`, scale.statusReplicasPath, 'should be a json path under .status'));
  }
  if (scale.labelSelectorPath) {
    const bad = simpleJsonPath(scale.labelSelectorPath, `${at}.labelSelectorPath`);
    if (bad.length) errs.push(...bad);
    else if (!scale.labelSelectorPath.startsWith('.spec.') && !scale.labelSelectorPath.startsWith('.status.')) {
      errs.push(fieldErrors.invalid(`${at}.labelSelectorPath`, scale.labelSelectorPath, 'should be a json path under either .spec or .status'));
    }
  }
  return errs;
}

function validateConversion(spec: CrdSpec): FieldError[] {
  const c = spec.conversion;
  if (!c) return [];
  const errs: FieldError[] = [];
  if (c.strategy !== 'None' && c.strategy !== 'Webhook') {
    errs.push(fieldErrors.notSupported('spec.conversion.strategy', c.strategy, ['None', 'Webhook']));
    return errs;
  }
  if (c.strategy === 'None') {
    if (c.webhook) errs.push(fieldErrors.forbidden('spec.conversion.webhook', 'should not be set when strategy is not set to Webhook'));
    return errs;
  }
  const webhook = c.webhook;
  if (!webhook) return [fieldErrors.required('spec.conversion.webhook', 'required when strategy is set to Webhook')];
  const versions = webhook.conversionReviewVersions ?? [];
  if (versions.length === 0) errs.push(fieldErrors.required('spec.conversion.webhook.conversionReviewVersions', ''));
  else if (!versions.some((v) => v === 'v1' || v === 'v1beta1')) {
    errs.push(fieldErrors.invalid('spec.conversion.webhook.conversionReviewVersions', versions, 'must include at least one of v1, v1beta1'));
  }
  const cc = webhook.clientConfig;
  if (!cc) errs.push(fieldErrors.required('spec.conversion.webhook.clientConfig', 'required when strategy is set to Webhook'));
  else if (!!cc.url === !!cc.service) errs.push(fieldErrors.required('spec.conversion.webhook.clientConfig', 'exactly one of url or service is required'));
  else if (cc.url) {
    let u: URL | undefined;
    try {
      u = new URL(cc.url);
    } catch {
      errs.push(fieldErrors.invalid('spec.conversion.webhook.clientConfig.url', cc.url, 'must be a valid URL'));
    }
    if (u && u.protocol !== 'https:') errs.push(fieldErrors.invalid('spec.conversion.webhook.clientConfig.url', cc.url, "'https' is the only allowed URL scheme"));
  }
  return errs;
}

/**
 * Validation of CustomResourceDefinitions as kube's apiextensions validation
 * does it: names, group, scope, versions, schemas (structural, CEL rules),
 * printer columns, subresources and conversion, with kube's field paths.
 */
import {
  compileSchemaRules,
  fieldErrors,
  isDNS1035Label,
  isDNS1123Subdomain,
  validatePrinterColumnPath,
  validateStructuralSchema,
  type FieldError,
} from '@operant/apimachinery';
import type { CrdNames, CrdSpec, CrdVersion, CustomResourceDefinition } from './types.js';

const printerColumnTypes = ['integer', 'number', 'string', 'boolean', 'date'];
const printerColumnFormats = ['int32', 'int64', 'float', 'double', 'byte', 'date', 'date-time', 'password'];

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
    if (!versions.has(v)) errs.push(fieldErrors.invalid(`status.storedVersions[${i}]`, v, 'must appear in spec.versions'));
  });
  return errs;
}

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
    errs.push(...validateVersion(v, `spec.versions[${i}]`, spec));
  });
  if (versions.length && !unique) errs.push(fieldErrors.invalid('spec.versions', versions, 'must contain unique version names'));
  if (versions.length && storage !== 1) errs.push(fieldErrors.invalid('spec.versions', versions, 'must have exactly one version marked as storage version'));
  if (versions.length && !versions.some((v) => v.served)) errs.push(fieldErrors.invalid('spec.versions', versions, 'must have at least one version marked as served'));

  const names = spec.names ?? ({} as CrdNames);
  if (!names.plural) errs.push(fieldErrors.required('spec.names.plural', ''));
  if (!names.singular) errs.push(fieldErrors.required('spec.names.singular', ''));
  if (!names.kind) errs.push(fieldErrors.required('spec.names.kind', ''));
  if (!names.listKind) errs.push(fieldErrors.required('spec.names.listKind', ''));
  errs.push(...validateNames(names, 'spec.names'));
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

function validateVersion(v: CrdVersion, path: string, spec: CrdSpec): FieldError[] {
  const errs: FieldError[] = [];
  const schema = v.schema?.openAPIV3Schema;
  const schemaPath = `${path}.schema.openAPIV3Schema`;
  if (!schema) {
    if (!spec.preserveUnknownFields) errs.push(fieldErrors.required(schemaPath, 'schemas are required'));
  } else {
    const structural = validateStructuralSchema(schema, schemaPath);
    errs.push(...structural);
    // Rules are compiled only against a structural schema, as kube does.
    if (structural.length === 0) errs.push(...compileSchemaRules(schema, schemaPath).errors);
  }
  (v.additionalPrinterColumns ?? []).forEach((c, i) => {
    const at = `${path}.additionalPrinterColumns[${i}]`;
    if (!c.name) errs.push(fieldErrors.required(`${at}.name`, ''));
    if (!c.type) errs.push(fieldErrors.required(`${at}.type`, ''));
    else if (!printerColumnTypes.includes(c.type)) errs.push(fieldErrors.notSupported(`${at}.type`, c.type, printerColumnTypes));
    if (c.format && !printerColumnFormats.includes(c.format)) errs.push(fieldErrors.notSupported(`${at}.format`, c.format, printerColumnFormats));
    if (c.priority !== undefined && c.priority < 0) errs.push(fieldErrors.invalid(`${at}.priority`, c.priority, 'priority must be non-negative'));
    if (!c.jsonPath) errs.push(fieldErrors.required(`${at}.jsonPath`, ''));
    else {
      const bad = validatePrinterColumnPath(c.jsonPath);
      if (bad) errs.push(fieldErrors.invalid(`${at}.jsonPath`, c.jsonPath, bad));
    }
  });
  const scale = v.subresources?.scale;
  if (scale) {
    const at = `${path}.subresources.scale`;
    if (!scale.specReplicasPath) errs.push(fieldErrors.required(`${at}.specReplicasPath`, ''));
    else if (!/^\.spec(\.[A-Za-z0-9_-]+)+$/.test(scale.specReplicasPath)) errs.push(fieldErrors.invalid(`${at}.specReplicasPath`, scale.specReplicasPath, 'should be a json path under .spec'));
    if (!scale.statusReplicasPath) errs.push(fieldErrors.required(`${at}.statusReplicasPath`, ''));
    else if (!/^\.status(\.[A-Za-z0-9_-]+)+$/.test(scale.statusReplicasPath)) errs.push(fieldErrors.invalid(`${at}.statusReplicasPath`, scale.statusReplicasPath, 'should be a json path under .status'));
    if (scale.labelSelectorPath && !/^\.(spec|status)(\.[A-Za-z0-9_-]+)+$/.test(scale.labelSelectorPath)) {
      errs.push(fieldErrors.invalid(`${at}.labelSelectorPath`, scale.labelSelectorPath, 'should be a json path under either .spec or .status'));
    }
  }
  (v.selectableFields ?? []).forEach((f, i) => {
    const at = `${path}.selectableFields[${i}].jsonPath`;
    if (!f.jsonPath) errs.push(fieldErrors.required(at, ''));
    else if (!/^(\.[A-Za-z0-9_-]+)+$/.test(f.jsonPath)) errs.push(fieldErrors.invalid(at, f.jsonPath, 'must be a simple json path starting with .'));
  });
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

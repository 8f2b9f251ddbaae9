/**
 * The checks kube-apiserver makes on a CRD version's `openAPIV3Schema` before it accepts
 * the CRD: the structural-schema rules (apiextensions' schema.ValidateStructural), the
 * defaults (defaulting.ValidateDefaults) and the OpenAPI rules of CRD validation
 * (forbidden keywords, list and map types, x-kubernetes-* consistency). Same messages,
 * same field paths, same order.
 */
import { fieldErrorMessage, type FieldError } from '../field-errors.js';
import type { OpenApiSchema } from '../openapi-schema.js';
import { validateSchemaDefaults } from './default-validation.js';
import { compileGoRegexp } from './go-regexp.js';
import { goQuote } from './go-text.js';
import { childPath, indexPath, keyPath } from './paths.js';
import {
  additionalPropertiesOf,
  hasDefault,
  isEmbeddedResource,
  isIntOrString,
  isObject,
  itemsSchema,
  junctor,
  metaFields,
  notOf,
  preservesUnknownFields,
  propertiesOf,
  propertyOf,
  raw,
  type RawSchema,
  stringKeyword,
  typeOf,
} from './schema-node.js';

/** Options of {@link validateStructuralSchema}. */
export interface StructuralSchemaOptions {
  /** The version enables the status subresource, which restricts the keywords at the root. */
  statusSubresource?: boolean;
}

const required = (field: string, detail: string): FieldError => ({
  type: 'FieldValueRequired',
  field,
  hasValue: false,
  detail,
});
const forbidden = (field: string, detail: string): FieldError => ({
  type: 'FieldValueForbidden',
  field,
  hasValue: false,
  detail,
});
/** Go prints nil as "null" (quoted). */
const invalid = (field: string, value: unknown, detail: string): FieldError => ({
  type: 'FieldValueInvalid',
  field,
  value: value === undefined || value === null ? 'null' : value,
  hasValue: true,
  detail,
});
const notSupported = (field: string, value: unknown, supported: string[]): FieldError => ({
  type: 'FieldValueNotSupported',
  field,
  value,
  hasValue: true,
  detail: `supported values: ${supported.map(goQuote).join(', ')}`,
});

/** Go's zero value test for a JSONSchemaProps field read from JSON. */
function isZero(v: unknown): boolean {
  return v === undefined || v === null || v === false || v === '';
}

/** The JSONSchemaProps keys that end up in kube's structural schema (others are dropped or rejected). */
const structuralKeys = new Set([
  'description', 'type', 'title', 'default', 'additionalProperties', 'nullable', 'externalDocs', 'items', 'properties',
  'format', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern',
  'maxItems', 'minItems', 'uniqueItems', 'multipleOf', 'enum', 'maxProperties', 'minProperties', 'required', 'allOf',
  'oneOf', 'anyOf', 'not', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string', 'x-kubernetes-list-map-keys', 'x-kubernetes-list-type', 'x-kubernetes-map-type',
  'x-kubernetes-validations',
]);

/** Whether a structural key holds Go's zero value (an empty enum or junctor list is nil in kube). */
function isStructuralZero(key: string, v: unknown): boolean {
  if (key === 'x-kubernetes-list-type' || key === 'x-kubernetes-map-type') return v === undefined || v === null;
  if (Array.isArray(v)) return v.length === 0 && (key === 'enum' || key === 'allOf' || key === 'anyOf' || key === 'oneOf');
  if (isObject(v) && key === 'properties') return Object.keys(v).length === 0;
  return isZero(v);
}

// ---------------------------------------------------------------------------------
// NewStructural: keywords a structural schema cannot even be built from.

function unsupportedField(s: RawSchema): string | undefined {
  if (typeof s.id === 'string' && s.id !== '') return "OpenAPIV3Schema 'id' is not supported";
  if (typeof s.$schema === 'string' && s.$schema !== '') return "OpenAPIV3Schema 'schema' is not supported";
  if (typeof s.$ref === 'string' && s.$ref !== '') return "OpenAPIV3Schema '$ref' is not supported";
  if (isObject(s.patternProperties) && Object.keys(s.patternProperties).length > 0) return "OpenAPIV3Schema 'patternProperties' is not supported";
  if (isObject(s.dependencies) && Object.keys(s.dependencies).length > 0) return "OpenAPIV3Schema 'dependencies' is not supported";
  if (s.additionalItems !== undefined && s.additionalItems !== null) return "OpenAPIV3Schema 'additionalItems' is not supported";
  if (isObject(s.definitions) && Object.keys(s.definitions).length > 0) return "OpenAPIV3Schema 'definitions' is not supported";
  return undefined;
}

/** The error NewStructural would return for this schema, if any. */
function newStructuralError(s: OpenApiSchema | undefined): string | undefined {
  if (!s) return undefined;
  const r = raw(s);
  const bad = unsupportedField(r);
  if (bad) return bad;
  for (const sub of [notOf(s), ...junctor(s, 'allOf'), ...junctor(s, 'anyOf'), ...junctor(s, 'oneOf')]) {
    const err = newStructuralError(sub);
    if (err) return err;
  }
  const ap = additionalPropertiesOf(s);
  if (ap?.schema) {
    const err = newStructuralError(ap.schema);
    if (err) return err;
  }
  if (r['x-kubernetes-preserve-unknown-fields'] === false) {
    return "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined";
  }
  if (Array.isArray(r.items) && r.items.length > 0) return "OpenAPIV3Schema 'items' must be a schema, but is an array";
  const itemsErr = newStructuralError(itemsSchema(s));
  if (itemsErr) return itemsErr;
  for (const prop of Object.values(propertiesOf(s))) {
    const err = newStructuralError(isObject(prop) ? prop : undefined);
    if (err) return err;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------
// ValidateStructural: invariants and completeness.

type Level = 'root' | 'item' | 'field';

/** A junctor clause that is exactly `{type: <t>}`, as kube's int-or-string patterns require. */
function isOnlyType(s: OpenApiSchema | undefined, t: string): boolean {
  if (!s || typeOf(s) !== t) return false;
  for (const [k, v] of Object.entries(raw(s))) {
    if (k !== 'type' && structuralKeys.has(k) && !isStructuralZero(k, v)) return false;
  }
  return true;
}

function isIntOrStringAnyOf(anyOf: OpenApiSchema[]): boolean {
  return anyOf.length === 2 && isOnlyType(anyOf[0], 'integer') && isOnlyType(anyOf[1], 'string');
}

function isIntOrStringAllOfPattern(s: OpenApiSchema): boolean {
  const allOf = junctor(s, 'allOf');
  return allOf.length >= 1 && isIntOrStringAnyOf(junctor(allOf[0]!, 'anyOf'));
}

function validateValueValidation(
  v: OpenApiSchema,
  skipAnyOf: boolean,
  skipFirstAllOfAnyOf: boolean,
  lvl: Level,
  path: string,
): FieldError[] {
  const errs: FieldError[] = [];
  if (!skipAnyOf) {
    junctor(v, 'anyOf').forEach((x, i) => errs.push(...validateNested(x, false, lvl, indexPath(childPath(path, 'anyOf'), i))));
  }
  junctor(v, 'allOf').forEach((x, i) =>
    errs.push(...validateNested(x, skipFirstAllOfAnyOf && i === 0, lvl, indexPath(childPath(path, 'allOf'), i))),
  );
  junctor(v, 'oneOf').forEach((x, i) => errs.push(...validateNested(x, false, lvl, indexPath(childPath(path, 'oneOf'), i))));
  const not = notOf(v);
  if (not) errs.push(...validateNested(not, false, lvl, childPath(path, 'not')));
  const pattern = stringKeyword(v, 'pattern');
  if (pattern !== '') {
    const re = compileGoRegexp(pattern);
    if (typeof re === 'string') {
      errs.push(invalid(childPath(path, 'pattern'), pattern, `must be a valid regular expression, but isn't: ${re}`));
    }
  }
  return errs;
}

/** A schema under allOf/anyOf/oneOf/not: value validation only, nothing structural. */
function validateNested(v: OpenApiSchema, skipAnyOf: boolean, lvl: Level, path: string): FieldError[] {
  const errs = validateValueValidation(v, skipAnyOf, false, lvl, path);
  const r = raw(v);
  const items = itemsSchema(v);
  if (items) errs.push(...validateNested(items, false, lvl, childPath(path, 'items')));
  for (const [k, prop] of Object.entries(propertiesOf(v))) {
    if (isObject(prop)) errs.push(...validateNested(prop, false, 'field', keyPath(childPath(path, 'properties'), k)));
  }
  if (typeOf(v) !== '') errs.push(forbidden(childPath(path, 'type'), 'must be empty to be structural'));
  if (additionalPropertiesOf(v) !== undefined) {
    errs.push(forbidden(childPath(path, 'additionalProperties'), 'must be undefined to be structural'));
  }
  if (hasDefault(v)) errs.push(forbidden(childPath(path, 'default'), 'must be undefined to be structural'));
  if (!isZero(r.title)) errs.push(forbidden(childPath(path, 'title'), 'must be empty to be structural'));
  if (!isZero(r.description)) errs.push(forbidden(childPath(path, 'description'), 'must be empty to be structural'));
  if (v.nullable === true) errs.push(forbidden(childPath(path, 'nullable'), 'must be false to be structural'));
  if (!isZero(r.externalDocs)) {
    errs.push(forbidden(childPath(path, 'externalDocs'), 'must be undefined to be structural'));
  }
  if (preservesUnknownFields(v)) {
    errs.push(forbidden(childPath(path, 'x-kubernetes-preserve-unknown-fields'), 'must be false to be structural'));
  }
  if (isEmbeddedResource(v)) {
    errs.push(forbidden(childPath(path, 'x-kubernetes-embedded-resource'), 'must be false to be structural'));
  }
  if (isIntOrString(v)) {
    errs.push(forbidden(childPath(path, 'x-kubernetes-int-or-string'), 'must be false to be structural'));
  }
  const mapKeys = r['x-kubernetes-list-map-keys'];
  if (Array.isArray(mapKeys) && mapKeys.length > 0) {
    errs.push(forbidden(childPath(path, 'x-kubernetes-list-map-keys'), 'must be empty to be structural'));
  }
  if (r['x-kubernetes-list-type'] !== undefined && r['x-kubernetes-list-type'] !== null) {
    errs.push(forbidden(childPath(path, 'x-kubernetes-list-type'), 'must be undefined to be structural'));
  }
  if (r['x-kubernetes-map-type'] !== undefined && r['x-kubernetes-map-type'] !== null) {
    errs.push(forbidden(childPath(path, 'x-kubernetes-map-type'), 'must be undefined to be structural'));
  }
  const rules = r['x-kubernetes-validations'];
  if (Array.isArray(rules) && rules.length > 0) {
    errs.push(forbidden(childPath(path, 'x-kubernetes-validations'), 'must be empty to be structural'));
  }
  if (propertyOf(v, 'metadata')) {
    errs.push(
      forbidden(keyPath(childPath(path, 'properties'), 'metadata'), 'must not be specified in a nested context'),
    );
  }
  return errs;
}

/** Whether a root `metadata` schema says more than its type, name and generateName. */
function metadataSaysMore(m: OpenApiSchema): boolean {
  const r = raw(m);
  const props = Object.keys(propertiesOf(m));
  const names = props.filter((p) => p === 'name' || p === 'generateName').length;
  if (props.length > 0 && names !== props.length) return true;
  for (const [k, v] of Object.entries(r)) {
    if (k === 'type' || k === 'default' || k === 'properties') continue;
    if (structuralKeys.has(k) && !isStructuralZero(k, v)) return true;
  }
  return false;
}

function validateMetadataInvariants(m: OpenApiSchema, checkMetadata: boolean, lvl: Level, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (checkMetadata && typeOf(m) !== 'object') errs.push(invalid(childPath(path, 'type'), typeOf(m), 'must be object'));
  if (lvl === 'root' && metadataSaysMore(m)) {
    errs.push(
      forbidden(
        path,
        'must not specify anything other than name and generateName, but metadata is implicitly specified',
      ),
    );
  }
  return errs;
}

function validateInvariants(s: OpenApiSchema | undefined, lvl: Level, path: string): FieldError[] {
  if (!s) return [];
  const errs: FieldError[] = [];
  const type = typeOf(s);
  const items = itemsSchema(s);
  if (type === 'array' && !items) errs.push(required(childPath(path, 'items'), 'must be specified'));
  errs.push(...validateInvariants(items, 'item', childPath(path, 'items')));
  for (const [k, prop] of Object.entries(propertiesOf(s))) {
    if (isObject(prop)) errs.push(...validateInvariants(prop, 'field', keyPath(childPath(path, 'properties'), k)));
  }
  const ap = additionalPropertiesOf(s);
  if (ap) {
    if (lvl === 'root') errs.push(forbidden(childPath(path, 'additionalProperties'), 'must not be used at the root'));
    if (ap.schema) errs.push(...validateInvariants(ap.schema, 'field', childPath(path, 'additionalProperties')));
  }
  const intOrString = isIntOrString(s);
  const preserve = preservesUnknownFields(s);
  const embedded = isEmbeddedResource(s);
  if (intOrString && preserve) {
    errs.push(
      invalid(
        childPath(path, 'x-kubernetes-preserve-unknown-fields'),
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  }
  if (intOrString && embedded) {
    errs.push(
      invalid(
        childPath(path, 'x-kubernetes-embedded-resource'),
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  }
  errs.push(
    ...validateValueValidation(s, isIntOrStringAnyOf(junctor(s, 'anyOf')), isIntOrStringAllOfPattern(s), lvl, path),
  );

  const checkMetadata = lvl === 'root' || embedded;
  if (embedded && type !== 'object') {
    const detail = 'must be object if x-kubernetes-embedded-resource is true';
    errs.push(type === '' ? required(childPath(path, 'type'), detail) : invalid(childPath(path, 'type'), type, detail));
  } else if (type === '' && !intOrString && !preserve) {
    const detail =
      lvl === 'root'
        ? 'must not be empty at the root'
        : lvl === 'item'
          ? 'must not be empty for specified array items'
          : 'must not be empty for specified object fields';
    errs.push(required(childPath(path, 'type'), detail));
  }
  if (embedded && ap) {
    errs.push(
      forbidden(childPath(path, 'additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'),
    );
  }
  if (lvl === 'root' && type !== '' && type !== 'object') {
    errs.push(invalid(childPath(path, 'type'), type, 'must be object at the root'));
  }

  const properties = childPath(path, 'properties');
  for (const field of ['kind', 'apiVersion']) {
    const p = propertyOf(s, field);
    if (p && checkMetadata && typeOf(p) !== 'string') {
      errs.push(invalid(childPath(keyPath(properties, field), 'type'), typeOf(p), 'must be string'));
    }
  }
  const metadata = propertyOf(s, 'metadata');
  if (metadata) errs.push(...validateMetadataInvariants(metadata, checkMetadata, lvl, keyPath(properties, 'metadata')));
  if (embedded && !preserve && Object.keys(propertiesOf(s)).length === 0) {
    errs.push(
      required(
        properties,
        'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
      ),
    );
  }
  return errs;
}

function because(sPath: string, vPath: string): FieldError {
  return required(sPath, `because it is defined in ${vPath}`);
}

function junctorCompleteness(v: OpenApiSchema, s: OpenApiSchema, sPath: string, vPath: string): FieldError[] {
  const errs: FieldError[] = [];
  const not = notOf(v);
  if (not) errs.push(...nestedCompleteness(not, s, sPath, childPath(vPath, 'not')));
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    junctor(v, key).forEach((x, i) => errs.push(...nestedCompleteness(x, s, sPath, indexPath(childPath(vPath, key), i))));
  }
  return errs;
}

/** Every field or array a junctor speaks of must be specified outside of it too. */
function nestedCompleteness(v: OpenApiSchema, s: OpenApiSchema | undefined, sPath: string, vPath: string): FieldError[] {
  if (!s) return [because(sPath, vPath)];
  const errs = junctorCompleteness(v, s, sPath, vPath);
  const vItems = itemsSchema(v);
  if (vItems) {
    errs.push(...nestedCompleteness(vItems, itemsSchema(s), childPath(sPath, 'items'), childPath(vPath, 'items')));
  }
  for (const [k, vProp] of Object.entries(propertiesOf(v))) {
    if (!isObject(vProp)) continue;
    const sProp = propertyOf(s, k);
    const sp = keyPath(childPath(sPath, 'properties'), k);
    const vp = keyPath(childPath(vPath, 'properties'), k);
    errs.push(...(sProp ? nestedCompleteness(vProp, sProp, sp, vp) : [because(sp, vp)]));
  }
  return errs;
}

/** kube's ValidateStructural: invariants and completeness, sorted by message as kube sorts them. */
function validateStructural(s: OpenApiSchema, path: string): FieldError[] {
  const errs = [...validateInvariants(s, 'root', path), ...junctorCompleteness(s, s, path, path)];
  const keyed = errs.map((e) => [fieldErrorMessage(e), e] as const);
  keyed.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return keyed.map(([, e]) => e);
}

// ---------------------------------------------------------------------------------
// ValidateCustomResourceDefinitionOpenAPISchema.

interface Context {
  allowDefaults: boolean;
  disallowDefaultsReason: string;
  insideResourceMeta: boolean;
}

const openapiV3Types = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const supportedValidationReasons = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];
const hasNewlines = (s: string): boolean => /[\n\r]/.test(s);

/** specStandardValidatorV3.validate: keywords CRDs do not support. */
function validateKeywords(s: OpenApiSchema, path: string, ctx: Context): FieldError[] {
  const errs: FieldError[] = [];
  const r = raw(s);
  const type = typeOf(s);
  if (type !== '' && !openapiV3Types.includes(type)) {
    errs.push(notSupported(childPath(path, 'type'), type, openapiV3Types));
  }
  if (hasDefault(s) && !ctx.allowDefaults) {
    const reason = ctx.disallowDefaultsReason ? ` ${ctx.disallowDefaultsReason}` : '';
    errs.push(forbidden(childPath(path, 'default'), `must not be set${reason}`));
  }
  if (typeof r.id === 'string' && r.id !== '') errs.push(forbidden(childPath(path, 'id'), 'id is not supported'));
  if (r.additionalItems !== undefined && r.additionalItems !== null) {
    errs.push(forbidden(childPath(path, 'additionalItems'), 'additionalItems is not supported'));
  }
  if (isObject(r.patternProperties) && Object.keys(r.patternProperties).length > 0) {
    errs.push(forbidden(childPath(path, 'patternProperties'), 'patternProperties is not supported'));
  }
  if (isObject(r.definitions) && Object.keys(r.definitions).length > 0) {
    errs.push(forbidden(childPath(path, 'definitions'), 'definitions is not supported'));
  }
  if (r.dependencies !== undefined && r.dependencies !== null) {
    errs.push(forbidden(childPath(path, 'dependencies'), 'dependencies is not supported'));
  }
  if (r.$ref !== undefined && r.$ref !== null) errs.push(forbidden(childPath(path, '$ref'), '$ref is not supported'));
  if (type === 'null') {
    errs.push(forbidden(childPath(path, 'type'), 'type cannot be set to null, use nullable as an alternative'));
  }
  if (Array.isArray(r.items) && r.items.length > 0) {
    errs.push(forbidden(childPath(path, 'items'), 'items must be a schema object and not an array'));
  }
  if (ctx.insideResourceMeta && isEmbeddedResource(s)) {
    errs.push(forbidden(childPath(path, 'x-kubernetes-embedded-resource'), 'must not be used inside of resource meta'));
  }
  return errs;
}

function validateListType(s: OpenApiSchema, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const r = raw(s);
  const type = typeOf(s);
  const listType = r['x-kubernetes-list-type'];
  const mapType = r['x-kubernetes-map-type'];
  const mapKeys = Array.isArray(r['x-kubernetes-list-map-keys']) ? (r['x-kubernetes-list-map-keys'] as unknown[]) : [];
  const items = itemsSchema(s);

  if (r['x-kubernetes-preserve-unknown-fields'] === false) {
    errs.push(invalid(childPath(path, 'x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  }
  if (mapType !== undefined && mapType !== null && type !== 'object') {
    const detail = 'must be object if x-kubernetes-map-type is specified';
    errs.push(type === '' ? required(childPath(path, 'type'), detail) : invalid(childPath(path, 'type'), type, detail));
  }
  if (mapType !== undefined && mapType !== null && mapType !== 'atomic' && mapType !== 'granular') {
    errs.push(notSupported(childPath(path, 'x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
  }
  const hasListType = listType !== undefined && listType !== null;
  if (hasListType && type !== 'array') {
    const detail = 'must be array if x-kubernetes-list-type is specified';
    errs.push(type === '' ? required(childPath(path, 'type'), detail) : invalid(childPath(path, 'type'), type, detail));
  } else if (listType === 'set' && items) {
    const itemType = typeOf(items);
    const itemListType = raw(items)['x-kubernetes-list-type'];
    const itemMapType = raw(items)['x-kubernetes-map-type'];
    const detail = 'must be atomic as item of a list with x-kubernetes-list-type=set';
    if (itemType === 'array' && itemListType !== undefined && itemListType !== null && itemListType !== 'atomic') {
      errs.push(invalid(childPath(childPath(path, 'items'), 'x-kubernetes-list-type'), itemListType, detail));
    } else if (itemType === 'object' && itemMapType !== 'atomic') {
      // kube reports the items' list type here, usually unset.
      errs.push(invalid(childPath(childPath(path, 'items'), 'x-kubernetes-map-type'), itemListType, detail));
    }
  }
  if (hasListType && listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
    errs.push(notSupported(childPath(path, 'x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']));
  }
  if (mapKeys.length > 0) {
    const detail = 'must be map if x-kubernetes-list-map-keys is non-empty';
    if (!hasListType) errs.push(required(childPath(path, 'x-kubernetes-list-type'), detail));
    else if (listType !== 'map') errs.push(invalid(childPath(path, 'x-kubernetes-list-type'), listType, detail));
  }
  if (listType === 'map') {
    if (mapKeys.length === 0) {
      errs.push(
        required(childPath(path, 'x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'),
      );
    }
    if (r.items === undefined || r.items === null) {
      errs.push(required(childPath(path, 'items'), 'must have a schema if x-kubernetes-list-type is map'));
    }
    else if (!items) {
      errs.push(
        invalid(childPath(path, 'items'), r.items, 'must only have a single schema if x-kubernetes-list-type is map'),
      );
    }
    if (items && typeOf(items) !== 'object') {
      errs.push(
        invalid(
          childPath(childPath(path, 'items'), 'type'),
          typeOf(items),
          "must be object if parent array's x-kubernetes-list-type is map",
        ),
      );
    }
    if (items && typeOf(items) === 'object') {
      const seen = new Set<unknown>();
      for (const k of mapKeys) {
        const prop = typeof k === 'string' ? propertyOf(items, k) : undefined;
        if (prop) {
          const t = typeOf(prop);
          if (t === 'array' || t === 'object') {
            // kube shows the items' type here.
            errs.push(
              invalid(
                childPath(keyPath(childPath(childPath(path, 'items'), 'properties'), String(k)), 'type'),
                typeOf(items),
                "must be a scalar type if parent array's x-kubernetes-list-type is map",
              ),
            );
          }
        } else {
          errs.push(
            invalid(
              childPath(path, 'x-kubernetes-list-map-keys'),
              mapKeys,
              'entries must all be names of item properties',
            ),
          );
        }
        if (seen.has(k)) {
          errs.push(
            invalid(childPath(path, 'x-kubernetes-list-map-keys'), mapKeys, 'must not contain duplicate entries'),
          );
        }
        seen.add(k);
      }
    }
  }
  // Items of set and map lists are never null, and map keys are always present.
  if (items && (listType === 'set' || listType === 'map')) {
    if (items.nullable === true) {
      errs.push(
        forbidden(
          childPath(childPath(path, 'items'), 'nullable'),
          `cannot be nullable when x-kubernetes-list-type is ${listType}`,
        ),
      );
    }
    if (listType === 'map') {
      const req = Array.isArray(items.required) ? items.required : [];
      for (const k of mapKeys) {
        const prop = typeof k === 'string' ? propertyOf(items, k) : undefined;
        if (!prop) continue;
        const at = keyPath(childPath(childPath(path, 'items'), 'properties'), String(k));
        if (!req.includes(String(k)) && !hasDefault(prop)) {
          errs.push(
            required(
              childPath(at, 'default'),
              'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
            ),
          );
        }
        if (prop.nullable === true) {
          errs.push(
            forbidden(
              childPath(at, 'nullable'),
              'this property is in x-kubernetes-list-map-keys, so it cannot be nullable',
            ),
          );
        }
      }
    }
  }
  return errs;
}

/** The static checks of x-kubernetes-validations rules (their CEL is compiled elsewhere). */
function validateRules(s: OpenApiSchema, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const rules = raw(s)['x-kubernetes-validations'];
  if (!Array.isArray(rules)) return errs;
  rules.forEach((rule: unknown, i) => {
    if (!isObject(rule)) return;
    const at = indexPath(childPath(path, 'x-kubernetes-validations'), i);
    const str = (k: string) => (typeof rule[k] === 'string' ? (rule[k] as string) : '');
    const ruleText = str('rule').trim();
    const message = str('message');
    const trimmedMsg = message.trim();
    if (ruleText === '') errs.push(required(childPath(at, 'rule'), 'rule is not specified'));
    else if (message.length > 0 && trimmedMsg === '') {
      errs.push(invalid(childPath(at, 'message'), message, 'message must be non-empty if specified'));
    }
    else if (hasNewlines(trimmedMsg)) {
      errs.push(invalid(childPath(at, 'message'), message, 'message must not contain line breaks'));
    }
    else if (hasNewlines(ruleText) && trimmedMsg === '') {
      errs.push(required(childPath(at, 'message'), 'message must be specified if rule contains line breaks'));
    }
    const messageExpression = str('messageExpression');
    if (messageExpression.length > 0 && messageExpression.trim() === '') {
      errs.push(required(childPath(at, 'messageExpression'), 'messageExpression must be non-empty if specified'));
    }
    const reason = rule.reason;
    if (reason !== undefined && reason !== null && !supportedValidationReasons.includes(String(reason))) {
      errs.push(notSupported(childPath(at, 'reason'), reason, supportedValidationReasons));
    }
    const fieldPath = str('fieldPath');
    if (fieldPath.length > 0 && fieldPath.trim() === '') {
      errs.push(invalid(childPath(at, 'fieldPath'), fieldPath, 'fieldPath must be non-empty if specified'));
    }
    if (hasNewlines(fieldPath)) {
      errs.push(invalid(childPath(at, 'fieldPath'), fieldPath, 'fieldPath must not contain line breaks'));
    }
  });
  return errs;
}

function validateOpenApiSchema(s: OpenApiSchema | undefined, path: string, ctx: Context, isRoot: boolean): FieldError[] {
  if (!s) return [];
  const r = raw(s);
  const errs = validateKeywords(s, path, ctx);
  if (s.uniqueItems === true) {
    errs.push(
      forbidden(
        childPath(path, 'uniqueItems'),
        'uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
      ),
    );
  }
  const properties = propertiesOf(s);
  const ap = additionalPropertiesOf(s);
  if (ap) {
    if (Object.keys(properties).length > 0 && (!ap.allows || ap.schema)) {
      errs.push(
        forbidden(childPath(path, 'additionalProperties'), 'additionalProperties and properties are mutual exclusive'),
      );
    }
    const sub = ctx.insideResourceMeta
      ? { ...ctx, allowDefaults: false, disallowDefaultsReason: 'inside additionalProperties applying to object metadata' }
      : ctx;
    errs.push(...validateOpenApiSchema(ap.schema, childPath(path, 'additionalProperties'), sub, false));
  }
  for (const [k, prop] of Object.entries(properties)) {
    if (!isObject(prop)) continue;
    let sub = ctx;
    if ((isRoot || isEmbeddedResource(s)) && metaFields.has(k)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = { ...sub, allowDefaults: false, disallowDefaultsReason: `in top-level ${k}` };
    }
    errs.push(...validateOpenApiSchema(prop, keyPath(childPath(path, 'properties'), k), sub, false));
  }
  errs.push(...validateOpenApiSchema(notOf(s), childPath(path, 'not'), ctx, false));
  for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
    junctor(s, key).forEach((x, i) => errs.push(...validateOpenApiSchema(x, indexPath(childPath(path, key), i), ctx, false)));
  }
  if (isObject(r.definitions)) {
    for (const [k, d] of Object.entries(r.definitions)) {
      if (isObject(d)) {
        errs.push(...validateOpenApiSchema(d as OpenApiSchema, keyPath(childPath(path, 'definitions'), k), ctx, false));
      }
    }
  }
  if (isObject(r.items)) {
    errs.push(...validateOpenApiSchema(r.items as OpenApiSchema, childPath(path, 'items'), ctx, false));
  }
  else if (Array.isArray(r.items)) {
    r.items.forEach((x, i) => {
      if (isObject(x)) {
        errs.push(...validateOpenApiSchema(x as OpenApiSchema, indexPath(childPath(path, 'items'), i), ctx, false));
      }
    });
  }
  if (isObject(r.dependencies)) {
    for (const [k, d] of Object.entries(r.dependencies)) {
      if (isObject(d)) {
        errs.push(
          ...validateOpenApiSchema(d as OpenApiSchema, keyPath(childPath(path, 'dependencies'), k), ctx, false),
        );
      }
    }
  }
  errs.push(...validateListType(s, path));
  errs.push(...validateRules(s, path));
  return errs;
}

// ---------------------------------------------------------------------------------
// The status subresource's restriction of the root.

const rootFields: Array<[string, string]> = [
  ['id', 'ID'],
  ['$schema', 'Schema'],
  ['$ref', 'Ref'],
  ['description', 'Description'],
  ['type', 'Type'],
  ['format', 'Format'],
  ['title', 'Title'],
  ['default', 'Default'],
  ['maximum', 'Maximum'],
  ['exclusiveMaximum', 'ExclusiveMaximum'],
  ['minimum', 'Minimum'],
  ['exclusiveMinimum', 'ExclusiveMinimum'],
  ['maxLength', 'MaxLength'],
  ['minLength', 'MinLength'],
  ['pattern', 'Pattern'],
  ['maxItems', 'MaxItems'],
  ['minItems', 'MinItems'],
  ['uniqueItems', 'UniqueItems'],
  ['multipleOf', 'MultipleOf'],
  ['enum', 'Enum'],
  ['maxProperties', 'MaxProperties'],
  ['minProperties', 'MinProperties'],
  ['required', 'Required'],
  ['items', 'Items'],
  ['allOf', 'AllOf'],
  ['oneOf', 'OneOf'],
  ['anyOf', 'AnyOf'],
  ['not', 'Not'],
  ['properties', 'Properties'],
  ['additionalProperties', 'AdditionalProperties'],
  ['patternProperties', 'PatternProperties'],
  ['dependencies', 'Dependencies'],
  ['additionalItems', 'AdditionalItems'],
  ['definitions', 'Definitions'],
  ['externalDocs', 'ExternalDocs'],
  ['example', 'Example'],
  ['nullable', 'Nullable'],
  ['x-kubernetes-preserve-unknown-fields', 'XPreserveUnknownFields'],
  ['x-kubernetes-embedded-resource', 'XEmbeddedResource'],
  ['x-kubernetes-int-or-string', 'XIntOrString'],
  ['x-kubernetes-list-map-keys', 'XListMapKeys'],
  ['x-kubernetes-list-type', 'XListType'],
  ['x-kubernetes-map-type', 'XMapType'],
  ['x-kubernetes-validations', 'XValidations'],
];
const allowedAtRoot = [
  'Description', 'Type', 'Format', 'Title', 'Maximum', 'ExclusiveMaximum', 'Minimum', 'ExclusiveMinimum', 'MaxLength',
  'MinLength', 'Pattern', 'MaxItems', 'MinItems', 'UniqueItems', 'MultipleOf', 'Required', 'Items', 'Properties',
  'ExternalDocs', 'Example', 'XPreserveUnknownFields', 'XValidations',
];

function validateStatusRoot(s: OpenApiSchema, path: string): FieldError[] {
  const r = raw(s);
  for (const [key, goName] of rootFields) {
    const v = r[key];
    // Pointer fields (x-kubernetes-preserve-unknown-fields, list and map types) are set even when false or empty.
    const set = key.startsWith('x-kubernetes-') && key !== 'x-kubernetes-embedded-resource' && key !== 'x-kubernetes-int-or-string'
      ? v !== undefined && v !== null
      : !isZero(v);
    if (!set) continue;
    if (goName === 'Type') {
      if (typeOf(s) !== 'object') {
        return [
          invalid(
            childPath(path, 'type'),
            typeOf(s),
            'only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
          ),
        ];
      }
      continue;
    }
    if (!allowedAtRoot.includes(goName)) {
      return [
        invalid(
          path,
          s,
          `only [${allowedAtRoot.join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`,
        ),
      ];
    }
  }
  return [];
}

/**
 * Validates a CRD version's `openAPIV3Schema` as kube-apiserver does when the CRD is
 * created: the structural-schema rules (types everywhere, nothing structural under
 * allOf/anyOf/oneOf/not, metadata restricted to name and generateName, x-kubernetes-*
 * consistency), the defaults (pruned and valid), and the keywords CRDs forbid (`$ref`,
 * `additionalItems`, `patternProperties`, `dependencies`, `definitions`, `id`, `$schema`,
 * `uniqueItems: true`, properties with additionalProperties, list and map type rules).
 * `fieldPath` is where the schema sits, e.g. `spec.versions[0].schema.openAPIV3Schema`.
 * CEL rules are not compiled here.
 */
export function validateStructuralSchema(
  schema: OpenApiSchema,
  fieldPath: string,
  opts: StructuralSchemaOptions = {},
): FieldError[] {
  const errs: FieldError[] = [];
  if (opts.statusSubresource) errs.push(...validateStatusRoot(schema, fieldPath));
  if (schema.nullable === true) {
    errs.push(forbidden(childPath(fieldPath, 'nullable'), 'nullable cannot be true at the root'));
  }
  const initError = newStructuralError(schema);
  if (!initError) {
    const structuralErrs = validateStructural(schema, fieldPath);
    errs.push(...(structuralErrs.length ? structuralErrs : validateSchemaDefaults(schema, fieldPath)));
  }
  errs.push(
    ...validateOpenApiSchema(
      schema,
      fieldPath,
      { allowDefaults: true, disallowDefaultsReason: '', insideResourceMeta: false },
      true,
    ),
  );
  // kube shows why no structural schema could be built only when nothing else explains it.
  if (errs.length === 0 && initError) errs.push(invalid(fieldPath, '', initError));
  return errs;
}

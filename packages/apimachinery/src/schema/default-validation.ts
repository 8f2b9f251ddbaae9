/**
 * The checks kube makes on the `default`s of a CRD schema when the CRD is written
 * (apiextensions' defaulting.ValidateDefaults): each default is pruned already and
 * valid against the schema it sits in.
 */
import type { FieldError } from '../field-errors.js';
import { deepCopy, jsonEqual } from '../object.js';
import type { OpenApiSchema } from '../openapi-schema.js';
import { embeddedResourceTypeError, validateEmbeddedResources } from './embedded-resource.js';
import { validateOpenApiValue } from './openapi-validator.js';
import { childPath, keyPath } from './paths.js';
import { pruneValue } from './pruning.js';
import { asResourceRoot, hasDefault, isEmbeddedResource, itemsSchema, metaFields, propertiesOf } from './schema-node.js';

function validate(path: string, s: OpenApiSchema | undefined, insideMeta: boolean, requirePruned: boolean): FieldError[] {
  if (!s) return [];
  const embedded = isEmbeddedResource(s);
  if (embedded) insideMeta = false;
  const errs: FieldError[] = [];
  if (hasDefault(s)) {
    const def = s.default;
    const at = childPath(path, 'default');
    if (insideMeta) {
      // kube checks a default inside apiVersion/kind/metadata of an embedded resource as
      // part of a whole stand-in object; here it is checked against its own schema only.
      errs.push(...validateOpenApiValue(def, s, at));
    } else {
      if (requirePruned) {
        const pruned = deepCopy(def);
        pruneValue(pruned, s, { isResourceRoot: embedded });
        if (!jsonEqual(pruned, def)) {
          errs.push({ type: 'FieldValueInvalid', field: at, value: def, hasValue: true, detail: 'must not have unknown fields' });
        }
      }
      const typeErr = embeddedResourceTypeError(def, s, at, embedded);
      const metaErrs = typeErr ? [] : validateEmbeddedResources(def, s, at, embedded);
      if (typeErr) errs.push(typeErr);
      else if (metaErrs.length) errs.push(...metaErrs);
      else errs.push(...validateOpenApiValue(def, s, at));
    }
  }
  // additionalProperties are not followed: kube does not check defaults there.
  errs.push(...validate(childPath(path, 'items'), itemsSchema(s), insideMeta, requirePruned));
  for (const [k, prop] of Object.entries(propertiesOf(s))) {
    const subInsideMeta = insideMeta || (embedded && metaFields.has(k));
    errs.push(...validate(keyPath(childPath(path, 'properties'), k), prop, subInsideMeta, requirePruned));
  }
  return errs;
}

/**
 * Validates every `default` in a CRD version's schema (rooted at `fieldPath`, e.g.
 * `spec.versions[0].schema.openAPIV3Schema`): `...properties[a].default: Invalid value:
 * {"x":1}: must not have unknown fields`, or the value errors of the default against its
 * schema (`...properties[replicas].default: Invalid value: 15:  in body should be less
 * than or equal to 10`). CEL rules on defaults are not checked here.
 */
export function validateSchemaDefaults(schema: OpenApiSchema, fieldPath: string, requirePrunedDefaults = true): FieldError[] {
  return validate(fieldPath, asResourceRoot(schema), false, requirePrunedDefaults);
}

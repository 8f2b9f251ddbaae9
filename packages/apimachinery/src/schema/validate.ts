/**
 * Schema validation of a custom resource (or any value), all errors at once, in kube's
 * order: the OpenAPI checks, then embedded resources' TypeMeta/ObjectMeta, then list
 * uniqueness. CEL rules and the resource's own metadata are checked elsewhere.
 */
import type { FieldError } from '../field-errors.js';
import type { OpenApiSchema } from '../openapi-schema.js';
import { validateEmbeddedResources } from './embedded-resource.js';
import { validateListTypes } from './list-type.js';
import { validateOpenApiValue } from './openapi-validator.js';

/** Options of {@link validateValue}. */
export interface ValidateValueOptions {
  /**
   * Treat `value` itself as an embedded resource (its apiVersion, kind and metadata are
   * checked). False for a custom resource, whose metadata its store validates.
   */
  isResourceRoot?: boolean;
  /**
   * On update, the old object: errors of values it already had are ratcheted, as kube
   * does with CRDValidationRatcheting (on by default), and list uniqueness is only
   * checked when the old object satisfied it.
   */
  old?: unknown;
}

/**
 * Validates `value` against a structural schema as kube-apiserver validates custom
 * resources: type, format, enum, minimum/maximum (exclusive), multipleOf, min/maxLength,
 * pattern, min/maxItems, uniqueItems, min/maxProperties, required, nullable,
 * additionalProperties, allOf/anyOf/oneOf/not, x-kubernetes-int-or-string,
 * x-kubernetes-embedded-resource, x-kubernetes-list-type set/map. Field paths start
 * with `path` (`''` for a whole resource), e.g. `spec.replicas: Invalid value: 15:
 * spec.replicas in body should be less than or equal to 10`.
 *
 * As kube does, run {@link pruneValue}, {@link pruneNonNullableNullsWithoutDefaults} and
 * {@link applyDefaults} first: nulls of non-nullable fields are dropped before validation.
 */
export function validateValue(
  value: unknown,
  schema: OpenApiSchema | undefined,
  path = '',
  opts: ValidateValueOptions = {},
): FieldError[] {
  const { old } = opts;
  return [
    ...validateOpenApiValue(value, schema, path, old),
    // Embedded resources are checked alike on create and update, as in kube.
    ...validateEmbeddedResources(value, schema, path, opts.isResourceRoot ?? false),
    ...(old === undefined || validateListTypes(old, schema, path).length === 0 ? validateListTypes(value, schema, path) : []),
  ];
}

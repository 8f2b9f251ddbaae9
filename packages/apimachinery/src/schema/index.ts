/** The structural-schema engine of custom resources: CRD schema checks, validation, defaulting, pruning. */
export { validateStructuralSchema, type StructuralSchemaOptions } from './structural.js';
export { validateSchemaDefaults } from './default-validation.js';
export { validateValue, type ValidateValueOptions } from './validate.js';
export { validateOpenApiValue } from './openapi-validator.js';
export { validateEmbeddedResources, embeddedResourceTypeError } from './embedded-resource.js';
export { validateListTypes } from './list-type.js';
export { applyDefaults, pruneNonNullableNullsWithoutDefaults } from './defaulting.js';
export { pruneValue, type PruneOptions } from './pruning.js';
export { compileGoRegexp, type GoRegexp } from './go-regexp.js';
export { checkFormat, isSupportedFormat } from './formats.js';
export { resolveSchema, type OpenApiSchema, type SchemaResolver } from '../openapi-schema.js';

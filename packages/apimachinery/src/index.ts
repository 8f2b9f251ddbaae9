export * from './object.js';
export * from './field-errors.js';
export * from './status.js';
export * from './openapi-schema.js';

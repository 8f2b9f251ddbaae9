export * from './object.js';
export * from './field-errors.js';
export * from './status.js';
export * from './openapi-schema.js';
export * from './selectors/index.js';
export * from './validation/index.js';
export * from './patch/index.js';
export * from './jsonpath/index.js';

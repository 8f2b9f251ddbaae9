/** Reading JSON text as kube's strict decoder does: the keys an object names twice. */
export { duplicateKeys, formatFieldPath, type JsonPathSegment } from './duplicate-keys.js';

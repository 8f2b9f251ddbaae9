/** Applying PATCH bodies the way kube-apiserver does: JSON patch, JSON merge patch, strategic merge patch. */
export { applyJsonPatch, maxJsonPatchCopyBytes, maxJsonPatchOperations, type JsonPatchOperation } from './json-patch.js';
export { applyMergePatch } from './merge-patch.js';
export { applyStrategicMergePatch } from './strategic-merge-patch.js';
export { goFormat } from './json-values.js';

/**
 * Decoding and patching for built-in kinds, driven by their OpenAPI schemas:
 * unknown fields are an error (Strict), a warning (Warn) or silently dropped
 * (Ignore), as decoding into kube's Go types behaves; strategic merge patches
 * merge lists by the keys the schemas declare.
 */
import {
  applyJsonPatch,
  applyMergePatch,
  applyStrategicMergePatch,
  badRequest,
  StatusError,
  unsupportedMediaType,
  type KubeObject,
  type OpenApiSchema,
} from '@operant/apimachinery';
import { hasBuiltinSchema, resolveBuiltinSchema, schemaRef } from '../openapi/builtin-schemas.js';
import { cannotBeHandledMessage, findUnknownFields, pruneUnknownFields, strictDecodingError, unknownFieldWarning } from '../openapi/unknown-fields.js';
import { parsePatchBody } from '../http/patch-body.js';
import { findTypeError } from '../openapi/type-check.js';
import { checkStrategicPatchResult } from './strategic-patch-result.js';
import { canonicalizeQuantities } from '../openapi/quantities.js';
import { encodeZerosAsGo } from '../openapi/go-encoding.js';
import type { ObjectDecoder, PatchApplier } from './resource-store.js';
import type { ResourceInfo } from './resource-info.js';

/**
 * The kind's schema, looked up at the first object it decodes, patches or encodes: a start that
 * serves none before it is ready reads no schema (the file of them is some 850 kB).
 */
function kindSchema(info: ResourceInfo): () => OpenApiSchema | undefined {
  let schema: OpenApiSchema | undefined | null = null;
  return () => {
    if (schema === null) schema = info.definition && hasBuiltinSchema(info.definition) ? { $ref: schemaRef(info.definition) } : undefined;
    return schema;
  };
}

export function schemaDecoder(info: ResourceInfo): ObjectDecoder {
  const schemaOf = kindSchema(info);
  return (obj, validation, source = 'body') => {
    const schema = schemaOf();
    if (!schema) return { object: obj, warnings: [] };
    // A value of the wrong type fails decoding into the Go type whatever the field validation.
    const typeError = findTypeError(obj, schema, resolveBuiltinSchema, info.kind);
    if (typeError) throw badRequest(source === 'patch' ? typeError : cannotBeHandledMessage(info.kind, info.version, typeError));
    canonicalizeQuantities(obj, schema, resolveBuiltinSchema);
    if (validation === 'Strict') {
      const unknown = findUnknownFields(obj, schema, resolveBuiltinSchema);
      if (unknown.length) {
        // kube's patch handler reports the bare strict decoding error; create and update prefix it.
        const detail = strictDecodingError(unknown);
        throw badRequest(source === 'patch' ? detail : cannotBeHandledMessage(info.kind, info.version, detail));
      }
      return { object: obj, warnings: [] };
    }
    const pruned = pruneUnknownFields(obj, schema, resolveBuiltinSchema);
    return { object: obj, warnings: validation === 'Warn' ? pruned.map(unknownFieldWarning) : [] };
  };
}

/** Writes zero values as Go's encoding of the kind does: some fields added, empty omitempty ones dropped (see go-encoding.ts). */
export function schemaEncoder(info: ResourceInfo): (obj: KubeObject, stored?: KubeObject) => void {
  const schemaOf = kindSchema(info);
  return (obj, stored) => {
    const schema = schemaOf();
    if (schema) encodeZerosAsGo(obj, schema, resolveBuiltinSchema, stored);
  };
}

/** The patch content types kube accepts for built-in kinds (the registry serves apply itself). */
export const builtinPatchTypes = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];

export function schemaPatcher(info: ResourceInfo): PatchApplier {
  const schemaOf = kindSchema(info);
  return (current, patchType, body) => {
    const schema = schemaOf();
    switch (patchType) {
      case 'application/json-patch+json':
        return applyJsonPatch(current, parsePatchBody(body, patchType)) as KubeObject;
      case 'application/merge-patch+json':
        return applyMergePatch(current, parsePatchBody(body, patchType)) as KubeObject;
      case 'application/strategic-merge-patch+json': {
        if (!schema) throw unsupportedMediaType(patchType, builtinPatchTypes.filter((t) => !t.includes('strategic')));
        const patch = parsePatchBody(body, patchType);
        let patched: KubeObject;
        try {
          patched = applyStrategicMergePatch(current, patch, schema, resolveBuiltinSchema) as KubeObject;
        } catch (e) {
          // kube passes these patch errors through unconverted, as a 500 (`expected a []interface {},
          // but received a string`, `map: ... does not contain declared merge key: name`); they are
          // the client's mistakes, so we answer 400 with kube's text.
          if (e instanceof StatusError && e.code === 500 && e.reason === undefined) throw badRequest(e.message);
          throw e;
        }
        checkStrategicPatchResult(patched, patch, schema, info.kind);
        return patched;
      }
      default:
        throw unsupportedMediaType(patchType, builtinPatchTypes);
    }
  };
}

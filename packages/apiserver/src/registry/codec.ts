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
import type { FieldValidation } from './options.js';
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
  return (obj, validation, source = 'body', stored) => {
    const schema = schemaOf();
    if (!schema) return { object: obj, warnings: [] };
    if (stored) return decodeChangedFields(obj, stored, (changed) => decodeWithSchema(changed, validation, source, schema));
    return decodeWithSchema(obj, validation, source, schema);
  };

  function decodeWithSchema(obj: KubeObject, validation: FieldValidation, source: 'body' | 'patch', schema: OpenApiSchema): { object: KubeObject; warnings: string[] } {
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
  }
}

/**
 * Decodes only the top-level fields of `obj` that differ from the stored
 * object's: a field equal to the stored one, and holding no null, decodes to
 * itself (the stored value was type-checked, its quantities made canonical and
 * its unknown fields pruned when it was written, and only a null would decode
 * to something else), so it is not walked again. A status write sends the
 * spec it read back; an update or patch usually changes one part of many.
 * The fields keep their order.
 */
function decodeChangedFields(
  obj: KubeObject,
  stored: KubeObject,
  decode: (changed: KubeObject) => { object: KubeObject; warnings: string[] },
): { object: KubeObject; warnings: string[] } {
  const record = obj as Record<string, unknown>;
  const kept = stored as Record<string, unknown>;
  const keys = Object.keys(record);
  const unchanged = new Set<string>();
  for (const key of keys) if (sameAndNullFree(record[key], kept[key])) unchanged.add(key);
  if (unchanged.size === 0) return decode(obj);
  const changed: Record<string, unknown> = {};
  for (const key of keys) if (!unchanged.has(key)) changed[key] = record[key];
  const decoded = decode(changed as KubeObject);
  const result = decoded.object as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    if (unchanged.has(key)) out[key] = record[key];
    else if (Object.hasOwn(result, key)) out[key] = result[key];
  }
  for (const key of Object.keys(result)) if (!Object.hasOwn(out, key)) out[key] = result[key];
  return { object: out as KubeObject, warnings: decoded.warnings };
}

/** JSON equality of two values, false as soon as either holds a null. */
function sameAndNullFree(a: unknown, b: unknown): boolean {
  if (a === null || b === null) return false;
  if (typeof a !== 'object' || typeof b !== 'object' || a === undefined || b === undefined) return a === b && a !== undefined;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameAndNullFree(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  let count = 0;
  for (const key in ao) {
    if (!Object.hasOwn(ao, key) || ao[key] === undefined) continue;
    count++;
    if (!Object.hasOwn(bo, key) || !sameAndNullFree(ao[key], bo[key])) return false;
  }
  for (const key in bo) if (Object.hasOwn(bo, key) && bo[key] !== undefined) count--;
  return count === 0;
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

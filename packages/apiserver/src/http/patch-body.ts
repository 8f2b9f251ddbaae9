/**
 * Reading PATCH bodies with kube's error texts. kube's patch handler (with the
 * default fieldValidation Warn, or Strict) unmarshals a JSON patch into
 * `[]handlers.jsonPatchOp` and a merge patch into a map, prefixing failures with
 * `error decoding patch: `; a strategic merge patch's failures come bare.
 */
import { StatusError, badRequest, invalid, type FieldError } from '@operant/apimachinery';
import { firstNonFiniteLiteral, jsonDepthExceeds, maxBodyNestingDepth, parseJsonLikeGo } from './go-json.js';
import { parseYaml } from './lazy-yaml.js';
import { duplicateFieldsOf, tagDuplicateFields } from './duplicate-fields.js';

const jsonPatchType = 'application/json-patch+json';
const strategicType = 'application/strategic-merge-patch+json';

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

/** Parses the body of a JSON, merge or strategic merge patch; a 400 in kube's words when it cannot be one. */
export function parsePatchBody(body: Buffer, patchType: string): unknown {
  const prefix = patchType === strategicType ? '' : 'error decoding patch: ';
  const parsed = parseJsonLikeGo(body, maxBodyNestingDepth);
  if ('syntax' in parsed) throw badRequest(`${prefix}${parsed.syntax}`);
  const { value, text } = parsed;
  if (parsed.nonFinite) {
    throw badRequest(`${prefix}json: cannot unmarshal number ${firstNonFiniteLiteral(text) ?? 'Inf'} into Go value of type float64`);
  }
  if (patchType === jsonPatchType) {
    if (value === null) return [];
    if (!Array.isArray(value)) throw badRequest(`${prefix}json: cannot unmarshal ${jsonKind(value)} into Go value of type []handlers.jsonPatchOp`);
    for (const op of value) {
      if (op === null) continue;
      if (typeof op !== 'object' || Array.isArray(op)) throw badRequest(`${prefix}json: cannot unmarshal ${jsonKind(op)} into Go value of type handlers.jsonPatchOp`);
      for (const field of ['op', 'path', 'from']) {
        const v = (op as Record<string, unknown>)[field];
        if (v !== undefined && v !== null && typeof v !== 'string') {
          throw badRequest(`${prefix}json: cannot unmarshal ${jsonKind(v)} into Go struct field jsonPatchOp.${field} of type string`);
        }
      }
    }
    return value;
  }
  if (value !== null && (typeof value !== 'object' || Array.isArray(value))) {
    throw badRequest(`${prefix}json: cannot unmarshal ${jsonKind(value)} into Go value of type map[string]interface {}`);
  }
  return value;
}

/** The content type of server-side apply. */
export const applyPatchType = 'application/apply-patch+yaml';

/**
 * kube's ValidatePatchOptions for the patch type: apply needs a fieldManager,
 * other patches may not ask for `force` (422 on PatchOptions, in kube's words).
 */
export function validatePatchOptions(patchType: string, opts: { fieldManager?: string; force?: boolean }): void {
  const errs: FieldError[] = [];
  if (patchType === applyPatchType) {
    if (!opts.fieldManager) errs.push({ type: 'FieldValueRequired', field: 'fieldManager', hasValue: false, detail: 'is required for apply patch' });
  } else if (opts.force !== undefined) {
    errs.push({ type: 'FieldValueForbidden', field: 'force', hasValue: false, detail: 'may not be specified for non-apply patch' });
  }
  if (errs.length) throw invalid('meta.k8s.io', 'PatchOptions', '', errs);
}

/**
 * The applied configuration of an apply request: YAML or JSON (YAML's subset),
 * one object. kube's yaml.Unmarshal errors come back prefixed with `error decoding patch: `.
 */
export function parseApplyPatch(body: Buffer, opts: { fieldManager?: string; force?: boolean }): Record<string, unknown> {
  validatePatchOptions(applyPatchType, opts);
  const text = body.toString('utf8');
  let value: unknown = jsonObjectOrUndefined(body, text);
  if (value !== undefined) return value as Record<string, unknown>;
  try {
    value = parseYaml(text, { version: '1.1', maxAliasCount: 100 }) as unknown;
  } catch (e) {
    if (e instanceof StatusError) throw e;
    throw badRequest(`error decoding patch: error converting YAML to JSON: ${(e as Error).message.split('\n')[0]}`);
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest(`error decoding patch: json: cannot unmarshal ${jsonKind(value)} into Go value of type map[string]interface {}`);
  }
  if (jsonDepthExceeds(value, maxBodyNestingDepth)) throw badRequest('error decoding patch: the patch is nested too deeply');
  return value as Record<string, unknown>;
}

/**
 * A configuration sent as JSON (what clients send; JSON is YAML's subset)
 * parsed as JSON, which costs a fraction of the YAML parser; undefined for
 * anything else, and for JSON naming a field twice, which the YAML parser
 * refuses as it always did.
 */
function jsonObjectOrUndefined(body: Buffer, text: string): unknown {
  if (!/^\s*\{/.test(text)) return undefined;
  const parsed = parseJsonLikeGo(body, maxBodyNestingDepth, text);
  if ('syntax' in parsed) return undefined;
  const { value } = parsed;
  if (value === null || typeof value !== 'object' || Array.isArray(value) || parsed.nonFinite) return undefined;
  tagDuplicateFields(value, text);
  return duplicateFieldsOf(value) ? undefined : value;
}

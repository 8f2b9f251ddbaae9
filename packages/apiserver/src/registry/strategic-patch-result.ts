/**
 * The last step of kube's strategic merge patch (applyPatchToObject in
 * k8s.io/apiserver's handlers/patch.go): the merged map becomes the Go type
 * through runtime.DefaultUnstructuredConverter, and what fails there is
 * answered as a 422 naming the field `patch`, with the patch itself printed as
 * Go prints a map:
 *
 *   ` "" is invalid: patch: Invalid value: "map[metadata:map[labels:x]]": cannot restore map from string`
 *
 * Unknown fields found by the decoder that runs next, with fieldValidation=Strict,
 * are answered the same way, for every patch type ({@link strictPatchError}).
 */
import { StatusError, fieldErrors, invalid, type KubeObject, type OpenApiSchema } from '@operant/apimachinery';
import { goFormat } from '@operant/apimachinery/patch';
import { resolveBuiltinSchema } from '../openapi/builtin-schemas.js';
import { findTypeError } from '../openapi/type-check.js';

/** kube's NewInvalid with an empty GroupKind and name: ` "" is invalid: ...`, and details holding only the cause. */
function invalidPatch(patch: unknown, detail: string): StatusError {
  const err = invalid('', '', '', [fieldErrors.invalid('patch', goFormat(patch ?? {}), detail)]);
  // Go's omitempty drops the empty name and kind from the details.
  delete err.status.details!.name;
  delete err.status.details!.kind;
  return err;
}

/**
 * Throws kube's 422 when `patched` (the merge of `patch`, the decoded request body,
 * into the served object) cannot become the kind's Go type.
 */
export function checkStrategicPatchResult(patched: KubeObject, patch: unknown, schema: OpenApiSchema, kind: string): void {
  const typeError = findTypeError(patched, schema, resolveBuiltinSchema, kind, 'unstructured');
  if (typeError) throw invalidPatch(patch, typeError);
}

/**
 * kube's answer to a patch whose result has unknown fields under
 * fieldValidation=Strict: not the decoder's 400 but a 422 naming `patch`,
 * whose value is the patch as a Go map for a strategic merge patch, and the
 * patched object's JSON for the others (handlers/patch.go, both patchers).
 * Undefined for any other error.
 */
export function strictPatchError(err: unknown, patchType: string, body: Buffer, patched: KubeObject): StatusError | undefined {
  if (!(err instanceof StatusError) || err.code !== 400 || !err.message.startsWith('strict decoding error: ')) return undefined;
  const value = patchType === 'application/strategic-merge-patch+json' ? (JSON.parse(body.toString('utf8')) as unknown) : sortedJson(patched);
  return invalidPatch(value, err.message);
}

/** JSON with object keys sorted, as Go marshals the maps a JSON or merge patch produces. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    return `{${Object.keys(obj)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${sortedJson(obj[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

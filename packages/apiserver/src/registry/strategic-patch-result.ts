/**
 * The last step of kube's strategic merge patch (applyPatchToObject in
 * k8s.io/apiserver's handlers/patch.go): the merged map becomes the Go type
 * through runtime.DefaultUnstructuredConverter, and what fails there is
 * answered as a 422 naming the field `patch`, with the patch itself printed as
 * Go prints a map:
 *
 *   ` "" is invalid: patch: Invalid value: "map[metadata:map[labels:x]]": cannot restore map from string`
 *
 * Unknown fields are left to the decoder that runs next (a 400 with
 * fieldValidation=Strict, where kube sends this 422 with the strict decoding
 * error as its detail: kept as it was, see issue 17's notes).
 */
import { fieldErrors, goFormat, invalid, type KubeObject, type OpenApiSchema, type StatusError } from '@operant/apimachinery';
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

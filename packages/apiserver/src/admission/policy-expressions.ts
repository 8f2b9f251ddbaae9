/**
 * Compile checks of a ValidatingAdmissionPolicy's CEL expressions, as kube
 * makes them when a policy is written (k8s.io/apiserver admission/plugin/cel):
 * the variables a policy sees (`object`, `oldObject`, `request`,
 * `namespaceObject`, `variables`, and `params` and `authorizer` where kube
 * offers them), and the type each kind of expression must have, in kube's
 * words (`compilation failed: ERROR: <input>:1:5: ...`, `must evaluate to
 * bool`). The environment is the one policies are enforced with (policy/cel.ts).
 */
import { compilePolicyExpression, type PolicyDeclarations } from './policy/cel.js';

export type { PolicyDeclarations };

/**
 * The compile error kube reports for `expression`, or undefined when it
 * compiles to one of `returnTypes` (cel-js names: `bool`, `string`, `null`).
 */
export function policyExpressionError(expression: string, declarations: PolicyDeclarations, returnTypes: readonly string[]): string | undefined {
  return compilePolicyExpression(expression, declarations, returnTypes).error;
}

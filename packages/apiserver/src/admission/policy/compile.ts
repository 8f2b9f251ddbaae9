/**
 * A stored ValidatingAdmissionPolicy compiled for enforcement, as kube's
 * compilePolicy does: variables (each sees those before it), matchConditions,
 * validations and their messageExpressions, and auditAnnotations, each with
 * the optional variables kube gives it. An expression that does not compile
 * stays in the policy with its error; evaluating it reports the error, as in kube.
 */
import { isJsonObject, type KubeObject } from '@operant/apimachinery';
import { anyType, compilePolicyExpression, type PolicyDeclarations, type PolicyProgram } from './cel.js';
import { compileMatchResources, type CompiledMatchResources } from './matching.js';

/** One expression, compiled or with kube's compile error. */
export interface CompiledExpression {
  readonly expression: string;
  readonly program?: PolicyProgram;
  readonly compileError?: string;
}

export interface CompiledVariable extends CompiledExpression {
  readonly name: string;
}

export interface CompiledCondition extends CompiledExpression {
  readonly name: string;
}

export interface CompiledValidation extends CompiledExpression {
  readonly message: string;
  /** `Forbidden`, `Invalid`, `RequestEntityTooLarge` or `Unauthorized`; undefined means Invalid. */
  readonly reason?: string;
  readonly messageExpression?: CompiledExpression;
}

export interface CompiledAuditAnnotation extends CompiledExpression {
  readonly key: string;
}

/** What a policy's spec says, ready for matching and evaluation. */
export interface CompiledPolicy {
  readonly name: string;
  /** `Fail` (the default) or `Ignore`. */
  readonly failurePolicy: string;
  /** The paramKind's apiVersion and kind, when the policy takes params. */
  readonly paramKind?: { apiVersion: string; kind: string };
  /** Undefined when the policy has none (kube: "policy contained no match constraints, a required field"). */
  readonly matchConstraints?: CompiledMatchResources;
  readonly variables: readonly CompiledVariable[];
  readonly matchConditions: readonly CompiledCondition[];
  readonly validations: readonly CompiledValidation[];
  readonly auditAnnotations: readonly CompiledAuditAnnotation[];
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const entries = (v: unknown): Array<Record<string, unknown>> => (Array.isArray(v) ? v.map((x) => (isJsonObject(x) ? x : {})) : []);

function compile(expression: string, declarations: PolicyDeclarations, returnTypes: readonly string[] | typeof anyType): CompiledExpression {
  const { program, error } = compilePolicyExpression(expression, declarations, returnTypes);
  return error === undefined ? { expression, program } : { expression, compileError: error };
}

/** Compiles a stored policy (its v1 defaults applied by the registry). */
export function compilePolicy(policy: KubeObject): CompiledPolicy {
  const spec = isJsonObject(policy.spec) ? policy.spec : {};
  const pk = isJsonObject(spec.paramKind) ? spec.paramKind : undefined;
  const hasParams = pk !== undefined;
  // kube: everything sees params (when the policy has a paramKind); messageExpressions see no authorizer.
  const withAuthorizer: PolicyDeclarations = { params: hasParams, authorizer: true };
  const withoutAuthorizer: PolicyDeclarations = { params: hasParams, authorizer: false };
  return {
    name: policy.metadata.name ?? '',
    failurePolicy: str(spec.failurePolicy) || 'Fail',
    paramKind: pk ? { apiVersion: str(pk.apiVersion), kind: str(pk.kind) } : undefined,
    matchConstraints: isJsonObject(spec.matchConstraints) ? compileMatchResources(spec.matchConstraints) : undefined,
    variables: entries(spec.variables).map((v) => ({ name: str(v.name), ...compile(str(v.expression), withAuthorizer, anyType) })),
    matchConditions: entries(spec.matchConditions).map((c) => ({ name: str(c.name), ...compile(str(c.expression), withAuthorizer, ['bool']) })),
    validations: entries(spec.validations).map((v) => ({
      ...compile(str(v.expression), withAuthorizer, ['bool']),
      message: str(v.message),
      reason: typeof v.reason === 'string' ? v.reason : undefined,
      messageExpression: str(v.messageExpression) ? compile(str(v.messageExpression), withoutAuthorizer, ['string']) : undefined,
    })),
    auditAnnotations: entries(spec.auditAnnotations).map((a) => ({ key: str(a.key), ...compile(str(a.valueExpression), withAuthorizer, ['string', 'null']) })),
  };
}

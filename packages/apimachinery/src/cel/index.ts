/**
 * CEL `x-kubernetes-validations` for CRD schemas: compile the rules when a CRD is
 * written (`compileSchemaRules`), evaluate them on each create and update
 * (`evaluateRules`).
 */
export {
  compileSchemaRules,
  CompiledRules,
  perCallCostLimit,
  runtimeCostBudget,
  staticEstimatedCostLimit,
  staticEstimatedCrdCostLimit,
  type CompileOptions,
  type CompileResult,
} from './compile.js';
export { evaluateRules, type EvaluateOptions } from './evaluate.js';
export type { ValidationRule } from './decl-types.js';
// The pieces admission policies (ValidatingAdmissionPolicy) build their own environment from.
export { instrumentEnvironment, libraryEnvironment } from './libraries.js';
export { applyRuntimeOverrides } from './runtime-overrides.js';
export { compileIssueText, runtimeErrorText, type RuntimeErrorText } from './issues.js';
export { CostLimitExceeded, CostMeter, withMeter } from './meter.js';
// Schema-typed declarations, for checking policy expressions against a resource's schema (kube's TypeChecker).
export { DeclBuilder, type CelDecl } from './decl-types.js';
export { undeclaredFieldIssue } from './ast-checks.js';
export { celEqual } from './values.js';

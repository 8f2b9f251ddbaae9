/**
 * Evaluates a compiled policy for one request and one param, as kube's
 * validating.validator does: matchConditions first (a false one skips the
 * policy), then the validations, their messageExpressions with the budget the
 * validations left, and the auditAnnotations. Each step's expressions share a
 * runtime cost budget (kube's 10,000,000; 2,500,000 for matchConditions), each
 * evaluation a per-call limit (1,000,000); `variables` are evaluated lazily,
 * at most once per step, by the first expression that reads them.
 *
 * The outcome is a list of decisions in kube's words: `failed expression: <expr>`,
 * `expression '<expr>' resulted in error: <error>`, `compilation error: ...`,
 * `validation failed due to running out of cost budget, no further validation
 * rules will be run`. Which decision denies, warns or audits is the binding's
 * business (dispatcher.ts).
 */
import { aggregateMessages } from '@operant/apimachinery';
import { cel } from '../../cel-loader.js';
import type { AuthorizerVal } from './cel.js';
import type { CompiledExpression, CompiledPolicy, CompiledVariable } from './compile.js';

/** kube's RuntimeCELCostBudget. */
const runtimeCostBudget = 10_000_000;
/** kube's RuntimeCELCostBudgetMatchConditions. */
const matchConditionsCostBudget = 2_500_000;
/** kube's PerCallLimit. */
const perCallLimit = 1_000_000;
/** kube's MaxEvaluatedMessageExpressionSizeBytes. */
const maxMessageBytes = 5 * 1024;

const outOfBudget = 'validation failed due to running out of cost budget, no further validation rules will be run';

/** What the expressions of a policy see (CEL values: integers as BigInt). */
export interface PolicyInputs {
  object: unknown;
  oldObject: unknown;
  /** The request, with the resource and kind the policy matched as. */
  request: unknown;
  /** The request for matchConditions: kube builds it with the request's own resource. */
  matchRequest: unknown;
  params: unknown;
  namespaceObject: unknown;
  authorizer?: AuthorizerVal;
}

/** kube's PolicyDecision. */
export interface PolicyDecision {
  action: 'admit' | 'deny';
  evaluation: 'admit' | 'deny' | 'error';
  message: string;
  /** The validation's reason; empty for errors (kube then answers Invalid). */
  reason: string;
  /** Seconds the validation's expression took (kube's Elapsed, for the check-duration metric). */
  elapsed: number;
}

/** kube's PolicyAuditAnnotation. */
export interface PolicyAuditAnnotation {
  key: string;
  value: string;
  action: 'publish' | 'error' | 'exclude';
  error: string;
  elapsed: number;
}

export interface ValidateResult {
  decisions: PolicyDecision[];
  auditAnnotations: PolicyAuditAnnotation[];
}

type Evaluated = ({ value: unknown; error?: undefined } | { value?: undefined; error: string }) & { elapsed?: number };

/** One step's evaluation of a list of expressions; `budgetError` when the step ran out of budget. */
interface StepResult {
  results: Array<Evaluated | undefined>;
  remaining: number;
  budgetError?: string;
}

/** The variables of one step: `variables.x` evaluates `x` on first read, once. */
function lazyVariables(variables: readonly CompiledVariable[], activation: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const v of variables) {
    let done: Evaluated | undefined;
    Object.defineProperty(out, v.name, {
      enumerable: true,
      get(): unknown {
        if (!done) {
          if (!v.program) done = { error: `composited variable ${JSON.stringify(v.name)} fails to compile: ${v.compileError ?? ''}` };
          else {
            try {
              done = { value: v.program(activation) };
            } catch (e) {
              done = { error: `composited variable ${JSON.stringify(v.name)} fails to evaluate: ${cel().rules.runtimeErrorText(e).text}` };
            }
          }
        }
        // A CEL evaluation error, so that `||` and `&&` absorb it as CEL does.
        if (done.error !== undefined) throw new (cel().js.EvaluationError)(done.error);
        return done.value;
      },
    });
  }
  return out;
}

/** kube's ConditionEvaluator.ForInput: each expression within the per-call limit, all within `budget`. */
function forInput(
  expressions: ReadonlyArray<CompiledExpression | undefined>,
  base: Record<string, unknown>,
  variables: readonly CompiledVariable[],
  budget: number,
): StepResult {
  const { CostMeter, withMeter, runtimeErrorText } = cel().rules;
  const activation: Record<string, unknown> = { ...base };
  activation.variables = lazyVariables(variables, activation);
  const results: Array<Evaluated | undefined> = [];
  let remaining = budget;
  for (const e of expressions) {
    if (!e) {
      results.push(undefined);
      continue;
    }
    if (!e.program) {
      results.push({ error: `compilation error: ${e.compileError ?? ''}` });
      continue;
    }
    const program = e.program;
    const meter = new CostMeter(perCallLimit);
    let outcome: Evaluated;
    const started = process.hrtime.bigint();
    try {
      outcome = { value: withMeter(meter, () => program(activation)) };
    } catch (err) {
      outcome = { error: `expression '${e.expression}' resulted in error: ${runtimeErrorText(err).text}` };
    }
    outcome.elapsed = Number(process.hrtime.bigint() - started) / 1e9;
    if (meter.used > remaining) return { results: [], remaining: -1, budgetError: outOfBudget };
    remaining -= meter.used;
    results.push(outcome);
  }
  return { results, remaining };
}

const errorDecision = (failurePolicy: string, message: string, elapsed = 0): PolicyDecision => ({
  action: failurePolicy === 'Ignore' ? 'admit' : 'deny',
  evaluation: 'error',
  message,
  reason: '',
  elapsed,
});

/** kube's matchconditions matcher: true to go on, false to skip the policy, or the error under failurePolicy Fail. */
function matchConditions(p: CompiledPolicy, inputs: PolicyInputs): boolean | { error: string } {
  if (p.matchConditions.length === 0) return true;
  const base = { object: inputs.object, oldObject: inputs.oldObject, request: inputs.matchRequest, params: inputs.params, namespaceObject: null, authorizer: inputs.authorizer };
  const step = forInput(p.matchConditions, base, p.variables, matchConditionsCostBudget);
  if (step.budgetError !== undefined) return p.failurePolicy === 'Ignore' ? false : { error: step.budgetError };
  const errors: string[] = [];
  for (const r of step.results) {
    if (!r) continue;
    if (r.error !== undefined) errors.push(r.error);
    else if (r.value === false) return false;
  }
  if (errors.length === 0) return true;
  return p.failurePolicy === 'Ignore' ? false : { error: aggregateMessages(errors) };
}

/** The denial's message: the messageExpression's string, else the message, else `failed expression: ...`. */
function denialMessage(validation: CompiledPolicy['validations'][number], messageResult: Evaluated | undefined): string {
  let message = '';
  if (messageResult && messageResult.error === undefined && typeof messageResult.value === 'string') {
    message = messageResult.value.trim();
    if (Buffer.byteLength(message) > maxMessageBytes || message.includes('\n')) message = '';
  }
  if (message === '' && validation.message.length > 0) message = validation.message.trim();
  if (message === '') message = `failed expression: ${validation.expression.trim()}`;
  return message;
}

/** Evaluates `p` for one request and one param (kube's validator.Validate). */
export function validatePolicy(p: CompiledPolicy, inputs: PolicyInputs): ValidateResult {
  const matched = matchConditions(p, inputs);
  if (matched === false) return { decisions: [], auditAnnotations: [] };
  if (matched !== true) return { decisions: [errorDecision(p.failurePolicy, matched.error)], auditAnnotations: [] };

  const base = { object: inputs.object, oldObject: inputs.oldObject, request: inputs.request, params: inputs.params, namespaceObject: inputs.namespaceObject };
  const validations = forInput(p.validations, { ...base, authorizer: inputs.authorizer }, p.variables, runtimeCostBudget);
  if (validations.budgetError !== undefined) return { decisions: [errorDecision(p.failurePolicy, validations.budgetError)], auditAnnotations: [] };
  const messages = forInput(
    p.validations.map((v) => v.messageExpression),
    base,
    p.variables,
    validations.remaining,
  );
  const decisions = p.validations.map((validation, i): PolicyDecision => {
    const result = validations.results[i]!;
    const elapsed = result.elapsed ?? 0;
    if (result.error !== undefined) return errorDecision(p.failurePolicy, result.error, elapsed);
    if (messages.budgetError !== undefined) return errorDecision(p.failurePolicy, `failed messageExpression: ${messages.budgetError}`, elapsed);
    if (result.value !== true) {
      return { action: 'deny', evaluation: 'deny', reason: validation.reason ?? 'Invalid', message: denialMessage(validation, messages.results[i]), elapsed };
    }
    return { action: 'admit', evaluation: 'admit', message: '', reason: '', elapsed };
  });

  const audits = forInput(p.auditAnnotations, base, p.variables, runtimeCostBudget);
  if (audits.budgetError !== undefined) return { decisions: [errorDecision(p.failurePolicy, audits.budgetError)], auditAnnotations: [] };
  const auditAnnotations = p.auditAnnotations.map((a, i): PolicyAuditAnnotation => {
    const result = audits.results[i]!;
    const elapsed = result.elapsed ?? 0;
    if (result.error !== undefined) return { key: a.key, value: '', action: p.failurePolicy === 'Ignore' ? 'exclude' : 'error', error: result.error, elapsed };
    if (typeof result.value === 'string') {
      const value = result.value.trim();
      return { key: a.key, value, action: value === '' ? 'exclude' : 'publish', error: '', elapsed };
    }
    if (result.value === null) return { key: a.key, value: '', action: 'exclude', error: '', elapsed };
    return {
      key: a.key,
      value: '',
      action: 'error',
      error: `valueExpression '${a.expression}' resulted in unsupported return type: ${typeof result.value}. Return type must be either string or null.`,
      elapsed,
    };
  });
  return { decisions, auditAnnotations };
}

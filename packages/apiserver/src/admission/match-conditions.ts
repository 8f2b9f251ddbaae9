/**
 * Webhook `matchConditions`: CEL expressions over `object`, `oldObject` and
 * `request` that must all be true for a webhook to be called. Compiled once per
 * stored configuration; checked when a configuration is written, with kube's
 * words (`compilation failed: ...`, `must evaluate to bool`), and evaluated per
 * request with kube's error wording (`expression '...' resulted in error: ...`).
 *
 * The `authorizer` and `params` variables of kube are not offered.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { cel } from '../cel-loader.js';
import { aggregateMessages } from '@operant/apimachinery';

/** A condition compiled for evaluation, or the reason it cannot be. */
export interface CompiledCondition {
  readonly name: string;
  readonly expression: string;
  /** Evaluates the condition; absent when compilation failed. */
  readonly evaluate?: (vars: ConditionVariables) => unknown;
  /** kube's compile error detail, e.g. `must evaluate to bool`. */
  readonly compileError?: string;
}

/** The variables a condition sees. */
export interface ConditionVariables {
  object: unknown;
  oldObject: unknown;
  request: unknown;
}

/** How a set of conditions came out for one request. */
export type ConditionOutcome =
  | { kind: 'match' }
  | { kind: 'no-match'; conditionName: string }
  | { kind: 'error'; message: string };

let env: Environment | undefined;

function environment(): Environment {
  if (!env) {
    // Loaded by now: configurations with conditions load CEL before they are validated or compiled.
    env = new (cel().js.Environment)({ enableOptionalTypes: true, homogeneousAggregateLiterals: true })
      .registerVariable('object', 'dyn')
      .registerVariable('oldObject', 'dyn')
      .registerVariable('request', 'dyn');
  }
  return env;
}

interface CelErrorLike {
  summary?: string;
  message: string;
  range?: { start: number; end: number };
  node?: { pos?: number; start?: number };
}

/** The first line of a cel-js error, in cel-go's lower-case style. */
function errorSummary(err: unknown): string {
  const e = err as CelErrorLike | undefined;
  const text = (e?.summary ?? (err instanceof Error ? err.message : String(err))).split('\n')[0] ?? '';
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/** A cel-go style issue: `ERROR: <input>:1:5: message` with the source line and a caret. */
export function compileIssue(source: string, err: unknown): string {
  const e = err as CelErrorLike | undefined;
  const offset = Math.min(Math.max(e?.node?.pos ?? e?.range?.start ?? 0, 0), source.length);
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const column = offset - lineStart;
  const lineText = source.slice(lineStart).split('\n')[0] ?? '';
  return `ERROR: <input>:${line}:${column + 1}: ${errorSummary(err)}\n | ${lineText}\n | ${'.'.repeat(column)}^`;
}

/** Compiles one expression, checking it is a boolean as kube requires of match conditions. */
export function compileCondition(name: string, expression: string): CompiledCondition {
  const cel = environment();
  let checked: ReturnType<Environment['check']>;
  try {
    checked = cel.check(expression);
  } catch (e) {
    return { name, expression, compileError: `compilation failed: ${compileIssue(expression, e)}` };
  }
  if (!checked.valid) return { name, expression, compileError: `compilation failed: ${compileIssue(expression, checked.error)}` };
  if (checked.type !== 'bool') return { name, expression, compileError: 'must evaluate to bool' };
  const program = cel.parse(expression);
  return { name, expression, evaluate: (vars) => program({ object: vars.object, oldObject: vars.oldObject, request: vars.request }) };
}

/**
 * JSON as CEL sees it: integral numbers become CEL ints (kube decodes them as int64),
 * other numbers stay doubles.
 */
export function toCelJson(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(toCelJson);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = toCelJson(v);
    return out;
  }
  return value;
}

/**
 * Evaluates the conditions as kube's matchconditions matcher does: any `false` skips the
 * webhook; otherwise errors decide by failurePolicy (`Fail`: an error, `Ignore`: skip).
 */
export function evaluateConditions(conditions: readonly CompiledCondition[], vars: ConditionVariables, failurePolicy: string): ConditionOutcome {
  const errors: string[] = [];
  for (const c of conditions) {
    let result: unknown;
    if (!c.evaluate) {
      errors.push(`compilation error: ${c.compileError ?? 'unknown'}`);
      continue;
    }
    try {
      result = c.evaluate(vars);
    } catch (e) {
      errors.push(`expression '${c.expression}' resulted in error: ${errorSummary(e)}`);
      continue;
    }
    if (result === false) return { kind: 'no-match', conditionName: c.name };
    if (result !== true) errors.push(`expression '${c.expression}' resulted in error: no such overload`);
  }
  if (errors.length === 0) return { kind: 'match' };
  if (failurePolicy === 'Ignore') return { kind: 'no-match', conditionName: '' };
  return { kind: 'error', message: aggregateMessages(errors) };
}

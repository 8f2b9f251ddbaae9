/**
 * Evaluates compiled `x-kubernetes-validations` rules against an object (and, on
 * update, its old version), as kube-apiserver's CEL validator does: every rule runs
 * at every node where a value is present (each list item, each map value), transition
 * rules only where the old value can be correlated, within a cost budget, and
 * failures become field errors at the node's path with kube's wording.
 */
import { Optional } from '@marcbachmann/cel-js';
import type { FieldError } from '../field-errors.js';
import { fieldErrorMessage } from '../field-errors.js';
import { jsonEqual } from '../object.js';
import { perCallCostLimit, runtimeCostBudget, validatorRoot, type CompiledRule, type CompiledRules, type ValidatorNode } from './compile.js';
import { goQuote } from './go-format.js';
import { runtimeErrorText } from './issues.js';
import { CostMeter, withMeter } from './meter.js';
import { toCelValue, type ConversionMemo } from './values.js';

/** Options of `evaluateRules`. */
export interface EvaluateOptions {
  /** Total cost budget for the object (kube: 10,000,000). */
  readonly costBudget?: number;
  /** Cost limit of a single rule evaluation (kube: 1,000,000). */
  readonly perCallLimit?: number;
  /**
   * Validation ratcheting (kube's CRDValidationRatcheting, on by default): on update, a
   * failing rule that does not use `oldSelf` is not an error where the value is unchanged.
   * Default true.
   */
  readonly ratcheting?: boolean;
  /** Receives the messages of ratcheted errors, which kube returns as warnings. */
  readonly warnings?: string[];
}

const maxMessageExpressionLength = 5 * 1024;

interface Correlation {
  readonly old: unknown;
  readonly value: unknown;
  equal?: boolean;
}

interface Ratchet {
  readonly current?: Correlation;
  readonly parent?: Correlation;
}

function correlationEqual(c: Correlation): boolean {
  if (c.equal === undefined) c.equal = jsonEqual(c.value, c.old);
  return c.equal;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function childPath(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

interface State {
  remaining: number;
  readonly perCallLimit: number;
  readonly ratcheting: boolean;
  readonly warnings?: string[];
  readonly errors: FieldError[];
  readonly memo: ConversionMemo;
}

function ruleText(rule: CompiledRule): string {
  const message = (rule.rule.message ?? '').trim();
  return message !== '' ? message : (rule.rule.rule ?? '').trim();
}

function errorField(path: string): string {
  return path === '' ? '<nil>' : path;
}

function invalid(path: string, value: string, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field: errorField(path), value, hasValue: true, detail };
}

function errorForReason(path: string, value: string, detail: string, reason: string | undefined): FieldError {
  const field = errorField(path);
  switch (reason) {
    case 'FieldValueForbidden':
      return { type: 'FieldValueForbidden', field, hasValue: false, detail };
    case 'FieldValueRequired':
      return { type: 'FieldValueRequired', field, hasValue: false, detail };
    case 'FieldValueDuplicate':
      return { type: 'FieldValueDuplicate', field, value, hasValue: true, detail: '' };
    default:
      return invalid(path, value, detail);
  }
}

const outOfBudget = 'validation failed due to running out of cost budget, no further validation rules will be run';

type Evaluated = { ok: true; value: unknown; cost: number } | { ok: false; error: unknown; cost: number; costLimit: boolean };

function run(program: NonNullable<CompiledRule['program']>, vars: Record<string, unknown>, limit: number): Evaluated {
  const meter = new CostMeter(limit);
  try {
    const value: unknown = withMeter(meter, () => program(vars));
    if (meter.exceeded) return { ok: false, error: undefined, cost: meter.used, costLimit: true };
    return { ok: true, value, cost: meter.used };
  } catch (error) {
    return { ok: false, error, cost: meter.used, costLimit: meter.exceeded };
  }
}

/** Returns false when evaluation must stop (budget exhausted). */
function validateExpressions(s: State, node: ValidatorNode, path: string, obj: unknown, oldObj: unknown, ratchet: Ratchet): boolean {
  if (node.rules.length === 0) return true;
  if (s.remaining <= 0) {
    s.errors.push(invalid(path, node.schemaType, outOfBudget));
    s.remaining = -1;
    return false;
  }
  const decl = node.decl;
  let self: unknown;
  let oldSelf: unknown;
  let converted = false;
  const convert = (): void => {
    if (converted || !decl) return;
    converted = true;
    self = toCelValue(obj, decl, s.memo);
    oldSelf = oldObj === undefined || oldObj === null ? undefined : toCelValue(oldObj, decl, s.memo);
  };
  const shouldRatchet = (): boolean => {
    if (!s.ratcheting) return false;
    if (ratchet.current) return correlationEqual(ratchet.current);
    return ratchet.parent ? correlationEqual(ratchet.parent) : false;
  };
  const hasOld = oldObj !== undefined && oldObj !== null;

  for (const rule of node.rules) {
    if (rule.compileError !== undefined) {
      s.errors.push(invalid(path, node.schemaType, `rule compile error: ${rule.compileError}`));
      continue;
    }
    if (!rule.program) continue;
    if (rule.usesOldSelf && !hasOld && !rule.optionalOldSelf) continue;
    convert();
    const vars: Record<string, unknown> = { self };
    if (rule.optionalOldSelf) vars.oldSelf = hasOld ? Optional.of(oldSelf) : Optional.none();
    else if (hasOld) vars.oldSelf = oldSelf;

    const result = run(rule.program, vars, Math.min(s.perCallLimit, s.remaining));
    if (result.cost > s.remaining) {
      s.errors.push(invalid(path, node.schemaType, outOfBudget));
      s.remaining = -1;
      return false;
    }
    s.remaining -= result.cost;
    if (!result.ok) {
      if (result.costLimit) {
        s.errors.push(
          invalid(
            path,
            node.schemaType,
            `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleText(rule)}`,
          ),
        );
        s.remaining = -1;
        return false;
      }
      const text = runtimeErrorText(result.error);
      if (text.noSuchOverload) {
        s.errors.push(
          invalid(path, node.schemaType, `'${text.text}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText(rule)}`),
        );
      } else {
        s.errors.push(invalid(path, node.schemaType, `${text.text} evaluating rule: ${ruleText(rule)}`));
      }
      continue;
    }
    if (result.value === true) continue;

    const fieldPath = rule.fieldPath ? childPath(path, rule.fieldPath) : path;
    let detail: string | undefined;
    if (rule.messageProgram) {
      const msg = run(rule.messageProgram, vars, Math.min(s.perCallLimit, s.remaining));
      if (msg.cost > s.remaining) {
        addError(s, invalid(fieldPath, node.schemaType, 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run'), rule, shouldRatchet);
        s.remaining = -1;
        return false;
      }
      s.remaining -= msg.cost;
      if (!msg.ok && msg.costLimit) {
        addError(
          s,
          invalid(fieldPath, node.schemaType, `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${goQuote(rule.rule.messageExpression ?? '')}`),
          rule,
          shouldRatchet,
        );
        s.remaining = -1;
        return false;
      }
      if (msg.ok && typeof msg.value === 'string') {
        const trimmed = msg.value.trim();
        if (trimmed !== '' && trimmed.length <= maxMessageExpressionLength && !/\n/.test(trimmed)) detail = trimmed;
      }
    }
    if (detail === undefined) {
      const message = (rule.rule.message ?? '').trim();
      detail = message !== '' ? message : `failed rule: ${ruleText(rule)}`;
    }
    addError(s, errorForReason(fieldPath, node.schemaType, detail, rule.rule.reason), rule, shouldRatchet);
  }
  return true;
}

function addError(s: State, e: FieldError, rule: CompiledRule, shouldRatchet: () => boolean): void {
  if (!rule.usesOldSelf && shouldRatchet()) s.warnings?.push(fieldErrorMessage(e));
  else s.errors.push(e);
}

function keyRatchet(r: Ratchet, key: string, atRoot: boolean): Ratchet {
  if (!r.current) return r;
  if (atRoot && r.parent === undefined && (key === 'apiVersion' || key === 'kind')) return {};
  const { old, value } = r.current;
  let next: Correlation | undefined;
  if (isObject(old) && isObject(value) && Object.prototype.hasOwnProperty.call(old, key) && Object.prototype.hasOwnProperty.call(value, key)) {
    next = { old: old[key], value: value[key] };
  }
  return { current: next, parent: r.current };
}

/** Kube correlates old and new items only in map lists, by their key properties. */
function mapListIndex(node: ValidatorNode, oldList: unknown): Map<string, unknown> | undefined {
  if (node.listType !== 'map' || node.listMapKeys.length === 0 || !Array.isArray(oldList)) return undefined;
  const index = new Map<string, unknown>();
  for (const item of oldList) {
    const key = mapListKey(node, item);
    if (key !== undefined && !index.has(key)) index.set(key, item);
  }
  return index;
}

function mapListKey(node: ValidatorNode, item: unknown): string | undefined {
  if (!isObject(item)) return undefined;
  return JSON.stringify(node.listMapKeys.map((k) => item[k] ?? null));
}

function validate(s: State, node: ValidatorNode, path: string, obj: unknown, oldObj: unknown, ratchet: Ratchet, atRoot: boolean): boolean {
  if (obj === null || obj === undefined) return true;
  if (!validateExpressions(s, node, path, obj, oldObj, ratchet)) return false;
  if (Array.isArray(obj)) {
    if (!node.items) return true;
    const oldIndex = mapListIndex(node, oldObj);
    for (let i = 0; i < obj.length; i++) {
      const key = oldIndex ? mapListKey(node, obj[i]) : undefined;
      const oldItem = key === undefined ? undefined : oldIndex?.get(key);
      const itemRatchet: Ratchet = ratchet.current
        ? { current: oldItem === undefined ? undefined : { old: oldItem, value: obj[i] }, parent: ratchet.current }
        : ratchet;
      if (!validate(s, node.items, `${path}[${i}]`, obj[i], oldItem, itemRatchet, false)) return false;
    }
    return true;
  }
  if (isObject(obj)) {
    const old = isObject(oldObj) ? oldObj : undefined;
    if (node.additionalProperties) {
      for (const [k, v] of Object.entries(obj)) {
        const oldV = old && Object.prototype.hasOwnProperty.call(old, k) ? old[k] : undefined;
        if (!validate(s, node.additionalProperties, `${path}[${k}]`, v, oldV, keyRatchet(ratchet, k, atRoot), false)) return false;
      }
    }
    if (node.properties) {
      for (const [k, v] of Object.entries(obj)) {
        const sub = node.properties.get(k);
        if (!sub) continue;
        const oldV = old && Object.prototype.hasOwnProperty.call(old, k) ? old[k] : undefined;
        if (!validate(s, sub, childPath(path, k), v, oldV, keyRatchet(ratchet, k, atRoot), false)) return false;
      }
    }
  }
  return true;
}

/**
 * Runs the compiled rules over `obj` (a decoded JSON object). Pass `oldObj` on update
 * (transition rules using `oldSelf` run only then, where the old value correlates: same
 * property, same map key, same map-list key) and `undefined` on create. `basePath` is
 * the path of `obj` (`''` for a resource root, whose own errors kube reports at `<nil>`).
 * Returns the errors in kube's wording; stops when the cost budget runs out.
 */
export function evaluateRules(compiled: CompiledRules, obj: unknown, oldObj: unknown | undefined, basePath: string, options: EvaluateOptions = {}): FieldError[] {
  const root = validatorRoot(compiled);
  if (!root) return [];
  const s: State = {
    remaining: options.costBudget ?? runtimeCostBudget,
    perCallLimit: options.perCallLimit ?? perCallCostLimit,
    ratcheting: options.ratcheting ?? true,
    warnings: options.warnings,
    errors: [],
    memo: new WeakMap(),
  };
  const ratchet: Ratchet = oldObj === undefined || oldObj === null ? {} : { current: { old: oldObj, value: obj } };
  validate(s, root, basePath, obj, oldObj, ratchet, true);
  return s.errors;
}

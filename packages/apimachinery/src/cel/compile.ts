/**
 * Compiles the `x-kubernetes-validations` rules of a structural schema, as
 * kube-apiserver does when a CRD is written: each rule is type-checked with `self`
 * (and `oldSelf`) typed from its schema node, its cost is estimated against the
 * budget, and every problem is reported as a field error at the rule's path
 * (`...properties[spec].x-kubernetes-validations[0].rule: Invalid value: ...:
 * compilation failed: ERROR: <input>:1:5: undefined field 'z'`).
 */
import type { Environment, ParseResult } from '@marcbachmann/cel-js';
import { fieldErrors, type FieldError } from '../field-errors.js';
import type { OpenApiSchema } from '../openapi-schema.js';
import { undeclaredFieldIssue, usesVariable } from './ast-checks.js';
import { estimateCost, maxCost } from './cost.js';
import { DeclBuilder, type CelDecl, type ValidationRule } from './decl-types.js';
import { escapeCelName } from './escaping.js';
import { costFactorText, goValidationRule } from './go-format.js';
import { compileIssueText } from './issues.js';
import { instrumentEnvironment, libraryEnvironment } from './libraries.js';
import { applyRuntimeOverrides } from './runtime-overrides.js';
import { ruleEntryErrors } from './rule-entries.js';
import { normalizeRuleFieldPath } from './rule-field-path.js';
import { celEqual } from './values.js';

/** Cost limit of one rule evaluation (kube's `PerCallLimit`). */
export const perCallCostLimit = 1_000_000;
/** Cost budget of all rule evaluations for one object (kube's `RuntimeCELCostBudget`). */
export const runtimeCostBudget = 10_000_000;
/** Largest estimated cost of one rule times its cardinality (kube's `StaticEstimatedCostLimit`). */
export const staticEstimatedCostLimit = 10_000_000;
/** Largest estimated cost of all rules of a schema (kube's `StaticEstimatedCRDCostLimit`). */
export const staticEstimatedCrdCostLimit = 100_000_000;

/** A checked expression, callable with its variables. */
export type Program = (vars: Record<string, unknown>) => unknown;

/** A rule as compiled for evaluation. */
export interface CompiledRule {
  readonly rule: ValidationRule;
  readonly program?: Program;
  readonly compileError?: string;
  readonly usesOldSelf: boolean;
  readonly optionalOldSelf: boolean;
  readonly messageProgram?: Program;
  /** The rule's `fieldPath` as a field path suffix (`spec.replicas`). */
  readonly fieldPath?: string;
}

/** The rules of one schema node and of the nodes below it. */
export interface ValidatorNode {
  readonly decl: CelDecl | undefined;
  /** The node's `type` (`object`, `integer`, ... or `''`), the value kube's errors show. */
  readonly schemaType: string;
  readonly rules: readonly CompiledRule[];
  readonly properties?: ReadonlyMap<string, ValidatorNode>;
  readonly additionalProperties?: ValidatorNode;
  readonly items?: ValidatorNode;
  readonly listType: 'atomic' | 'set' | 'map';
  readonly listMapKeys: readonly string[];
}

const roots = new WeakMap<CompiledRules, ValidatorNode | undefined>();

/** The compiled validation rules of one schema, ready for `evaluateRules`. */
export class CompiledRules {
  /** Number of rules (including ones that failed to compile). */
  readonly ruleCount: number;

  /** @internal Use `compileSchemaRules`. */
  constructor(root: ValidatorNode | undefined, ruleCount: number) {
    roots.set(this, root);
    this.ruleCount = ruleCount;
  }

  /** Whether there is nothing to evaluate. */
  get empty(): boolean {
    return this.ruleCount === 0;
  }
}

/** @internal The validator tree behind a `CompiledRules`. */
export function validatorRoot(rules: CompiledRules): ValidatorNode | undefined {
  return roots.get(rules);
}

/** Options of `compileSchemaRules`. */
export interface CompileOptions {
  /** Whether the schema is the root of a resource (`apiVersion`, `kind`, `metadata.name` are then typed). Default true. */
  readonly isResourceRoot?: boolean;
}

/** The result of `compileSchemaRules`. */
export interface CompileResult {
  readonly rules: CompiledRules;
  /** Problems with the rules, as kube reports them when the CRD is written. */
  readonly errors: FieldError[];
}

/** The node's rules, with fields of the wrong JSON type dropped (the CRD's own schema checks report those). */
function rulesOf(s: OpenApiSchema): ValidationRule[] {
  const raw: unknown = s['x-kubernetes-validations'];
  if (!Array.isArray(raw)) return [];
  return raw.map((entry: unknown): ValidationRule => {
    const e = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : {};
    const str = (k: string): string | undefined => (typeof e[k] === 'string' ? (e[k] as string) : undefined);
    return {
      rule: str('rule') ?? '',
      message: str('message'),
      messageExpression: str('messageExpression'),
      reason: str('reason'),
      fieldPath: str('fieldPath'),
      optionalOldSelf: typeof e.optionalOldSelf === 'boolean' ? e.optionalOldSelf : undefined,
    };
  });
}

function hasValidations(s: OpenApiSchema | undefined): boolean {
  if (!s) return false;
  if (rulesOf(s).length > 0) return true;
  if (hasValidations(s.items)) return true;
  if (typeof s.additionalProperties === 'object' && hasValidations(s.additionalProperties)) return true;
  return Object.values(s.properties ?? {}).some(hasValidations);
}

interface PlanNode {
  schema: OpenApiSchema;
  decl: CelDecl | undefined;
  path: string;
  cardinality: number;
  forbidOldSelf?: string;
  properties: Map<string, PlanNode>;
  additionalProperties?: PlanNode;
  items?: PlanNode;
}

function mulCardinality(a: number, b: number): number {
  const r = a * b;
  return r >= maxCost ? maxCost : r;
}

function plan(
  schema: OpenApiSchema,
  decl: CelDecl | undefined,
  path: string,
  cardinality: number,
  forbidOldSelf: string | undefined,
  builder: DeclBuilder,
): PlanNode {
  const node: PlanNode = { schema, decl, path, cardinality, forbidOldSelf, properties: new Map() };
  if (schema.items && hasValidations(schema.items)) {
    const itemDecl = decl?.kind === 'list' ? decl.item : undefined;
    const max = decl?.kind === 'list' ? decl.maxElements : maxCost;
    const forbid = forbidOldSelf ?? (schema['x-kubernetes-list-type'] === 'map' ? undefined : path);
    node.items = plan(schema.items, itemDecl, `${path}.items`, mulCardinality(cardinality, max), forbid, builder);
  }
  const ap = schema.additionalProperties;
  if (typeof ap === 'object' && hasValidations(ap)) {
    const valueDecl = decl?.kind === 'map' ? decl.value : undefined;
    const max = decl?.kind === 'map' ? decl.maxElements : maxCost;
    node.additionalProperties = plan(ap, valueDecl, `${path}.additionalProperties`, mulCardinality(cardinality, max), forbidOldSelf, builder);
  }
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    if (!hasValidations(prop)) continue;
    let propDecl: CelDecl | undefined;
    if (escapeCelName(name) !== undefined) {
      propDecl = decl?.kind === 'object' ? decl.fields.get(name)?.decl : undefined;
    } else {
      propDecl = builder.build(prop, prop['x-kubernetes-embedded-resource'] === true, `Object.unescaped`);
    }
    node.properties.set(name, plan(prop, propDecl, `${path}.properties[${name}]`, cardinality, forbidOldSelf, builder));
  }
  return node;
}

interface Compiler {
  crdEnv: Environment;
  declared: ReadonlySet<string>;
  errors: FieldError[];
  costs: Array<{ path: string; cost: number }>;
  ruleCount: number;
}

/** Names of every function the library environment declares (for cel-go's "undeclared reference" wording). */
let declaredFunctionNames: Set<string> | undefined;
function declaredFunctions(): ReadonlySet<string> {
  if (!declaredFunctionNames) {
    declaredFunctionNames = new Set(libraryEnvironment().getDefinitions().functions.map((f) => f.name));
    for (const macro of ['has', 'all', 'exists', 'exists_one', 'map', 'filter', 'bind']) declaredFunctionNames.add(macro);
  }
  return declaredFunctionNames;
}

function invalidRule(path: string, rule: ValidationRule, detail: string): FieldError {
  // The value is a Go struct dump, printed verbatim rather than quoted.
  return { type: 'FieldValueInvalid', field: path, hasValue: false, detail: `${goValidationRule(rule)}: ${detail}` };
}

function costErrorMessage(name: string, cost: number, limit: number): string {
  return (
    `${name} exceeds budget by factor of ${costFactorText(cost / limit)} (try simplifying the rule, or adding maxItems, ` +
    'maxProperties, and maxLength where arrays, maps, and strings are declared)'
  );
}

function nodeEnvironments(c: Compiler, decl: CelDecl): { plain: () => Environment; optional: () => Environment } {
  let plain: Environment | undefined;
  let optional: Environment | undefined;
  return {
    plain: () => {
      if (!plain) {
        plain = c.crdEnv.clone().registerVariable('self', decl.typeName).registerVariable('oldSelf', decl.typeName);
        instrumentEnvironment(plain);
      }
      return plain;
    },
    optional: () => {
      if (!optional) {
        optional = c.crdEnv.clone().registerVariable('self', decl.typeName).registerVariable('oldSelf', `optional<${decl.typeName}>`);
        instrumentEnvironment(optional);
      }
      return optional;
    },
  };
}

type Checked = { program: ParseResult; error?: undefined } | { program?: undefined; error: string };

function checkExpression(env: Environment, source: string, want: string, records: ReadonlyMap<string, CelDecl>, declared: ReadonlySet<string>): Checked & { type?: string } {
  let program: ParseResult;
  try {
    program = env.parse(source);
  } catch (e) {
    return { error: compileIssueText(source, e, declared) };
  }
  const result = program.check();
  if (!result.valid) return { error: compileIssueText(source, result.error, declared) };
  const fieldIssue = undeclaredFieldIssue(source, program.ast, records);
  if (fieldIssue) return { error: fieldIssue };
  if (result.type !== want) return { error: '', type: result.type };
  applyRuntimeOverrides(program.ast);
  return { program };
}

function compileNode(c: Compiler, p: PlanNode, records: ReadonlyMap<string, CelDecl>): { node: ValidatorNode; schemaErrors: number } {
  let schemaErrors = 0;
  let items: ValidatorNode | undefined;
  let additionalProperties: ValidatorNode | undefined;
  const properties = new Map<string, ValidatorNode>();
  if (p.additionalProperties) {
    const r = compileNode(c, p.additionalProperties, records);
    additionalProperties = r.node;
    schemaErrors += r.schemaErrors;
  }
  for (const [name, child] of p.properties) {
    const r = compileNode(c, child, records);
    properties.set(name, r.node);
    schemaErrors += r.schemaErrors;
  }
  if (p.items) {
    const r = compileNode(c, p.items, records);
    items = r.node;
    schemaErrors += r.schemaErrors;
  }

  const ruleDefs = rulesOf(p.schema);
  const entryErrors = ruleEntryErrors(ruleDefs, p.path, p.schema);
  c.errors.push(...entryErrors);
  schemaErrors += entryErrors.length;
  c.ruleCount += ruleDefs.length;

  const rules: CompiledRule[] = [];
  const envs = p.decl ? nodeEnvironments(c, p.decl) : undefined;
  if (ruleDefs.length > 0 && !p.decl) {
    c.errors.push({
      type: 'InternalError',
      field: `${p.path}.x-kubernetes-validations`,
      hasValue: false,
      detail: `rule declared on schema that does not support validation rules type: '${p.schema.type ?? ''}' x-kubernetes-preserve-unknown-fields: '${p.schema['x-kubernetes-preserve-unknown-fields'] === true}'`,
    });
  }
  ruleDefs.forEach((rule, i) => {
    const at = `${p.path}.x-kubernetes-validations[${i}]`;
    const source = (rule.rule ?? '').trim();
    const optionalOldSelf = rule.optionalOldSelf === true;
    let fieldPath: string | undefined;
    if (rule.fieldPath !== undefined && rule.fieldPath.trim() !== '') {
      try {
        fieldPath = normalizeRuleFieldPath(rule.fieldPath.trim(), p.schema);
      } catch {
        fieldPath = undefined;
      }
    }
    if (source === '' || !envs) {
      rules.push({ rule, usesOldSelf: false, optionalOldSelf, fieldPath, compileError: envs ? undefined : 'no type information for this schema node' });
      return;
    }
    if (schemaErrors > 0) {
      rules.push({ rule, usesOldSelf: false, optionalOldSelf, fieldPath, compileError: 'rule was not compiled because of schema errors' });
      return;
    }
    const env = optionalOldSelf ? envs.optional() : envs.plain();
    const checked = checkExpression(env, source, 'bool', records, c.declared);
    let compileError: string | undefined;
    let usesOldSelf = false;
    let cost = 0;
    if (checked.program) {
      usesOldSelf = usesVariable(checked.program.ast, 'oldSelf');
      cost = estimateCost(checked.program.ast, p.decl).max;
    } else {
      compileError = checked.error === '' ? 'cel expression must evaluate to a bool' : `compilation failed: ${checked.error}`;
    }
    const expressionCost = cost === 0 ? 0 : mulCardinality(cost, p.cardinality);
    if (expressionCost > staticEstimatedCostLimit) {
      c.errors.push(fieldErrors.forbidden(`${at}.rule`, costErrorMessage('estimated rule cost', expressionCost, staticEstimatedCostLimit)));
    }
    c.costs.push({ path: `${at}.rule`, cost: expressionCost });
    if (compileError !== undefined) c.errors.push(invalidRule(`${at}.rule`, rule, compileError));

    let messageProgram: ParseResult | undefined;
    const msgSource = (rule.messageExpression ?? '').trim();
    if (checked.program && msgSource !== '') {
      const msg = checkExpression(env, msgSource, 'string', records, c.declared);
      if (msg.program) {
        messageProgram = msg.program;
        const msgCost = mulCardinality(estimateCost(msg.program.ast, p.decl).max, p.cardinality);
        if (msgCost > staticEstimatedCostLimit) {
          c.errors.push(fieldErrors.forbidden(`${at}.messageExpression`, costErrorMessage('estimated messageExpression cost', msgCost, staticEstimatedCostLimit)));
        }
        c.costs.push({ path: `${at}.messageExpression`, cost: msgCost });
      } else {
        const detail = msg.error === '' ? 'messageExpression must evaluate to a string' : `messageExpression compilation failed: ${msg.error}`;
        c.errors.push(invalidRule(`${at}.messageExpression`, rule, detail));
      }
    }
    if (checked.program) {
      if (usesOldSelf && p.forbidOldSelf !== undefined) {
        c.errors.push(fieldErrors.invalid(`${at}.rule`, rule.rule, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${p.forbidOldSelf}`));
      } else if (!usesOldSelf && rule.optionalOldSelf !== undefined) {
        c.errors.push(fieldErrors.invalid(`${at}.optionalOldSelf`, rule.optionalOldSelf, 'may not be set if oldSelf is not used in rule'));
      }
    }
    rules.push({ rule, program: checked.program, compileError, usesOldSelf, optionalOldSelf, messageProgram, fieldPath });
  });

  return {
    node: {
      decl: p.decl,
      schemaType: p.schema.type ?? '',
      rules,
      properties: properties.size > 0 ? properties : undefined,
      additionalProperties,
      items,
      listType: p.schema['x-kubernetes-list-type'] ?? 'atomic',
      listMapKeys: p.schema['x-kubernetes-list-map-keys'] ?? [],
    },
    schemaErrors,
  };
}

/**
 * Compiles every `x-kubernetes-validations` rule of `schema` (a structural schema,
 * normally a CRD version's `openAPIV3Schema`). `fieldPath` is where the schema sits in
 * the CRD, e.g. `spec.versions[0].schema.openAPIV3Schema`, and prefixes the errors.
 * Rules that fail to compile are kept (they report `rule compile error` if evaluated).
 */
export function compileSchemaRules(schema: OpenApiSchema, fieldPath: string, options: CompileOptions = {}): CompileResult {
  try {
    return compileRules(schema, fieldPath, options);
  } catch (e) {
    // A schema that is not structural can trip the compiler; report it rather than fail the request.
    return {
      rules: new CompiledRules(undefined, 0),
      errors: [{ type: 'InternalError', field: `${fieldPath}.x-kubernetes-validations`, hasValue: false, detail: `failed to compile rules: ${(e as Error).message}` }],
    };
  }
}

function compileRules(schema: OpenApiSchema, fieldPath: string, options: CompileOptions): CompileResult {
  if (!hasValidations(schema)) return { rules: new CompiledRules(undefined, 0), errors: [] };
  const builder = new DeclBuilder();
  const rootDecl = builder.build(schema, options.isResourceRoot ?? true, 'Object');
  const tree = plan(schema, rootDecl, fieldPath, 1, undefined, builder);

  const crdEnv = libraryEnvironment().clone();
  const records = new Map<string, CelDecl>();
  for (const decl of builder.objects) {
    const fields: Record<string, string> = {};
    for (const f of decl.fields.values()) fields[f.celName] = f.decl.typeName;
    crdEnv.registerType(decl.typeName, { ctor: decl.ctor, fields });
    crdEnv.registerOperator(`${decl.typeName} == ${decl.typeName}`, (a: unknown, b: unknown) => celEqual(a, b));
    records.set(decl.typeName, decl);
  }
  const c: Compiler = { crdEnv, declared: declaredFunctions(), errors: [], costs: [], ruleCount: 0 };
  const { node } = compileNode(c, tree, records);

  const total = c.costs.reduce((sum, x) => (sum + x.cost >= maxCost ? maxCost : sum + x.cost), 0);
  if (total > staticEstimatedCrdCostLimit) {
    const mostExpensive = [...c.costs].sort((a, b) => b.cost - a.cost).slice(0, 4);
    for (const e of mostExpensive) {
      c.errors.push(
        fieldErrors.forbidden(e.path, 'contributed to estimated rule & messageExpression cost total exceeding cost limit for entire OpenAPIv3 schema'),
      );
    }
    c.errors.push(
      fieldErrors.forbidden(
        fieldPath,
        costErrorMessage('x-kubernetes-validations estimated rule & messageExpression cost total for entire OpenAPIv3 schema', total, staticEstimatedCrdCostLimit),
      ),
    );
  }
  return { rules: new CompiledRules(node, c.ruleCount), errors: c.errors };
}

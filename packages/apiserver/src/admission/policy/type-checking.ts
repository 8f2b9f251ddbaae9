/**
 * kube's ValidatingAdmissionPolicy type checker (k8s.io/apiserver
 * admission/plugin/policy/validating/typechecking.go): each validation's
 * `expression` and `messageExpression` is compiled once per kind the policy's
 * matchConstraints name, with `object` and `oldObject` typed from that kind's
 * schema (and `params` from the paramKind's), so that a misspelt field or a
 * wrong type shows before any request does. The result is the policy's
 * `status.typeChecking.expressionWarnings`; it never changes what the policy
 * enforces.
 *
 * As in kube: rules with a wildcard group or version are skipped, as are
 * wildcard resources and subresources; at most 10 kinds are checked; a kind
 * whose schema is unknown is skipped; `params` is declared only when the
 * paramKind's schema is known; `request` and `namespaceObject` have kube's
 * hand-made types (BuildRequestType, BuildNamespaceType).
 */
import { isJsonObject, type KubeObject, type OpenApiSchema } from '@operant/apimachinery';
import type { Environment } from '@marcbachmann/cel-js';
import type { CelDecl } from '@operant/apimachinery/cel';
import { cel } from '../../cel-loader.js';
import { registerAuthorizer } from './cel.js';

/** A group/version/kind. */
export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** What the checker needs to know of the served API. */
export interface TypeCheckResolver {
  /** The kinds served at a group/version/resource (none when it is not served). */
  kindsFor(group: string, version: string, resource: string): GroupVersionKind[];
  /** The kind's schema with every `$ref` resolved, or undefined when there is none. */
  schemaFor(gvk: GroupVersionKind): OpenApiSchema | undefined;
}

/** One entry of `status.typeChecking.expressionWarnings`. */
export interface ExpressionWarning {
  fieldRef: string;
  warning: string;
}

/** kube's maxTypesToCheck. */
const maxTypesToCheck = 10;

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Go's `schema.GroupVersionKind.String()`: `apps/v1, Kind=Deployment`, `/v1, Kind=Pod`. */
export function gvkString(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}, Kind=${gvk.kind}`;
}

/** kube's typesToCheck: the kinds the policy's resource rules name, sorted by group, version and kind. */
export function typesToCheck(policy: KubeObject, resolver: TypeCheckResolver): GroupVersionKind[] {
  const spec = isJsonObject(policy.spec) ? policy.spec : {};
  const constraints = isJsonObject(spec.matchConstraints) ? spec.matchConstraints : {};
  const rules = Array.isArray(constraints.resourceRules) ? constraints.resourceRules.filter(isJsonObject) : [];
  const found = new Map<string, GroupVersionKind>();
  const sorted = (): GroupVersionKind[] =>
    [...found.values()].sort((a, b) => byCodeUnit(a.group, b.group) || byCodeUnit(a.version, b.version) || byCodeUnit(a.kind, b.kind));
  for (const rule of rules) {
    const groups = strings(rule.apiGroups);
    const versions = strings(rule.apiVersions);
    // A wildcard group or version gives the rule up; wildcard resources and subresources are skipped.
    if (groups.length === 0 || groups.some((g) => g.includes('*'))) continue;
    if (versions.length === 0 || versions.some((v) => v.includes('*'))) continue;
    const resources = strings(rule.resources).filter((r) => !/[*/]/.test(r));
    if (resources.length === 0) continue;
    let count = 0;
    for (const group of [...groups].sort(byCodeUnit)) {
      for (const version of [...versions].sort(byCodeUnit)) {
        for (const resource of [...resources].sort(byCodeUnit)) {
          for (const gvk of resolver.kindsFor(group, version, resource)) {
            found.set(`${gvk.group}/${gvk.version}/${gvk.kind}`, gvk);
            // kube counts per rule and stops at the limit with what it has.
            if (++count === maxTypesToCheck) return sorted();
          }
        }
      }
    }
  }
  return sorted();
}

/** The paramKind's group/version/kind, or undefined (none, or an apiVersion that does not parse). */
function paramsGvk(policy: KubeObject): GroupVersionKind | undefined {
  const spec = isJsonObject(policy.spec) ? policy.spec : {};
  const pk = isJsonObject(spec.paramKind) ? spec.paramKind : undefined;
  if (!pk) return undefined;
  const apiVersion = typeof pk.apiVersion === 'string' ? pk.apiVersion : '';
  const kind = typeof pk.kind === 'string' ? pk.kind : '';
  const parts = apiVersion.split('/');
  if (parts.length > 2 || (parts.length === 2 && parts[0] === '')) return undefined;
  return parts.length === 2 ? { group: parts[0]!, version: parts[1]!, kind } : { group: '', version: parts[0]!, kind };
}

/** A schema typed for CEL: its record types, and the type name of its root. */
interface TypedSchema {
  typeName: string;
  records: CelDecl[];
}

let typeNames = 0;

const str: OpenApiSchema = { type: 'string' };
const stringList: OpenApiSchema = { type: 'array', items: str };
/** What CEL sees as `dyn` (kube declares `request.options` so). */
const dyn: OpenApiSchema = { 'x-kubernetes-int-or-string': true };
const objectOf = (properties: Record<string, OpenApiSchema>): OpenApiSchema => ({ type: 'object', properties });
const gvk = objectOf({ group: str, version: str, kind: str });
const gvr = objectOf({ group: str, version: str, resource: str });

/** kube's BuildRequestType: the AdmissionRequest fields an expression may read as `request`. */
const requestSchema = objectOf({
  kind: gvk,
  resource: gvr,
  subResource: str,
  requestKind: gvk,
  requestResource: gvr,
  requestSubResource: str,
  name: str,
  namespace: str,
  operation: str,
  userInfo: objectOf({ username: str, uid: str, groups: stringList, extra: { type: 'object', additionalProperties: stringList } }),
  dryRun: { type: 'boolean' },
  options: dyn,
});

const time: OpenApiSchema = { type: 'string', format: 'date-time' };
/** kube's BuildNamespaceType: the Namespace fields `namespaceObject` has (its metadata's uid is spelt `UID` there). */
const namespaceSchema = objectOf({
  metadata: objectOf({
    name: str,
    generateName: str,
    namespace: str,
    labels: { type: 'object', additionalProperties: str },
    annotations: { type: 'object', additionalProperties: str },
    UID: str,
    creationTimestamp: time,
    deletionGracePeriodSeconds: { type: 'integer' },
    deletionTimestamp: time,
    generation: { type: 'integer' },
    resourceVersion: str,
    finalizers: stringList,
  }),
  spec: objectOf({ finalizers: stringList }),
  status: objectOf({ conditions: { type: 'array', items: objectOf({ status: str, type: str, lastTransitionTime: time, message: str, reason: str }) }, phase: str }),
});

/** The types of `request` and `namespaceObject`, built once per check. */
function requestTypes(): { request: TypedSchema; namespace: TypedSchema } {
  const { DeclBuilder } = cel().rules;
  const builder = new DeclBuilder();
  const request = builder.build(requestSchema, false, 'kubernetes.AdmissionRequest')!;
  const namespace = builder.build(namespaceSchema, false, 'kubernetes.Namespace')!;
  return { request: { typeName: request.typeName, records: builder.objects }, namespace: { typeName: namespace.typeName, records: [] } };
}

function typeSchema(schema: OpenApiSchema | undefined, kind: string): TypedSchema | undefined {
  if (!schema) return undefined;
  const { DeclBuilder } = cel().rules;
  const builder = new DeclBuilder();
  // kube names each kind's type uniquely (Kind + a number), so that two kinds' types never clash.
  const decl = builder.build(schema, true, `${kind}${++typeNames}`);
  return decl ? { typeName: decl.typeName, records: builder.objects } : undefined;
}

function registerRecords(env: Environment, records: readonly CelDecl[]): void {
  const { celEqual } = cel().rules;
  for (const decl of records) {
    if (decl.kind !== 'object') continue;
    const fields: Record<string, string> = {};
    for (const f of decl.fields.values()) fields[f.celName] = f.decl.typeName;
    env.registerType(decl.typeName, { ctor: decl.ctor, fields });
    env.registerOperator(`${decl.typeName} == ${decl.typeName}`, (a: unknown, b: unknown) => celEqual(a, b));
  }
}

/** The names every function of an environment is declared under (cel-go words an unknown one differently). */
function declaredFunctions(env: Environment): Set<string> {
  const names = new Set(env.getDefinitions().functions.map((f) => f.name));
  for (const macro of ['has', 'all', 'exists', 'exists_one', 'map', 'filter', 'bind']) names.add(macro);
  return names;
}

/** The checking environment of one kind: everything a policy expression sees, typed where kube types it. */
class KindChecker {
  private readonly base: Environment;
  private readonly records = new Map<string, CelDecl>();
  private readonly declared: Set<string>;
  private env: Environment;
  private variableTypes = 0;

  constructor(object: TypedSchema, params: TypedSchema | undefined, hasParams: boolean, variables: ReadonlyArray<{ name: string; expression: string }>) {
    const { rules } = cel();
    const env = rules.libraryEnvironment().clone();
    const { request, namespace } = requestTypes();
    for (const t of [object, params, request]) {
      if (!t) continue;
      registerRecords(env, t.records);
      for (const r of t.records) this.records.set(r.typeName, r);
    }
    env.registerVariable('object', object.typeName).registerVariable('oldObject', object.typeName);
    env.registerVariable('request', request.typeName).registerVariable('namespaceObject', namespace.typeName);
    if (hasParams && params) env.registerVariable('params', params.typeName);
    registerAuthorizer(env);
    this.base = env;
    this.declared = declaredFunctions(env);
    // Variables, in order, each seeing those before it with the type it compiled to (dyn when it did not).
    const fields: Record<string, string> = {};
    this.env = this.withVariables(fields);
    for (const v of variables) {
      const checked = this.check(v.expression);
      fields[v.name] = checked.issue === undefined ? checked.type : 'dyn';
      this.env = this.withVariables(fields);
    }
  }

  private withVariables(fields: Record<string, string>): Environment {
    const name = `kubernetes.variables${++this.variableTypes}`;
    const ctor = class extends Map<string, unknown> {};
    return this.base.clone().registerType(name, { ctor, fields: { ...fields } }).registerVariable('variables', name);
  }

  /** cel-go's issue text for `source` (undefined when it compiles) and the type it compiles to. */
  check(source: string): { issue?: string; type: string } {
    const { rules } = cel();
    try {
      const parsed = this.env.parse(source);
      const checked = parsed.check();
      if (!checked.valid) return { issue: rules.compileIssueText(source, checked.error, this.declared), type: 'dyn' };
      const fieldIssue = rules.undeclaredFieldIssue(source, parsed.ast, this.records);
      if (fieldIssue !== undefined) return { issue: fieldIssue, type: 'dyn' };
      return { type: checked.type ?? 'dyn' };
    } catch (e) {
      return { issue: rules.compileIssueText(source, e, this.declared), type: 'dyn' };
    }
  }
}

/**
 * kube's TypeChecker.Check: the warnings of a policy's validations
 * (`spec.validations[i].expression` and `.messageExpression`), each naming
 * every kind it fails for (`apps/v1, Kind=Deployment: ERROR: <input>:1:7:
 * undefined field 'replicas'` with the source line and a caret). Needs CEL
 * loaded (loadCel).
 */
export function typeCheckPolicy(policy: KubeObject, resolver: TypeCheckResolver): ExpressionWarning[] {
  const spec = isJsonObject(policy.spec) ? policy.spec : {};
  const validations = Array.isArray(spec.validations) ? spec.validations.filter(isJsonObject) : [];
  const variables = (Array.isArray(spec.variables) ? spec.variables.filter(isJsonObject) : []).map((v) => ({
    name: typeof v.name === 'string' ? v.name : '',
    expression: typeof v.expression === 'string' ? v.expression : '',
  }));
  const pk = paramsGvk(policy);
  const params = pk ? typeSchema(resolver.schemaFor(pk), pk.kind) : undefined;
  const kinds: Array<{ gvk: GroupVersionKind; checker: KindChecker }> = [];
  for (const gvk of typesToCheck(policy, resolver)) {
    const object = typeSchema(resolver.schemaFor(gvk), gvk.kind);
    if (!object) continue;
    kinds.push({ gvk, checker: new KindChecker(object, params, params !== undefined, variables) });
  }
  if (kinds.length === 0) return [];

  const checkAll = (expression: string): string | undefined => {
    const messages: string[] = [];
    for (const { gvk, checker } of kinds) {
      const { issue } = checker.check(expression);
      if (issue !== undefined) messages.push(`${gvkString(gvk)}: ${issue}\n`);
    }
    return messages.length === 0 ? undefined : messages.join('\n');
  };
  const warnings: ExpressionWarning[] = [];
  validations.forEach((v, i) => {
    const expression = typeof v.expression === 'string' ? v.expression : '';
    const w = checkAll(expression);
    if (w !== undefined) warnings.push({ fieldRef: `spec.validations[${i}].expression`, warning: w });
    const messageExpression = typeof v.messageExpression === 'string' ? v.messageExpression : '';
    if (messageExpression === '') return;
    const m = checkAll(messageExpression);
    if (m !== undefined) warnings.push({ fieldRef: `spec.validations[${i}].messageExpression`, warning: m });
  });
  return warnings;
}

/**
 * The CEL environment of ValidatingAdmissionPolicies (k8s.io/apiserver
 * admission/plugin/cel): Kubernetes' CEL libraries (the same as CRD rules'),
 * the variables `object`, `oldObject`, `request`, `namespaceObject` and
 * `variables`, and, where kube declares them, `params` and `authorizer` with
 * kube's authorization library (`authorizer.group('apps').resource('deployments')
 * .namespace('x').check('create').allowed()`, `authorizer.serviceAccount(ns, name)`,
 * `authorizer.path('/healthz')`, `authorizer.requestResource`). One environment
 * serves both jobs: checking expressions when a policy is written, and compiling
 * them for enforcement, so that what is accepted is what runs.
 *
 * Objects are dynamically typed, as kube types them at runtime. Loaded with CEL
 * (cel-loader), never at start-up.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { cel } from '../../cel-loader.js';
import type { Authorizer, RequestAttributes } from '../../auth/rbac/attributes.js';
import type { UserInfo } from '../../auth/authn/user-info.js';
import { compileIssue } from '../match-conditions.js';

/** Which optional variables an expression may use (kube's OptionalVariableDeclarations). */
export interface PolicyDeclarations {
  params: boolean;
  authorizer: boolean;
}

/** kube's `authorizer` value: who asks, and whom to ask. */
export class AuthorizerVal {
  constructor(
    readonly user: UserInfo,
    readonly authz: Authorizer,
    /** `authorizer.requestResource`: a check on the resource of the request under admission. */
    readonly requestResource?: ResourceCheckVal,
  ) {}
}
class GroupCheckVal {
  constructor(
    readonly authorizer: AuthorizerVal,
    readonly group: string,
  ) {}
}
/** A resource check being built (group, resource, then optional subresource, namespace, name). */
export class ResourceCheckVal {
  constructor(
    readonly authorizer: AuthorizerVal,
    readonly group: string,
    readonly resource: string,
    readonly subresource = '',
    readonly namespace = '',
    readonly name = '',
  ) {}
  with(change: Partial<Pick<ResourceCheckVal, 'subresource' | 'namespace' | 'name'>>): ResourceCheckVal {
    const next = { subresource: this.subresource, namespace: this.namespace, name: this.name, ...change };
    return new ResourceCheckVal(this.authorizer, this.group, this.resource, next.subresource, next.namespace, next.name);
  }
}
class PathCheckVal {
  constructor(
    readonly authorizer: AuthorizerVal,
    readonly path: string,
  ) {}
}
class DecisionVal {
  constructor(
    readonly allowed: boolean,
    readonly reason: string,
  ) {}
}

/** kube's ServiceAccountInfo.UserInfo(): the account's user name and its two groups. */
function serviceAccountUser(namespace: string, name: string): UserInfo {
  return { username: `system:serviceaccount:${namespace}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`] };
}

function resourceCheck(c: ResourceCheckVal, verb: string): DecisionVal {
  const attrs: RequestAttributes = {
    user: c.authorizer.user,
    verb,
    resourceRequest: true,
    apiGroup: c.group,
    apiVersion: '*',
    resource: c.resource,
    subresource: c.subresource,
    namespace: c.namespace,
    name: c.name,
    path: '',
  };
  const d = c.authorizer.authz.authorize(attrs);
  return new DecisionVal(d.allowed, d.reason);
}

function pathCheck(c: PathCheckVal, verb: string): DecisionVal {
  const attrs: RequestAttributes = { user: c.authorizer.user, verb, resourceRequest: false, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '', path: c.path };
  const d = c.authorizer.authz.authorize(attrs);
  return new DecisionVal(d.allowed, d.reason);
}

/** kube's CEL authorization library (k8s.io/apiserver pkg/cel/library/authz.go), with the `authorizer` variable. */
export function registerAuthorizer(env: Environment): Environment {
  const a = 'kubernetes.authorization';
  env.registerType(`${a}.Decision`, DecisionVal);
  env.registerType(`${a}.PathCheck`, PathCheckVal);
  env.registerType(`${a}.ResourceCheck`, ResourceCheckVal);
  env.registerType(`${a}.GroupCheck`, GroupCheckVal);
  env.registerType(`${a}.Authorizer`, { ctor: AuthorizerVal, fields: { requestResource: `${a}.ResourceCheck` } });
  const fn = (signature: string, handler: (...args: never[]) => unknown): void => {
    env.registerFunction(signature, handler as (...args: unknown[]) => unknown, { async: false });
  };
  fn(`${a}.Authorizer.group(string): ${a}.GroupCheck`, (z: AuthorizerVal, group: string) => new GroupCheckVal(z, group));
  fn(`${a}.Authorizer.path(string): ${a}.PathCheck`, (z: AuthorizerVal, path: string) => new PathCheckVal(z, path));
  fn(`${a}.Authorizer.serviceAccount(string, string): ${a}.Authorizer`, (z: AuthorizerVal, ns: string, name: string) => new AuthorizerVal(serviceAccountUser(ns, name), z.authz));
  fn(`${a}.GroupCheck.resource(string): ${a}.ResourceCheck`, (g: GroupCheckVal, resource: string) => new ResourceCheckVal(g.authorizer, g.group, resource));
  fn(`${a}.ResourceCheck.subresource(string): ${a}.ResourceCheck`, (c: ResourceCheckVal, subresource: string) => c.with({ subresource }));
  fn(`${a}.ResourceCheck.namespace(string): ${a}.ResourceCheck`, (c: ResourceCheckVal, namespace: string) => c.with({ namespace }));
  fn(`${a}.ResourceCheck.name(string): ${a}.ResourceCheck`, (c: ResourceCheckVal, name: string) => c.with({ name }));
  // kube 1.32's AuthorizeWithSelectors (beta, on): RBAC decides without selectors, so they are kept for the record only.
  fn(`${a}.ResourceCheck.fieldSelector(string): ${a}.ResourceCheck`, (c: ResourceCheckVal) => c);
  fn(`${a}.ResourceCheck.labelSelector(string): ${a}.ResourceCheck`, (c: ResourceCheckVal) => c);
  fn(`${a}.ResourceCheck.check(string): ${a}.Decision`, (c: ResourceCheckVal, verb: string) => resourceCheck(c, verb));
  fn(`${a}.PathCheck.check(string): ${a}.Decision`, (c: PathCheckVal, verb: string) => pathCheck(c, verb));
  fn(`${a}.Decision.allowed(): bool`, (d: DecisionVal) => d.allowed);
  fn(`${a}.Decision.reason(): string`, (d: DecisionVal) => d.reason);
  // The RBAC authorizer answers, never fails: a decision never errored.
  fn(`${a}.Decision.errored(): bool`, () => false);
  fn(`${a}.Decision.error(): string`, () => '');
  return env.registerVariable('authorizer', `${a}.Authorizer`);
}

const environments = new Map<string, Environment>();

/** The environment for one combination of optional variables (kube pre-builds one per combination too). */
export function policyEnvironment(d: PolicyDeclarations): Environment {
  const key = `${d.params}/${d.authorizer}`;
  let env = environments.get(key);
  if (!env) {
    const { rules } = cel();
    env = rules
      .libraryEnvironment()
      .clone()
      .registerVariable('object', 'dyn')
      .registerVariable('oldObject', 'dyn')
      .registerVariable('request', 'dyn')
      .registerVariable('namespaceObject', 'dyn')
      .registerVariable('variables', 'map<string, dyn>');
    if (d.params) env = env.registerVariable('params', 'dyn');
    if (d.authorizer) env = registerAuthorizer(env);
    rules.instrumentEnvironment(env);
    environments.set(key, env);
  }
  return env;
}

/** A checked expression, callable with its variables. */
export type PolicyProgram = (vars: Record<string, unknown>) => unknown;

/** cel-go's name of a type in kube's "must evaluate to" messages. */
const celGoName = (t: string): string => (t === 'null' ? 'null_type' : t);

/** A variable may be of any type (kube's AnyType): quantities, URLs, optionals, authorization decisions... */
export const anyType = 'any';

/**
 * Compiles `expression` for the given variables, requiring one of `returnTypes`
 * (cel-js names: `bool`, `string`, `null`), or any type ({@link anyType}). The error is
 * kube's compile error text, e.g. `compilation failed: ERROR: <input>:1:5: ...` or
 * `must evaluate to bool`.
 */
export function compilePolicyExpression(
  expression: string,
  declarations: PolicyDeclarations,
  returnTypes: readonly string[] | typeof anyType,
): { program: PolicyProgram; error?: undefined } | { program?: undefined; error: string } {
  const env = policyEnvironment(declarations);
  let parsed: ReturnType<Environment['parse']>;
  let checked: ReturnType<ReturnType<Environment['parse']>['check']>;
  try {
    parsed = env.parse(expression);
    checked = parsed.check();
  } catch (e) {
    return { error: `compilation failed: ${compileIssue(expression, e)}` };
  }
  if (!checked.valid) return { error: `compilation failed: ${compileIssue(expression, checked.error)}` };
  const type = checked.type ?? '';
  const baseType = type.replace(/<.*$/, '');
  if (returnTypes !== anyType && !returnTypes.includes(type) && !returnTypes.includes(baseType)) {
    return { error: returnTypes.length === 1 ? `must evaluate to ${celGoName(returnTypes[0]!)}` : `must evaluate to one of [${returnTypes.map(celGoName).join(' ')}]` };
  }
  cel().rules.applyRuntimeOverrides(parsed.ast);
  return { program: parsed as unknown as PolicyProgram };
}

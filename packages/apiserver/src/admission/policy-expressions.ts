/**
 * Compile checks of a ValidatingAdmissionPolicy's CEL expressions, as kube
 * makes them when a policy is written (k8s.io/apiserver admission/plugin/cel):
 * the variables a policy sees (`object`, `oldObject`, `request`,
 * `namespaceObject`, `variables`, and `params` and `authorizer` where kube
 * offers them), and the type each kind of expression must have, in kube's
 * words (`compilation failed: ERROR: <input>:1:5: ...`, `must evaluate to
 * bool`). The objects are dynamically typed, as kube types them before a
 * policy's resources are known. Policies are stored, not enforced.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { cel } from '../cel-loader.js';
import { compileIssue } from './match-conditions.js';

/** Which optional variables an expression may use. */
export interface PolicyDeclarations {
  params: boolean;
  authorizer: boolean;
}

const environments = new Map<string, Environment>();

/** Values of kube's authorization library types: only their names matter here, since nothing evaluates. */
class Authorizer {}
class GroupCheck {}
class ResourceCheck {}
class PathCheck {}
class Decision {}

const notEvaluated = (): never => {
  throw new Error('admission policies are stored, not evaluated');
};

/** kube's CEL authorization library (`authorizer.group('apps').resource('deployments').check('get').allowed()`), for type checking. */
function registerAuthorizer(env: Environment): Environment {
  const a = 'kubernetes.authorization';
  env.registerType(`${a}.Authorizer`, Authorizer);
  env.registerType(`${a}.GroupCheck`, GroupCheck);
  env.registerType(`${a}.ResourceCheck`, ResourceCheck);
  env.registerType(`${a}.PathCheck`, PathCheck);
  env.registerType(`${a}.Decision`, Decision);
  for (const signature of [
    `${a}.Authorizer.group(string): ${a}.GroupCheck`,
    `${a}.Authorizer.path(string): ${a}.PathCheck`,
    `${a}.Authorizer.serviceAccount(string, string): ${a}.Authorizer`,
    `${a}.GroupCheck.resource(string): ${a}.ResourceCheck`,
    `${a}.ResourceCheck.subresource(string): ${a}.ResourceCheck`,
    `${a}.ResourceCheck.namespace(string): ${a}.ResourceCheck`,
    `${a}.ResourceCheck.name(string): ${a}.ResourceCheck`,
    `${a}.ResourceCheck.check(string): ${a}.Decision`,
    `${a}.PathCheck.check(string): ${a}.Decision`,
    `${a}.Decision.allowed(): bool`,
    `${a}.Decision.errored(): bool`,
    `${a}.Decision.reason(): string`,
    `${a}.Decision.error(): string`,
  ]) {
    env.registerFunction(signature, notEvaluated);
  }
  return env.registerVariable('authorizer', `${a}.Authorizer`);
}

function environment(d: PolicyDeclarations): Environment {
  const key = `${d.params}/${d.authorizer}`;
  let env = environments.get(key);
  if (!env) {
    env = new (cel().js.Environment)({ enableOptionalTypes: true, homogeneousAggregateLiterals: true })
      .registerVariable('object', 'dyn')
      .registerVariable('oldObject', 'dyn')
      .registerVariable('request', 'dyn')
      .registerVariable('namespaceObject', 'dyn')
      .registerVariable('variables', 'map<string, dyn>');
    if (d.params) env = env.registerVariable('params', 'dyn');
    if (d.authorizer) env = registerAuthorizer(env);
    environments.set(key, env);
  }
  return env;
}

/** cel-go's name of a type in kube's "must evaluate to" messages. */
const celGoName = (t: string): string => (t === 'null' ? 'null_type' : t);

/**
 * The compile error kube reports for `expression`, or undefined when it
 * compiles to one of `returnTypes` (cel-js names: `bool`, `string`, `null`).
 */
export function policyExpressionError(expression: string, declarations: PolicyDeclarations, returnTypes: readonly string[]): string | undefined {
  let checked: ReturnType<Environment['check']>;
  try {
    checked = environment(declarations).check(expression);
  } catch (e) {
    return `compilation failed: ${compileIssue(expression, e)}`;
  }
  if (!checked.valid) return `compilation failed: ${compileIssue(expression, checked.error)}`;
  if (checked.type !== undefined && returnTypes.includes(checked.type)) return undefined;
  return returnTypes.length === 1 ? `must evaluate to ${celGoName(returnTypes[0]!)}` : `must evaluate to one of [${returnTypes.map(celGoName).join(' ')}]`;
}

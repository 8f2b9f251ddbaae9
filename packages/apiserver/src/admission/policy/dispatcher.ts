/**
 * kube-apiserver's ValidatingAdmissionPolicy plugin: the first validating
 * step, before validating webhooks and ResourceQuota. For each stored policy
 * that has bindings (policies and bindings read from the store at each request,
 * so a policy applies as soon as its write is acknowledged; compiled once per
 * stored version) the request is matched against the policy's matchConstraints,
 * then each binding's matchResources; the binding's params are collected and
 * the policy evaluated once per param. A failed validation then does what the
 * binding's validationActions say:
 *
 * | action | effect |
 * |---|---|
 * | Deny  | the request is refused: `ValidatingAdmissionPolicy 'p' with binding 'b' denied request: <message>`, with the validation's reason (Invalid, 422, by default) |
 * | Warn  | a `Warning` header: `Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': <message>` |
 * | Audit | an audit annotation `validation.policy.admission.k8s.io/validation_failure` (the server keeps no audit log) |
 *
 * Evaluation errors and misconfigurations (a missing param under Deny, an
 * unknown paramKind) deny under failurePolicy Fail and are ignored under Ignore,
 * as in kube (`failed to configure binding: no params found for policy binding
 * with `Deny` parameterNotFoundAction`). CEL is loaded only once a binding exists.
 */
import { deepCopy, forbidden, isJsonObject, StatusError, type KubeObject, type StatusReason } from '@operant/apimachinery';
import { loadCelIf } from '../../cel-loader.js';
import type { MvccStore } from '../../storage/mvcc-store.js';
import type { Authorizer } from '../../auth/rbac/attributes.js';
import { celRequest, namespaceNotFoundError, type MatchContext } from '../matching.js';
import { toCelJson } from '../match-conditions.js';
import type { AdmissionAttributes, WebhookInvocation } from '../types.js';
import { AuthorizerVal, ResourceCheckVal } from './cel.js';
import { compilePolicy, type CompiledPolicy } from './compile.js';
import { compileMatchResources, matchResources, type CompiledMatchResources } from './matching.js';
import { collectParams, parseParamKind, type ParamResolver, type ParamStore } from './params.js';
import { validatePolicy, type PolicyDecision, type PolicyInputs } from './validator.js';

const policyPrefix = '/admissionregistration.k8s.io/validatingadmissionpolicies/';
const bindingPrefix = '/admissionregistration.k8s.io/validatingadmissionpolicybindings/';

/** kube's excludedResources: policies never apply to policies and bindings, so none can lock itself in. */
const exempt = new Set(['validatingadmissionpolicies', 'validatingadmissionpolicybindings', 'mutatingadmissionpolicies', 'mutatingadmissionpolicybindings']);

/** kube's maxAuditAnnotationValueLength. */
const maxAuditAnnotationValueLength = 10 * 1024;

/** Where policies find their params and ask authorization questions. */
export interface PolicyPluginOptions {
  /** Finds the objects of a paramKind; without it, every paramKind is unknown. */
  params?: ParamResolver;
  /** Answers the `authorizer` variable's checks (the server's RBAC authorizer). */
  authorizer?: Authorizer;
  /**
   * Told of each decision that counts (kube's `apiserver_validating_admission_policy_check_*`):
   * `action` is `allow` (an error ignored), `deny`, `warn` or `audit`; `errorType` is kube's
   * `no_error`, `compile_error`, `out_of_budget` or `invalid_error`.
   */
  observeCheck?: (policy: string, binding: string, errorType: string, action: string, seconds: number) => void;
}

/** What the policies made of a request. */
export interface PolicyOutcome {
  /** For the client's `Warning` headers (sent with a denial too, as kube does). */
  warnings: string[];
  /** Audit annotations (`<policy>/<key>` and validation failures of bindings with Audit). */
  auditAnnotations: Record<string, string>;
  /** The first denial, as kube's StatusError; absent when the request is admitted. */
  denial?: StatusError;
}

interface CompiledBinding {
  readonly name: string;
  readonly policyName: string;
  readonly validationActions: readonly string[];
  readonly paramRef: unknown;
  readonly matchResources?: CompiledMatchResources;
}

/** A denial or misconfiguration to report (kube's policyDecisionWithMetadata). */
interface Denied {
  policy: string;
  binding?: string;
  message: string;
  reason: string;
}

function compileBinding(b: KubeObject): CompiledBinding {
  const spec = isJsonObject(b.spec) ? b.spec : {};
  return {
    name: b.metadata.name ?? '',
    policyName: typeof spec.policyName === 'string' ? spec.policyName : '',
    validationActions: Array.isArray(spec.validationActions) ? spec.validationActions.filter((a): a is string => typeof a === 'string') : [],
    paramRef: spec.paramRef,
    matchResources: isJsonObject(spec.matchResources) ? compileMatchResources(spec.matchResources) : undefined,
  };
}

/** kube's ErrorType: the metric label of a decision, from its evaluation and message. */
function errorType(d: Pick<PolicyDecision, 'evaluation' | 'message'>): string {
  if (d.evaluation === 'admit') return 'no_error';
  if (d.message.startsWith('compilation')) return 'compile_error';
  if (d.message.startsWith('validation failed due to running out of cost budget')) return 'out_of_budget';
  return 'invalid_error';
}

const byName = (a: KubeObject, b: KubeObject): number => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : (a.metadata.name ?? '') > (b.metadata.name ?? '') ? 1 : 0);
const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** kube's reasonToCode. */
function reasonToCode(reason: string): number {
  switch (reason) {
    case 'Forbidden':
      return 403;
    case 'Unauthorized':
      return 401;
    case 'RequestEntityTooLarge':
      return 413;
    default:
      return 422;
  }
}

/** kube's admission.NewForbidden name: the request's, else the object's name or generateName, else `Unknown`. */
function subjectName(attrs: AdmissionAttributes): string {
  if (attrs.name) return attrs.name;
  const meta = attrs.object?.metadata;
  return meta?.name || meta?.generateName || 'Unknown';
}

/** The Status kube answers a denial with: NewForbidden's message and details, the decision's reason and code, the message as a cause. */
function denialError(attrs: AdmissionAttributes, d: Denied): StatusError {
  const message = d.binding !== undefined ? `ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${d.message}` : `ValidatingAdmissionPolicy '${d.policy}' denied request: ${d.message}`;
  const base = forbidden({ group: attrs.resource.group, resource: attrs.resource.resource }, subjectName(attrs), message, [{ message }]);
  const reason = d.reason || 'Invalid';
  return new StatusError(reasonToCode(reason), reason as StatusReason, base.message, base.status.details);
}

/** The namespace as `namespaceObject` shows it (kube's CreateNamespaceObject: no managedFields, ownerReferences or TypeMeta). */
function namespaceObject(ns: KubeObject): Record<string, unknown> {
  const m = ns.metadata;
  const metadata: Record<string, unknown> = {};
  for (const key of ['name', 'generateName', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'finalizers'] as const) {
    if (m[key] !== undefined) metadata[key] = m[key];
  }
  return { metadata, spec: ns.spec ?? {}, status: ns.status ?? {} };
}

/** Runs the stored ValidatingAdmissionPolicies over requests. */
export class ValidatingAdmissionPolicyPlugin {
  private readonly compiledPolicies = new WeakMap<KubeObject, CompiledPolicy>();
  private readonly compiledBindings = new WeakMap<KubeObject, CompiledBinding>();

  constructor(
    private readonly store: MvccStore,
    private readonly matchContext: MatchContext,
    private readonly opts: PolicyPluginOptions = {},
  ) {}

  /** Whether {@link validate} would find nothing to run, whatever the request: no binding is stored. */
  idle(): boolean {
    return this.store.list(bindingPrefix).items.length === 0;
  }

  /** Policies with their bindings, by policy name then binding name; a binding whose policy is missing is skipped, as in kube. */
  private hooks(): Array<{ policy: CompiledPolicy; bindings: CompiledBinding[] }> | Promise<Array<{ policy: CompiledPolicy; bindings: CompiledBinding[] }>> {
    const bindingItems = this.store.list(bindingPrefix).items;
    if (bindingItems.length === 0) return [];
    const byPolicy = new Map<string, CompiledBinding[]>();
    for (const b of bindingItems.map((v) => v.value).sort(byName)) {
      let compiled = this.compiledBindings.get(b);
      if (!compiled) this.compiledBindings.set(b, (compiled = compileBinding(b)));
      const list = byPolicy.get(compiled.policyName) ?? [];
      list.push(compiled);
      byPolicy.set(compiled.policyName, list);
    }
    const policies = [...byPolicy.keys()]
      .sort()
      .map((name) => this.store.get(`${policyPrefix}${name}`)?.value)
      .filter((p): p is KubeObject => p !== undefined);
    if (policies.length === 0) return [];
    // Policies compile with CEL, loaded when the first one is enforced.
    const loading = loadCelIf(true);
    if (loading) return loading.then(() => this.hooks());
    return policies.map((p) => {
      let compiled = this.compiledPolicies.get(p);
      if (!compiled) this.compiledPolicies.set(p, (compiled = compilePolicy(p)));
      return { policy: compiled, bindings: byPolicy.get(p.metadata.name ?? '') ?? [] };
    });
  }

  /**
   * Where the policy's params live: an Error with kube's words when its paramKind is served
   * by nothing, `skip` when its apiVersion does not parse (kube leaves such a policy out).
   */
  private paramStore(policy: CompiledPolicy): ParamStore | undefined | Error | 'skip' {
    if (!policy.paramKind) return undefined;
    const gvk = parseParamKind(policy.paramKind);
    if (!gvk) return 'skip';
    return this.opts.params?.(gvk.group, gvk.version, gvk.kind) ?? new Error(`failed to find resource referenced by paramKind: '${gvk.group}/${gvk.version}, Kind=${gvk.kind}'`);
  }

  /**
   * Evaluates the policies for a request (already normalized by the chain). `convert` gives
   * the objects in the version the policy matched (matchPolicy Equivalent). Throws only when
   * the request's namespace is missing (kube's 404).
   */
  async validate(attrs: AdmissionAttributes, convert: (attrs: AdmissionAttributes, invocation: WebhookInvocation) => Promise<{ object?: KubeObject; oldObject?: KubeObject }>): Promise<PolicyOutcome> {
    const outcome: PolicyOutcome = { warnings: [], auditAnnotations: {} };
    if (exempt.has(attrs.resource.resource) && attrs.resource.group === 'admissionregistration.k8s.io') return outcome;
    const found = this.hooks();
    const hooks = Array.isArray(found) ? found : await found;
    if (hooks.length === 0) return outcome;

    const denied: Denied[] = [];
    const configError = (policy: CompiledPolicy, binding: string | undefined, err: unknown): void => {
      if (policy.failurePolicy === 'Ignore') return;
      const why = errorText(err);
      const message =
        policy.failurePolicy === 'Fail'
          ? `failed to configure ${binding === undefined ? 'policy' : 'binding'}: ${why}`
          : `unrecognized failure policy: '${policy.failurePolicy}'`;
      denied.push({ policy: policy.name, binding, message, reason: '' });
    };
    const authorizer = this.opts.authorizer ? this.authorizerFor(attrs) : undefined;

    for (const { policy, bindings } of hooks) {
      const paramStore = this.paramStore(policy);
      if (paramStore === 'skip') continue;
      let invocation: WebhookInvocation | undefined;
      try {
        if (!policy.matchConstraints) throw new Error('policy contained no match constraints, a required field');
        invocation = matchResources(policy.matchConstraints, attrs, this.matchContext);
      } catch (e) {
        configError(policy, undefined, e);
        continue;
      }
      if (!invocation) continue;
      if (paramStore instanceof Error) {
        configError(policy, undefined, paramStore);
        continue;
      }
      const annotations = new Map<string, string[]>();
      let inputs: Omit<PolicyInputs, 'params'> | undefined;
      for (const binding of bindings) {
        try {
          if (binding.matchResources && !matchResources(binding.matchResources, attrs, this.matchContext)) continue;
        } catch (e) {
          configError(policy, binding.name, e);
          continue;
        }
        let params: Array<KubeObject | null>;
        try {
          params = await collectParams(paramStore, binding.paramRef, attrs.namespace);
        } catch (e) {
          configError(policy, binding.name, e);
          continue;
        }
        if (params.length === 0) continue;
        if (!inputs) {
          let versioned: { object?: KubeObject; oldObject?: KubeObject };
          try {
            versioned = await convert(attrs, invocation);
          } catch (e) {
            configError(policy, binding.name, new Error(`failed to convert object version: ${errorText(e)}`));
            continue;
          }
          inputs = this.inputs(attrs, invocation, versioned, authorizer);
        }
        for (const param of params) {
          const result = validatePolicy(policy, { ...inputs, params: toCelJson(param ?? null) });
          result.decisions.forEach((d, i) => this.act(d, i, policy, binding, denied, outcome));
          for (const a of result.auditAnnotations) {
            if (a.action === 'publish') {
              const values = annotations.get(a.key) ?? [];
              const value = a.value.length > maxAuditAnnotationValueLength ? a.value.slice(0, maxAuditAnnotationValueLength) : a.value;
              if (!values.includes(value)) values.push(value);
              annotations.set(a.key, values);
            } else if (a.action === 'error') {
              denied.push({ policy: policy.name, binding: binding.name, message: a.error, reason: '' });
              this.opts.observeCheck?.(policy.name, binding.name, errorType({ evaluation: 'error', message: a.error }), 'deny', a.elapsed);
            }
          }
        }
      }
      for (const [key, values] of annotations) outcome.auditAnnotations[`${policy.name}/${key}`] = values.join(', ');
    }
    if (denied.length > 0) outcome.denial = denialError(attrs, denied[0]!);
    return outcome;
  }

  /**
   * What every evaluation of a policy for this request sees, but the params: the objects in the
   * matched version, the request, and the namespace (none for cluster-scoped objects and for a
   * Namespace itself, as kube leaves it out). Throws kube's 404 when the namespace is missing.
   */
  private inputs(attrs: AdmissionAttributes, invocation: WebhookInvocation, versioned: { object?: KubeObject; oldObject?: KubeObject }, authorizer: AuthorizerVal | undefined): Omit<PolicyInputs, 'params'> {
    const isNamespace = attrs.kind.group === '' && attrs.kind.version === 'v1' && attrs.kind.kind === 'Namespace';
    let nsObject: unknown = null;
    if (attrs.namespace && !isNamespace) {
      const ns = this.store.get(`/core/namespaces/${attrs.namespace}`)?.value;
      if (!ns) throw namespaceNotFoundError(attrs.namespace);
      nsObject = toCelJson(namespaceObject(ns));
    }
    return {
      object: toCelJson(versioned.object ?? null),
      oldObject: toCelJson(versioned.oldObject ?? null),
      request: toCelJson(celRequest(attrs, invocation)),
      // matchConditions see the request's own resource (kube's matcher builds it so).
      matchRequest: toCelJson(celRequest(attrs, { ...invocation, resource: attrs.resource })),
      namespaceObject: nsObject,
      authorizer,
    };
  }

  /** What a binding's validationActions make of one decision. */
  private act(d: PolicyDecision, index: number, policy: CompiledPolicy, binding: CompiledBinding, denied: Denied[], outcome: PolicyOutcome): void {
    const observe = (action: string): void => this.opts.observeCheck?.(policy.name, binding.name, errorType(d), action, d.elapsed);
    if (d.action !== 'deny') {
      if (d.evaluation === 'error') observe('allow');
      return;
    }
    for (const action of binding.validationActions) {
      if (action === 'Deny' || action === 'Warn' || action === 'Audit') observe(action.toLowerCase());
      if (action === 'Deny') denied.push({ policy: policy.name, binding: binding.name, message: d.message, reason: d.reason });
      else if (action === 'Warn') {
        const warning = `Validation failed for ValidatingAdmissionPolicy '${policy.name}' with binding '${binding.name}': ${d.message}`;
        if (!outcome.warnings.includes(warning)) outcome.warnings.push(warning);
      } else if (action === 'Audit') {
        outcome.auditAnnotations['validation.policy.admission.k8s.io/validation_failure'] = JSON.stringify([
          { message: d.message, policy: policy.name, binding: binding.name, expressionIndex: index, validationActions: binding.validationActions },
        ]);
      }
    }
  }

  /** The `authorizer` value for the request's user, with `authorizer.requestResource` on the request's resource. */
  private authorizerFor(attrs: AdmissionAttributes): AuthorizerVal {
    const u = attrs.userInfo;
    const user = { username: u.username, uid: u.uid, groups: [...(u.groups ?? [])], extra: u.extra ? deepCopy(u.extra) : undefined };
    const plain = new AuthorizerVal(user, this.opts.authorizer!);
    const requestResource = new ResourceCheckVal(plain, attrs.resource.group, attrs.resource.resource, attrs.subResource ?? '', attrs.namespace, attrs.name);
    return new AuthorizerVal(user, this.opts.authorizer!, requestResource);
  }
}

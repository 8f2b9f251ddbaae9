/**
 * Whether a webhook applies to a request, decided as kube's generic webhook
 * plugin decides it (ShouldCallHook): namespaceSelector, objectSelector, rules
 * (with matchPolicy Equivalent trying the same objects in other versions), then
 * matchConditions. Webhooks are compiled once per stored configuration.
 */
import {
  deepCopy,
  forbidden,
  internalError,
  isJsonObject,
  labelSelectorFromObject,
  notFound,
  type GroupVersionResource,
  type KubeObject,
  type LabelSelector,
} from '@operant/apimachinery';
import { defaultWebhookConfiguration } from './configuration.js';
import { compileCondition, evaluateConditions, toCelJson, type CompiledCondition } from './match-conditions.js';
import type { AdmissionAttributes, AdmissionWebhook, ResourceEquivalence, WebhookConfiguration, WebhookInvocation, WebhookRule } from './types.js';

/** A webhook ready for matching and calling: defaulted, selectors parsed, conditions compiled. */
export interface CompiledWebhook {
  /** The configuration's metadata.name. */
  readonly configurationName: string;
  /** Position in the configuration's `webhooks`. */
  readonly index: number;
  /** Identifies the webhook for reinvocation bookkeeping. */
  readonly uid: string;
  readonly name: string;
  /** The webhook with v1 defaults applied. */
  readonly webhook: AdmissionWebhook;
  readonly namespaceSelector: LabelSelector | Error;
  readonly objectSelector: LabelSelector | Error;
  readonly conditions: readonly CompiledCondition[];
}

/** A label selector as stored (absent selects everything), or why it cannot be parsed. */
export function parseSelector(raw: unknown): LabelSelector | Error {
  try {
    return labelSelectorFromObject(isJsonObject(raw) ? raw : undefined, { absent: 'everything' });
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
}

/** Compiles every webhook of a stored configuration. */
export function compileWebhookConfiguration(config: KubeObject, mutating: boolean): CompiledWebhook[] {
  const copy = deepCopy(config) as WebhookConfiguration;
  defaultWebhookConfiguration(copy, mutating);
  const configurationName = copy.metadata?.name ?? '';
  const hooks = Array.isArray(copy.webhooks) ? copy.webhooks : [];
  return hooks.map((raw, index) => {
    const webhook: AdmissionWebhook = isJsonObject(raw) ? raw : {};
    const name = typeof webhook.name === 'string' ? webhook.name : '';
    const conditions = (Array.isArray(webhook.matchConditions) ? webhook.matchConditions : []).map((c) =>
      compileCondition(typeof c?.name === 'string' ? c.name : '', typeof c?.expression === 'string' ? c.expression : ''),
    );
    return {
      configurationName,
      index,
      uid: `${configurationName}/${name}/${index}`,
      name,
      webhook,
      namespaceSelector: parseSelector(webhook.namespaceSelector),
      objectSelector: parseSelector(webhook.objectSelector),
      conditions,
    };
  });
}

const namespacesResource: GroupVersionResource = { group: '', version: 'v1', resource: 'namespaces' };

function sameGvr(a: GroupVersionResource, b: GroupVersionResource): boolean {
  return a.group === b.group && a.version === b.version && a.resource === b.resource;
}

function exactOrWildcard(items: readonly string[] | undefined, requested: string): boolean {
  return (items ?? []).some((item) => item === '*' || item === requested);
}

/** Whether one rule covers the request made to `resource` (kube's rules.Matcher). */
export function ruleMatches(rule: WebhookRule, attrs: AdmissionAttributes, resource: GroupVersionResource = attrs.resource): boolean {
  const scope = rule.scope ?? '*';
  const namespace = attrs.namespace;
  if (scope === 'Namespaced') {
    if (sameGvr(resource, namespacesResource) || namespace === '') return false;
  } else if (scope === 'Cluster') {
    if (!(sameGvr(resource, namespacesResource) || namespace === '')) return false;
  } else if (scope !== '*') return false;
  if (!(rule.operations ?? []).some((op) => op === '*' || op === attrs.operation)) return false;
  if (!exactOrWildcard(rule.apiGroups, resource.group)) return false;
  if (!exactOrWildcard(rule.apiVersions, resource.version)) return false;
  const sub = attrs.subResource ?? '';
  return (rule.resources ?? []).some((entry) => {
    const slash = entry.indexOf('/');
    const res = slash < 0 ? entry : entry.slice(0, slash);
    const entrySub = slash < 0 ? '' : entry.slice(slash + 1);
    return (res === '*' || res === resource.resource) && (entrySub === '*' || entrySub === sub);
  });
}

/** Webhook configurations are never subject to webhooks, so a broken webhook cannot lock itself in. */
export function isExemptFromWebhooks(attrs: AdmissionAttributes): boolean {
  if (attrs.kind.group !== 'admissionregistration.k8s.io') return false;
  return [
    'ValidatingWebhookConfiguration',
    'MutatingWebhookConfiguration',
    'ValidatingAdmissionPolicy',
    'ValidatingAdmissionPolicyBinding',
    'MutatingAdmissionPolicy',
    'MutatingAdmissionPolicyBinding',
  ].includes(attrs.kind.kind);
}

/** Where the matcher looks up namespaces and equivalent resources. */
export interface MatchContext {
  /** The labels of a stored namespace, or undefined when there is no such namespace. */
  namespaceLabels(name: string): Record<string, string> | undefined;
  equivalence?: ResourceEquivalence;
}

/** The parsed namespaceSelector and objectSelector of a webhook, or of a policy's or binding's match resources. */
export interface ParsedSelectors {
  readonly namespaceSelector: LabelSelector | Error;
  readonly objectSelector: LabelSelector | Error;
}

/** The outcome of the namespaceSelector: a decision, or the error to answer with once the rules match. */
export function matchNamespace(hook: ParsedSelectors, attrs: AdmissionAttributes, ctx: MatchContext): boolean | Error {
  const isNamespace = attrs.resource.resource === 'namespaces';
  if (attrs.namespace === '' && !isNamespace) return true;
  const selector = hook.namespaceSelector;
  if (selector instanceof Error) return internalError(selector.message);
  if (selector.empty()) return true;
  let labels: Record<string, string> | undefined;
  if (isNamespace && !attrs.subResource && (attrs.operation === 'CREATE' || attrs.operation === 'UPDATE')) {
    // A namespace being written is judged by its new labels.
    labels = attrs.object?.metadata?.labels ?? {};
  } else {
    labels = ctx.namespaceLabels(attrs.namespace);
    if (labels === undefined) {
      return new NamespaceNotFound(attrs.namespace);
    }
  }
  return selector.matches(labels);
}

/** Marker for a missing namespace; the dispatcher answers with kube's 404. */
export class NamespaceNotFound extends Error {
  constructor(readonly namespace: string) {
    super(`namespaces "${namespace}" not found`);
    this.name = 'NamespaceNotFound';
  }
}

/** The outcome of the objectSelector (the new or the old object's labels): a decision, or the error to answer with. */
export function matchObject(hook: ParsedSelectors, attrs: AdmissionAttributes): boolean | Error {
  const selector = hook.objectSelector;
  if (selector instanceof Error) return internalError(selector.message);
  if (selector.empty()) return true;
  const matches = (obj: KubeObject | undefined) => !!obj && isJsonObject(obj.metadata) && selector.matches(obj.metadata.labels ?? {});
  return matches(attrs.object) || matches(attrs.oldObject);
}

function gvrString(r: GroupVersionResource): string {
  return `${r.group}/${r.version}, Resource=${r.resource}`;
}

/**
 * The rule matching webhooks and policies share (kube's rules.Matcher under a
 * matchPolicy): the request's own resource if a rule matches it, else, under
 * `Equivalent`, the first equivalent resource in another version a rule
 * matches, with its kind. `allows` narrows a matching rule further (a policy
 * rule's resourceNames); for an equivalent resource it is asked once the kind
 * is known.
 */
export function matchRules<R extends WebhookRule>(
  rules: readonly R[],
  matchPolicy: string | undefined,
  attrs: AdmissionAttributes,
  ctx: MatchContext,
  allows: (rule: R) => boolean = () => true,
): WebhookInvocation | undefined {
  const subResource = attrs.subResource ?? '';
  if (rules.some((r) => ruleMatches(r, attrs) && allows(r))) return { resource: attrs.resource, subResource, kind: attrs.kind };
  if (matchPolicy !== 'Equivalent' || !ctx.equivalence) return undefined;
  const equivalents = ctx.equivalence.equivalentResourcesFor(attrs.resource, subResource);
  for (const rule of rules) {
    for (const eq of equivalents) {
      if (sameGvr(eq, attrs.resource) || !ruleMatches(rule, attrs, eq)) continue;
      const kind = ctx.equivalence.kindFor(eq, subResource);
      if (!kind) throw internalError(`unable to convert to ${gvrString(eq)}: unknown kind`);
      if (allows(rule)) return { resource: eq, subResource, kind };
    }
  }
  return undefined;
}

/**
 * Decides whether `hook` is called for the request, and as which resource and kind.
 * Returns undefined when it is not; throws a StatusError when the decision itself fails
 * (a missing namespace, an unparsable selector).
 */
export function matchWebhookRules(hook: CompiledWebhook, attrs: AdmissionAttributes, ctx: MatchContext): WebhookInvocation | undefined {
  const ns = matchNamespace(hook, attrs, ctx);
  if (ns === false) return undefined;
  const obj = matchObject(hook, attrs);
  if (obj === false) return undefined;
  const rules = (Array.isArray(hook.webhook.rules) ? hook.webhook.rules : []).filter((r): r is WebhookRule => isJsonObject(r));
  const invocation = matchRules(rules, hook.webhook.matchPolicy, attrs, ctx);
  if (!invocation) return undefined;
  if (ns instanceof NamespaceNotFound) throw namespaceNotFoundError(ns.namespace);
  if (ns instanceof Error) throw ns;
  if (obj instanceof Error) throw obj;
  return invocation;
}

/** kube answers a request into a missing namespace with the namespace's 404. */
export function namespaceNotFoundError(name: string): Error {
  return notFound({ group: '', resource: 'namespaces' }, name);
}

/** The `request` variable of match conditions: AdmissionRequest without the objects, zero values filled in. */
export function celRequest(attrs: AdmissionAttributes, invocation: WebhookInvocation): Record<string, unknown> {
  return {
    kind: invocation.kind,
    resource: invocation.resource,
    subResource: invocation.subResource,
    requestKind: attrs.requestKind ?? attrs.kind,
    requestResource: attrs.requestResource ?? attrs.resource,
    requestSubResource: attrs.requestSubResource ?? attrs.subResource ?? '',
    name: attrs.name,
    namespace: attrs.namespace,
    operation: attrs.operation,
    userInfo: {
      username: attrs.userInfo.username,
      uid: attrs.userInfo.uid ?? '',
      groups: attrs.userInfo.groups ?? [],
      extra: attrs.userInfo.extra ?? {},
    },
    dryRun: attrs.dryRun,
    options: attrs.options ?? null,
  };
}

/**
 * Evaluates the webhook's matchConditions against the objects as the webhook would
 * receive them. Returns whether to call it; throws kube's Forbidden when a condition
 * fails to evaluate under failurePolicy Fail.
 */
export function matchConditionsAllow(
  hook: CompiledWebhook,
  attrs: AdmissionAttributes,
  invocation: WebhookInvocation,
  object: KubeObject | undefined,
  oldObject: KubeObject | undefined,
): boolean {
  if (hook.conditions.length === 0) return true;
  const outcome = evaluateConditions(
    hook.conditions,
    { object: toCelJson(object ?? null), oldObject: toCelJson(oldObject ?? null), request: toCelJson(celRequest(attrs, invocation)) },
    hook.webhook.failurePolicy ?? 'Fail',
  );
  if (outcome.kind === 'error') {
    throw forbidden({ group: attrs.resource.group, resource: attrs.resource.resource }, attrs.name, outcome.message);
  }
  return outcome.kind === 'match';
}

/**
 * Whether a ValidatingAdmissionPolicy's matchConstraints, or a binding's
 * matchResources, cover a request (kube's policy/matching.Matcher): the
 * namespaceSelector and objectSelector as webhooks use them, excludeResourceRules,
 * then resourceRules with their resourceNames, trying equivalent resources in
 * other versions under matchPolicy Equivalent. A binding without matchResources
 * matches everything its policy matches.
 */
import { internalError, isJsonObject, type GroupVersionResource } from '@operant/apimachinery';
import { gvrString, matchNamespace, matchObject, parseSelector, ruleMatches, sameGvr, type MatchContext, type ParsedSelectors } from '../matching.js';
import type { AdmissionAttributes, WebhookInvocation, WebhookRule } from '../types.js';

/** One entry of resourceRules / excludeResourceRules: a webhook rule plus optional names. */
export interface NamedRule extends WebhookRule {
  resourceNames?: string[];
}

/** A MatchResources ready for matching: selectors parsed once per stored policy or binding. */
export interface CompiledMatchResources extends ParsedSelectors {
  readonly resourceRules: readonly NamedRule[];
  readonly excludeResourceRules: readonly NamedRule[];
  /** `Equivalent` (the default) or `Exact`. */
  readonly matchPolicy: string;
}

const rulesOf = (raw: unknown): NamedRule[] => (Array.isArray(raw) ? raw.filter(isJsonObject) : []) as NamedRule[];

/** Parses a stored MatchResources (defaults already applied). */
export function compileMatchResources(raw: unknown): CompiledMatchResources {
  const mr = isJsonObject(raw) ? raw : {};
  return {
    namespaceSelector: parseSelector(mr.namespaceSelector),
    objectSelector: parseSelector(mr.objectSelector),
    resourceRules: rulesOf(mr.resourceRules),
    excludeResourceRules: rulesOf(mr.excludeResourceRules),
    matchPolicy: typeof mr.matchPolicy === 'string' ? mr.matchPolicy : 'Equivalent',
  };
}

const namesAllow = (rule: NamedRule, name: string): boolean => !rule.resourceNames || rule.resourceNames.length === 0 || rule.resourceNames.includes(name);

/** kube's matchesResourceRules: the resource and kind the request matched as, or undefined. */
function matchesResourceRules(rules: readonly NamedRule[], matchPolicy: string, attrs: AdmissionAttributes, ctx: MatchContext): WebhookInvocation | undefined {
  const subResource = attrs.subResource ?? '';
  for (const rule of rules) {
    if (ruleMatches(rule, attrs) && namesAllow(rule, attrs.name)) return { resource: attrs.resource, subResource, kind: attrs.kind };
  }
  if (matchPolicy !== 'Equivalent' || !ctx.equivalence) return undefined;
  const equivalents: GroupVersionResource[] = ctx.equivalence.equivalentResourcesFor(attrs.resource, subResource);
  for (const rule of rules) {
    for (const eq of equivalents) {
      if (sameGvr(eq, attrs.resource) || !ruleMatches(rule, attrs, eq)) continue;
      const kind = ctx.equivalence.kindFor(eq, subResource);
      if (!kind) throw internalError(`unable to convert to ${gvrString(eq)}: unknown kind`);
      if (namesAllow(rule, attrs.name)) return { resource: eq, subResource, kind };
    }
  }
  return undefined;
}

/**
 * Decides whether `mr` covers the request, and as which resource and kind. Throws
 * when the decision itself fails once the rules match (a missing namespace, an
 * unparsable selector): the caller reports it as a configuration error.
 */
export function matchResources(mr: CompiledMatchResources, attrs: AdmissionAttributes, ctx: MatchContext): WebhookInvocation | undefined {
  const ns = matchNamespace(mr, attrs, ctx);
  if (ns === false) return undefined;
  const obj = matchObject(mr, attrs);
  if (obj === false) return undefined;
  if (matchesResourceRules(mr.excludeResourceRules, mr.matchPolicy, attrs, ctx)) return undefined;
  const invocation =
    mr.resourceRules.length === 0
      ? { resource: attrs.resource, subResource: attrs.subResource ?? '', kind: attrs.kind }
      : matchesResourceRules(mr.resourceRules, mr.matchPolicy, attrs, ctx);
  if (!invocation) return undefined;
  if (ns instanceof Error) throw ns;
  if (obj instanceof Error) throw obj;
  return invocation;
}

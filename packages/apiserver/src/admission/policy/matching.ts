/**
 * Whether a ValidatingAdmissionPolicy's matchConstraints, or a binding's
 * matchResources, cover a request (kube's policy/matching.Matcher): the
 * namespaceSelector and objectSelector as webhooks use them, excludeResourceRules,
 * then resourceRules with their resourceNames, trying equivalent resources in
 * other versions under matchPolicy Equivalent. A binding without matchResources
 * matches everything its policy matches.
 */
import { isJsonObject } from '@operant/apimachinery';
import { matchNamespace, matchObject, matchRules, parseSelector, type MatchContext, type ParsedSelectors } from '../matching.js';
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

const namesAllow = (name: string) => (rule: NamedRule): boolean => !rule.resourceNames || rule.resourceNames.length === 0 || rule.resourceNames.includes(name);

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
  if (matchRules(mr.excludeResourceRules, mr.matchPolicy, attrs, ctx, namesAllow(attrs.name))) return undefined;
  const invocation =
    mr.resourceRules.length === 0
      ? { resource: attrs.resource, subResource: attrs.subResource ?? '', kind: attrs.kind }
      : matchRules(mr.resourceRules, mr.matchPolicy, attrs, ctx, namesAllow(attrs.name));
  if (!invocation) return undefined;
  if (ns instanceof Error) throw ns;
  if (obj instanceof Error) throw obj;
  return invocation;
}

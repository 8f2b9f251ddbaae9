/**
 * RBAC escalation prevention (kube's pkg/registry/rbac/validation and the role and
 * binding storages): a user may only create or update a Role or ClusterRole whose rules
 * it already holds, unless it may `escalate` on roles/clusterroles; a user may only bind a
 * role whose rules it holds, unless it may `bind` that role. Members of `system:masters`
 * pass both checks.
 */
import { StatusError } from '@operant/apimachinery';
import type { Authorizer, PolicyRule, RequestAttributes, RoleBinding, UserInfo } from './attributes.js';
import { systemMastersGroup } from './attributes.js';

const rbacGroup = 'rbac.authorization.k8s.io';

/** What is being written, for the error message and the `escalate` check. */
export interface EscalationTarget {
  /** The resource written: `roles`, `clusterroles`, `rolebindings` or `clusterrolebindings`. */
  resource: string;
  /** The object's name, as it appears in the error message. */
  name: string;
  /**
   * The name in the request path, used for the `escalate`/`bind` check's resourceNames
   * (kube uses the request's name: `""` on create). Defaults to `name`.
   */
  requestName?: string;
}

/** An authorizer that can also tell which bindings referred to missing roles (the RBAC authorizer). */
interface ResolvingAuthorizer extends Authorizer {
  rulesFor(user: UserInfo, namespace: string): { errors: string[] };
}

function hasRulesFor(a: Authorizer): a is ResolvingAuthorizer {
  return typeof (a as Partial<ResolvingAuthorizer>).rulesFor === 'function';
}

/** Go's `%q` of a []string: `["a" "b"]`. */
function goQuoteSlice(items: readonly string[]): string {
  return `[${items.map((s) => JSON.stringify(s)).join(' ')}]`;
}

function resourceAttrs(
  user: UserInfo,
  verb: string,
  group: string,
  resource: string,
  namespace: string,
  name: string,
): RequestAttributes {
  const slash = resource.indexOf('/');
  return {
    user,
    verb,
    resourceRequest: true,
    apiGroup: group,
    apiVersion: '*',
    resource: slash < 0 ? resource : resource.slice(0, slash),
    subresource: slash < 0 ? '' : resource.slice(slash + 1),
    namespace,
    name,
    path: '',
  };
}

/** kube's BreakdownRule: one rule per group × resource × verb (× name), then per URL × verb. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  const verbs = rule.verbs ?? [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of verbs) {
        if (rule.resourceNames && rule.resourceNames.length > 0) {
          for (const name of rule.resourceNames) {
            out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
          }
        } else {
          out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return out;
}

/**
 * kube's CompactRules: broken-down rules on the same group, resource (and single name)
 * merged into one rule with all their verbs; anything else kept as it is.
 */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const kept: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const r of rules) {
    const names = r.resourceNames ?? [];
    const isSimple =
      names.length <= 1 &&
      (r.nonResourceURLs ?? []).length === 0 &&
      (r.apiGroups ?? []).length === 1 &&
      (r.resources ?? []).length === 1;
    if (!isSimple) {
      kept.push(r);
      continue;
    }
    const key = JSON.stringify([r.apiGroups![0], r.resources![0], names.length > 0, names[0] ?? '']);
    const existing = simple.get(key);
    if (!existing) {
      simple.set(key, { ...r, verbs: [...(r.verbs ?? [])] });
      continue;
    }
    for (const v of r.verbs ?? []) if (!existing.verbs.includes(v)) existing.verbs.push(v);
  }
  return [...kept, ...simple.values()];
}

/** kube's CompactString: `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`, empty fields left out. */
export function compactString(rule: PolicyRule): string {
  const parts: string[] = [];
  if (rule.apiGroups?.length) parts.push(`APIGroups:${goQuoteSlice(rule.apiGroups)}`);
  if (rule.resources?.length) parts.push(`Resources:${goQuoteSlice(rule.resources)}`);
  if (rule.nonResourceURLs?.length) parts.push(`NonResourceURLs:${goQuoteSlice(rule.nonResourceURLs)}`);
  if (rule.resourceNames?.length) parts.push(`ResourceNames:${goQuoteSlice(rule.resourceNames)}`);
  if (rule.verbs?.length) parts.push(`Verbs:${goQuoteSlice(rule.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/**
 * The parts of `rules` the user does not hold in `namespace` (`""`: cluster-wide only),
 * broken down to one verb, group, resource (and name) or URL each, as kube's Covers
 * reports them. Each part is asked of the authorizer, so wildcards in `rules` are only
 * held through the same wildcards.
 */
export function missingRules(user: UserInfo, rules: readonly PolicyRule[], namespace: string, authorizer: Authorizer): PolicyRule[] {
  const missing: PolicyRule[] = [];
  for (const rule of rules) {
    for (const part of breakdownRule(rule)) {
      const verb = part.verbs[0]!;
      const attrs: RequestAttributes = part.nonResourceURLs
        ? { ...resourceAttrs(user, verb, '', '', '', ''), resourceRequest: false, path: part.nonResourceURLs[0]! }
        : resourceAttrs(user, verb, part.apiGroups![0]!, part.resources![0]!, namespace, part.resourceNames?.[0] ?? '');
      if (!authorizer.authorize(attrs).allowed) missing.push(part);
    }
  }
  return missing;
}

function isPrivileged(user: UserInfo): boolean {
  return user.groups.includes(systemMastersGroup);
}

/** kube's NewForbidden on an RBAC object (a create under generateName has no name yet: none is quoted). */
function forbiddenOn(target: EscalationTarget, why: string): StatusError {
  const subject = target.name ? `${target.resource}.${rbacGroup} ${JSON.stringify(target.name)}` : `${target.resource}.${rbacGroup}`;
  const details = target.name ? { name: target.name, group: rbacGroup, kind: target.resource } : { group: rbacGroup, kind: target.resource };
  return new StatusError(403, 'Forbidden', `${subject} is forbidden: ${why}`, details);
}

/**
 * kube's RoleEscalationAuthorized: whether `user` may `escalate` on `resource` (`roles` or
 * `clusterroles`) in `namespace`, for the object `name` of the request path (`""` on create).
 */
export function escalationAuthorized(user: UserInfo, resource: string, namespace: string, name: string, authorizer: Authorizer): boolean {
  return authorizer.authorize(resourceAttrs(user, 'escalate', rbacGroup, resource, namespace, name)).allowed;
}

/**
 * kube's BindingAuthorized: whether `user` may `bind` the role `roleRef` names, in the
 * binding's namespace (`""` for a ClusterRoleBinding). False for any other kind of roleRef.
 */
export function bindingAuthorized(user: UserInfo, roleRef: RoleBinding['roleRef'], namespace: string, authorizer: Authorizer): boolean {
  const resource = roleRef.kind === 'ClusterRole' ? 'clusterroles' : roleRef.kind === 'Role' ? 'roles' : '';
  if (!resource) return false;
  return authorizer.authorize(resourceAttrs(user, 'bind', roleRef.apiGroup ?? '', resource, namespace, roleRef.name)).allowed;
}

/** What kube asks of a user who sets or changes an aggregationRule: everything (`*` on `*.*` and on every URL). */
const fullAuthority: PolicyRule[] = [
  { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
  { nonResourceURLs: ['*'], verbs: ['*'] },
];

/**
 * kube's check on a ClusterRole with an aggregationRule (which can gather anything): unless
 * the user holds full authority cluster-wide, kube's 403 `clusterroles.rbac.authorization.k8s.io
 * "x" is forbidden: must have cluster-admin privileges to use the aggregationRule`.
 */
export function confirmCanAggregate(user: UserInfo, authorizer: Authorizer, target: EscalationTarget): StatusError | undefined {
  if (isPrivileged(user)) return undefined;
  if (missingRules(user, fullAuthority, '', authorizer).length === 0) return undefined;
  return forbiddenOn(target, 'must have cluster-admin privileges to use the aggregationRule');
}

/** The text of kube's ConfirmNoEscalation error, or undefined when the user holds every rule. */
function escalationMessage(user: UserInfo, rules: readonly PolicyRule[], namespace: string, authorizer: Authorizer): string | undefined {
  const missing = missingRules(user, rules, namespace, authorizer);
  if (missing.length === 0) return undefined;
  const descriptions = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg =
    `user ${JSON.stringify(user.username)} (groups=${goQuoteSlice(user.groups)}) ` +
    `is attempting to grant RBAC permissions not currently held:\n${descriptions.join('\n')}`;
  if (hasRulesFor(authorizer)) {
    // kube appends its one aggregate resolution error as a Go slice: `[e]` or `[[e1, e2]]`.
    const errors = [...new Set(authorizer.rulesFor(user, namespace).errors)];
    if (errors.length === 1) msg += `; resolution errors: [${errors[0]!}]`;
    else if (errors.length > 1) msg += `; resolution errors: [[${errors.join(', ')}]]`;
  }
  return msg;
}

/**
 * Checks that `user` may write a Role (in `namespace`) or ClusterRole (`namespace` `""`)
 * with `rules`. Undefined when it may: the user is in `system:masters`, may `escalate`
 * on the target resource, or holds every rule. Otherwise kube's 403:
 * `roles.rbac.authorization.k8s.io "name" is forbidden: user "u" (groups=["g1" "g2"]) is
 * attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`.
 */
export function confirmNoEscalation(
  user: UserInfo,
  rules: readonly PolicyRule[],
  namespace: string,
  authorizer: Authorizer,
  target: EscalationTarget,
): StatusError | undefined {
  if (isPrivileged(user)) return undefined;
  const escalate = resourceAttrs(user, 'escalate', rbacGroup, target.resource, namespace, target.requestName ?? target.name);
  if (authorizer.authorize(escalate).allowed) return undefined;
  const msg = escalationMessage(user, rules, namespace, authorizer);
  return msg === undefined ? undefined : forbiddenOn(target, msg);
}

/**
 * Checks that `user` may write a RoleBinding (in `namespace`) or ClusterRoleBinding
 * (`namespace` `""`) referring to `roleRef`, whose rules are `roleRules`. Undefined when it
 * may: the user is in `system:masters`, may `bind` the referred role (kube's
 * BindingAuthorized), or holds every rule of it. Otherwise kube's 403 on the binding:
 * `rolebindings.rbac.authorization.k8s.io "b" is forbidden: user "u" (groups=[...]) is
 * attempting to grant RBAC permissions not currently held:\n...`.
 */
export function confirmCanBind(
  user: UserInfo,
  roleRef: RoleBinding['roleRef'],
  roleRules: readonly PolicyRule[],
  namespace: string,
  authorizer: Authorizer,
  target: EscalationTarget,
): StatusError | undefined {
  if (isPrivileged(user)) return undefined;
  if (bindingAuthorized(user, roleRef, namespace, authorizer)) return undefined;
  const msg = escalationMessage(user, roleRules, namespace, authorizer);
  return msg === undefined ? undefined : forbiddenOn(target, msg);
}

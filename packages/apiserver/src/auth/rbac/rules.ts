/**
 * PolicyRule matching as kube's rbac/v1 evaluation helpers do it: verbs and API groups
 * with `*`; resources with `*`, `*\/subresource` and `resource/subresource`; resourceNames
 * only restrict requests that name an object; nonResourceURLs with a trailing `*` prefix.
 */
import type { PolicyRule, RequestAttributes } from './attributes.js';

/** `*`: matches every verb, group, resource or path. */
export const wildcard = '*';

/** Whether the rule's verbs include `verb` or `*`. */
export function verbMatches(rule: PolicyRule, verb: string): boolean {
  for (const v of rule.verbs ?? []) if (v === wildcard || v === verb) return true;
  return false;
}

/** Whether the rule's apiGroups include `group` or `*`. */
export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  for (const g of rule.apiGroups ?? []) if (g === wildcard || g === group) return true;
  return false;
}

/**
 * Whether the rule's resources cover `resource` with `subresource`: `*`, the exact
 * `resource` (or `resource/subresource`), or `*\/subresource`.
 */
export function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const r of rule.resources ?? []) {
    if (r === wildcard || r === combined) return true;
    if (subresource && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

/** Whether the rule allows object `name`: any name without resourceNames, else only a listed one. */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames;
  if (!names || names.length === 0) return true;
  return names.includes(name);
}

/** Whether the rule's nonResourceURLs cover `path`: `*`, the exact path, or a `prefix*`. */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === wildcard || u === path) return true;
    if (u.endsWith(wildcard) && path.startsWith(u.slice(0, -1))) return true;
  }
  return false;
}

/** Whether one rule allows the request (kube's RuleAllows). */
export function ruleAllows(attrs: RequestAttributes, rule: PolicyRule): boolean {
  if (attrs.resourceRequest) {
    return (
      verbMatches(rule, attrs.verb) &&
      apiGroupMatches(rule, attrs.apiGroup) &&
      resourceMatches(rule, attrs.resource, attrs.subresource) &&
      resourceNameMatches(rule, attrs.name)
    );
  }
  return verbMatches(rule, attrs.verb) && nonResourceURLMatches(rule, attrs.path);
}

/** Whether any of the rules allows the request. */
export function rulesAllow(attrs: RequestAttributes, rules: readonly PolicyRule[]): boolean {
  for (const rule of rules) if (ruleAllows(attrs, rule)) return true;
  return false;
}

function sameStrings(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

/**
 * A text that is the same for two rules exactly when {@link rulesEqual} holds, for
 * finding duplicates among many rules at once (aggregation) without comparing each pair.
 */
export function ruleKey(r: PolicyRule): string {
  return JSON.stringify([r.verbs ?? [], r.apiGroups ?? [], r.resources ?? [], r.resourceNames ?? [], r.nonResourceURLs ?? []]);
}

/** Field-by-field equality of two rules (absent and empty lists are the same). */
export function rulesEqual(a: PolicyRule, b: PolicyRule): boolean {
  return (
    sameStrings(a.verbs, b.verbs) &&
    sameStrings(a.apiGroups, b.apiGroups) &&
    sameStrings(a.resources, b.resources) &&
    sameStrings(a.resourceNames, b.resourceNames) &&
    sameStrings(a.nonResourceURLs, b.nonResourceURLs)
  );
}

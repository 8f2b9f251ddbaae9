/**
 * ClusterRole aggregation (kube's ClusterRoleAggregationController): a ClusterRole with
 * `aggregationRule.clusterRoleSelectors` has the rules of every other ClusterRole whose
 * labels match one of the selectors. The authorizer computes it when it reads the roles (so
 * a change is in effect at once), and aggregation-controller.ts writes it into the stored roles.
 */
import { labelSelectorFromObject, type LabelSelector } from '@operant/apimachinery';
import type { ClusterRole, PolicyRule } from './attributes.js';
import { ruleKey } from './rules.js';

function selectorsOf(role: ClusterRole): LabelSelector[] {
  const out: LabelSelector[] = [];
  for (const s of role.aggregationRule?.clusterRoleSelectors ?? []) {
    try {
      out.push(labelSelectorFromObject(s));
    } catch {
      // kube's controller gives up on a role with a bad selector; it aggregates nothing from it.
    }
  }
  return out;
}

function byName(a: ClusterRole, b: ClusterRole): number {
  const x = a.metadata?.name ?? '';
  const y = b.metadata?.name ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * The rules of `clusterRole`: its own `rules` when it has no aggregationRule, else the
 * union of the rules of the ClusterRoles its selectors pick (for each selector in turn,
 * the picked roles by name, their rules in order, each distinct rule once), as kube's
 * aggregation controller writes them. A picked role that aggregates itself contributes its
 * aggregated rules, so `admin` includes `edit` which includes `view`; cycles are cut.
 */
export function aggregatedRules(clusterRole: ClusterRole, allClusterRoles: readonly ClusterRole[]): PolicyRule[] {
  const memo = new Map<string, PolicyRule[]>();
  return resolve(clusterRole, [...allClusterRoles].sort(byName), memo, new Set());
}

function resolve(
  role: ClusterRole,
  sorted: readonly ClusterRole[],
  memo: Map<string, PolicyRule[]>,
  visiting: Set<string>,
): PolicyRule[] {
  const name = role.metadata?.name ?? '';
  if (!role.aggregationRule) return role.rules ?? [];
  const known = memo.get(name);
  if (known) return known;
  if (visiting.has(name)) return role.rules ?? [];
  visiting.add(name);
  const rules: PolicyRule[] = [];
  // Each distinct rule once, the first time it comes (admin gathers hundreds: no pairwise compare).
  const seen = new Set<string>();
  for (const selector of selectorsOf(role)) {
    for (const other of sorted) {
      const otherName = other.metadata?.name ?? '';
      if (otherName === name || !selector.matches(other.metadata?.labels)) continue;
      for (const rule of resolve(other, sorted, memo, visiting)) {
        const key = ruleKey(rule);
        if (seen.has(key)) continue;
        seen.add(key);
        rules.push(rule);
      }
    }
  }
  visiting.delete(name);
  memo.set(name, rules);
  return rules;
}

/**
 * The effective rules of every ClusterRole by name, with aggregation applied
 * (one pass over all roles, sharing work between them).
 */
export function effectiveClusterRoleRules(allClusterRoles: readonly ClusterRole[]): Map<string, PolicyRule[]> {
  const sorted = [...allClusterRoles].sort(byName);
  const memo = new Map<string, PolicyRule[]>();
  const out = new Map<string, PolicyRule[]>();
  for (const role of sorted) out.set(role.metadata?.name ?? '', resolve(role, sorted, memo, new Set()));
  return out;
}

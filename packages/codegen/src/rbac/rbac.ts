/**
 * `+kubebuilder:rbac` markers to a ClusterRole (and a Role per namespace), with
 * controller-gen's normalisation (pkg/rbac/parser.go): one rule per resource,
 * rules with the same groups, resources, names and URLs join their verbs, then
 * rules that differ only in resources, then only in groups, then only in URLs
 * are merged; lists are sorted and deduplicated, `*` verbs stand alone, and the
 * rules are sorted by their key.
 */
import type { ArgValue } from '../markers/arguments.js';
import type { MarkerValue } from '../markers/definition.js';

interface Rule {
  groups: string[];
  resources: string[];
  resourceNames: string[];
  verbs: string[];
  urls: string[];
}

const uniqSorted = (xs: readonly string[]): string[] => [...new Set(xs)].sort();

function normalize(r: Rule): void {
  r.groups = uniqSorted(r.groups);
  r.resources = uniqSorted(r.resources);
  r.resourceNames = uniqSorted(r.resourceNames);
  r.verbs = uniqSorted(r.verbs);
  r.urls = uniqSorted(r.urls);
}

type Part = 'groups' | 'resources' | 'resourceNames' | 'urls' | 'verbs';
const join = (r: Rule, parts: readonly Part[]): string => parts.map((p) => r[p].join('&')).join(' + ');
const KEY: readonly Part[] = ['groups', 'resources', 'resourceNames', 'urls'];

/** Merges rules that agree on every part but `merged`. */
function mergeOn(rules: Rule[], merged: Part): Rule[] {
  const others = (['groups', 'resources', 'resourceNames', 'urls', 'verbs'] as const).filter((p) => p !== merged);
  const buckets = new Map<string, Rule>();
  for (const r of rules) {
    normalize(r);
    const key = join(r, others);
    const into = buckets.get(key);
    if (into) into[merged] = [...into[merged], ...r[merged]];
    else buckets.set(key, r);
  }
  const out = new Map<string, Rule>();
  for (const r of buckets.values()) {
    normalize(r);
    out.set(join(r, KEY), r);
  }
  return [...out.values()];
}

function normalizeRules(rules: Rule[]): Record<string, unknown>[] {
  const byKey = new Map<string, Rule>();
  for (const r of rules) {
    r.groups = r.groups.map((g) => (g === 'core' ? '' : g));
    normalize(r);
    const key = join(r, KEY);
    const existing = byKey.get(key);
    if (existing) existing.verbs = uniqSorted([...existing.verbs, ...r.verbs]);
    else byKey.set(key, r);
  }
  let merged = mergeOn([...byKey.values()], 'resources');
  merged = mergeOn(merged, 'groups');
  merged = mergeOn(merged, 'urls');
  merged.sort((a, b) => {
    const ka = join(a, KEY);
    const kb = join(b, KEY);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
  return merged.map((r) => {
    const verbs = r.verbs.includes('*') ? ['*'] : r.verbs;
    const rule: Record<string, unknown> = {};
    if (r.groups.length > 0) rule.apiGroups = r.groups;
    if (r.urls.length > 0) rule.nonResourceURLs = r.urls;
    if (r.resourceNames.length > 0) rule.resourceNames = r.resourceNames;
    if (r.resources.length > 0) rule.resources = r.resources;
    rule.verbs = verbs;
    return rule;
  });
}

/** The roles the markers describe: the ClusterRole first, then Roles by namespace and name. */
export function generateRoles(markers: readonly MarkerValue[], roleName: string): Record<string, unknown>[] {
  const byRole = new Map<string, { namespace: string; name: string; rules: Rule[] }>();
  for (const m of markers) {
    const a = m.value as Record<string, ArgValue>;
    const strings = (k: string): string[] => ((a[k] as string[] | undefined) ?? []).map(String);
    const namespace = (a.namespace as string | undefined) ?? '';
    const name = (a.roleName as string | undefined) || roleName;
    const key = `${namespace}\u0000${name}`;
    let role = byRole.get(key);
    if (!role) byRole.set(key, (role = { namespace, name, rules: [] }));
    const resources = strings('resources');
    const base = { groups: strings('groups'), resourceNames: strings('resourceNames'), verbs: strings('verbs'), urls: strings('urls') };
    if (resources.length === 0) role.rules.push({ ...base, resources: [] });
    for (const resource of resources) role.rules.push({ ...base, groups: [...base.groups], resources: [resource] });
  }
  const roles = [...byRole.values()].sort((a, b) => (a.namespace !== b.namespace ? (a.namespace < b.namespace ? -1 : 1) : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: Record<string, unknown>[] = [];
  for (const role of roles) {
    const rules = normalizeRules(role.rules);
    if (rules.length === 0) continue;
    const metadata: Record<string, string> = role.namespace ? { name: role.name, namespace: role.namespace } : { name: role.name };
    out.push({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: role.namespace ? 'Role' : 'ClusterRole', metadata, rules });
  }
  return out;
}

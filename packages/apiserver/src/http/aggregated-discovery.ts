/**
 * Aggregated discovery (apidiscovery.k8s.io v2 and v2beta1): every resource of
 * every group in one document, so kubectl needs two requests instead of one
 * per group version. Served when the client's Accept asks for it.
 */
import type { ResourceInfo } from '../registry/resource-info.js';
import { byResourceName, compareAggregatedGroups, compareKubeAwareVersions, subresourceKinds } from './discovery.js';

export type AggregatedVersion = 'v2' | 'v2beta1';

/** The aggregated-discovery version the Accept header asks for first, if any. */
export function wantsAggregated(accept: string | undefined): AggregatedVersion | undefined {
  for (const part of (accept ?? '').split(',')) {
    const params = part.split(';').map((s) => s.trim());
    if (!params.includes('g=apidiscovery.k8s.io') || !params.includes('as=APIGroupDiscoveryList')) continue;
    if (params.includes('v=v2')) return 'v2';
    if (params.includes('v=v2beta1')) return 'v2beta1';
  }
  return undefined;
}

export function aggregatedContentType(version: AggregatedVersion): string {
  return `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
}

function resourceEntry(r: ResourceInfo): object {
  // kube converts built-ins from their APIResourceList, whose group and version are empty
  // for the list's own group version; CRDs' discovery names theirs.
  const own = r.custom ? { group: r.group, version: r.version } : { group: '', version: '' };
  const entry: Record<string, unknown> = {
    resource: r.resource,
    // Fields named, not spread: a spread here tripled the cost of building the document.
    responseKind: { group: own.group, version: own.version, kind: r.kind },
    scope: r.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: r.singular,
    verbs: r.verbs,
  };
  if (r.shortNames?.length) entry.shortNames = r.shortNames;
  if (r.categories?.length) entry.categories = r.categories;
  const subs = (r.subresources ?? []).filter((s) => subresourceKinds[s]).sort();
  if (subs.length) {
    entry.subresources = subs.map((s) => {
      const k = subresourceKinds[s];
      return {
        subresource: s,
        responseKind: { group: k.group ?? own.group, version: k.version ?? own.version, kind: k.kind || r.kind },
        verbs: k.verbs,
      };
    });
  }
  return entry;
}

/** `/api` (core only) or `/apis` (every named group) as an APIGroupDiscoveryList. */
export function aggregatedDiscovery(resources: ResourceInfo[], legacy: boolean, version: AggregatedVersion): object {
  const groups = new Map<string, Map<string, ResourceInfo[]>>();
  for (const r of resources) {
    if ((r.group === '') !== legacy) continue;
    let versions = groups.get(r.group);
    if (!versions) groups.set(r.group, (versions = new Map()));
    const list = versions.get(r.version) ?? [];
    list.push(r);
    versions.set(r.version, list);
  }
  const items = [...groups].sort(([a, va], [b, vb]) => compareAggregatedGroups(a, b, [...va.keys()], [...vb.keys()])).map(([group, versions]) => ({
    metadata: { name: group, creationTimestamp: null },
    versions: [...versions]
      .sort(([a], [b]) => compareKubeAwareVersions(b, a))
      .map(([v, list]) => ({ version: v, resources: [...list].sort(byResourceName).map(resourceEntry), freshness: 'Current' })),
  }));
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items };
}

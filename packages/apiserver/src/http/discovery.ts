/**
 * Legacy discovery documents, shaped as kube-apiserver serves them: /api,
 * /apis, /apis/<group>, and the APIResourceList of each group version.
 */
import { createHash } from 'node:crypto';
import { apiVersionOf } from '@operant/apimachinery';
import type { ResourceInfo } from '../registry/resource-info.js';
import { builtinApiServicePriority } from '../registry/apiservice-priorities.js';

/** The kind, group and version a subresource exchanges, and its verbs. */
export const subresourceKinds: Record<string, { kind: string; group?: string; version?: string; verbs: string[] }> = {
  status: { kind: '', verbs: ['get', 'patch', 'update'] },
  scale: { kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'] },
  token: { kind: 'TokenRequest', group: 'authentication.k8s.io', version: 'v1', verbs: ['create'] },
  binding: { kind: 'Binding', verbs: ['create'] },
  finalize: { kind: '', verbs: ['update'] },
  eviction: { kind: 'Eviction', group: 'policy', version: 'v1', verbs: ['create'] },
  log: { kind: '', verbs: ['get'] },
  approval: { kind: '', verbs: ['get', 'patch', 'update'] },
};

/** A built-in group version's groupPriorityMinimum, as kube registers its APIService. */
function versionGroupPriority(group: string, version: string): number | undefined {
  return builtinApiServicePriority(`${group}/${version}`)?.group;
}
/** What kube's crdregistration gives a CRD's group: below every built-in group. */
const crdGroupPriority = 1000;
/** The aggregator's own group, which kube lists before all others. */
const aggregatorGroup = 'apiregistration.k8s.io';

/**
 * The order of groups in /apis, as kube-aggregator sorts their APIServices
 * (SortedByGroupAndVersion): its own group first, then by groupPriorityMinimum,
 * highest first (CRD groups have 1000), equal priorities by APIService name,
 * `<version>.<group>`; a group comes where its first APIService does.
 * `versions` are each group's served versions.
 */
export function compareGroups(a: string, b: string, versionsA: readonly string[], versionsB: readonly string[]): number {
  if (a === b) return 0;
  if (a === aggregatorGroup || b === aggregatorGroup) return a === aggregatorGroup ? -1 : 1;
  const ka = groupSortKey(a, versionsA);
  const kb = groupSortKey(b, versionsB);
  if (ka.priority !== kb.priority) return kb.priority - ka.priority;
  return ka.name < kb.name ? -1 : ka.name > kb.name ? 1 : a < b ? -1 : 1;
}

/**
 * The order of groups in aggregated discovery (as=APIGroupDiscoveryList),
 * which kube's discovery ResourceManager sorts apart from /apis
 * (calculateAPIGroupsLocked): the aggregator's group first, then by the
 * highest groupPriorityMinimum of a group's versions, equal priorities by
 * group name (not by APIService name, as /apis does).
 */
export function compareAggregatedGroups(a: string, b: string, versionsA: readonly string[], versionsB: readonly string[]): number {
  if (a === b) return 0;
  if (a === aggregatorGroup || b === aggregatorGroup) return a === aggregatorGroup ? -1 : 1;
  const pa = groupSortKey(a, versionsA).priority;
  const pb = groupSortKey(b, versionsB).priority;
  if (pa !== pb) return pb - pa;
  return a < b ? -1 : 1;
}

/** The priority and name of a group's first APIService in kube-aggregator's order. */
function groupSortKey(group: string, versions: readonly string[]): { priority: number; name: string } {
  let priority = -Infinity;
  let name = '';
  for (const v of versions) {
    const p = versionGroupPriority(group, v) ?? crdGroupPriority;
    const n = `${v}.${group}`;
    if (p > priority || (p === priority && n < name)) {
      priority = p;
      name = n;
    }
  }
  return { priority: priority === -Infinity ? crdGroupPriority : priority, name: name || group };
}

/** kube lists a group version's resources sorted by name. */
export function byResourceName(a: ResourceInfo, b: ResourceInfo): number {
  return a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0;
}

export function apiVersions(serverAddress: string): object {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupEntry(group: string, versions: string[]): object {
  const list = versions.map((v) => ({ groupVersion: `${group}/${v}`, version: v }));
  return { name: group, versions: list, preferredVersion: list[0] };
}

const kubeVersion = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/**
 * apimachinery's CompareKubeAwareVersionStrings: positive when `a` has the higher
 * priority. GA before beta before alpha, then higher major and minor numbers first
 * (v2, v1, v1beta2, v1beta1, v1alpha1); kube-like versions before others, which
 * sort alphabetically.
 */
export function compareKubeAwareVersions(a: string, b: string): number {
  if (a === b) return 0;
  const ma = kubeVersion.exec(a);
  const mb = kubeVersion.exec(b);
  if (!ma && !mb) return a < b ? 1 : -1;
  if (!ma) return -1;
  if (!mb) return 1;
  const type = (m: RegExpExecArray): number => (m[2] === 'alpha' ? 0 : m[2] === 'beta' ? 1 : 2);
  if (type(ma) !== type(mb)) return type(ma) - type(mb);
  if (ma[1] !== mb[1]) return Number(ma[1]) - Number(mb[1]);
  return Number(ma[3] ?? 0) - Number(mb[3] ?? 0);
}

/**
 * The groups served, each with its versions, preferred first: kube sorts a group's
 * versions by priority (a CRD's v1 is preferred over its v1beta1, whatever the
 * order of spec.versions).
 */
export function servedGroups(resources: ResourceInfo[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const r of resources) {
    if (r.group === '') continue;
    const versions = groups.get(r.group) ?? [];
    if (!versions.includes(r.version)) versions.push(r.version);
    groups.set(r.group, versions);
  }
  for (const versions of groups.values()) versions.sort((a, b) => compareKubeAwareVersions(b, a));
  return new Map([...groups].sort(([a, va], [b, vb]) => compareGroups(a, b, va, vb)));
}

export function apiGroupList(resources: ResourceInfo[]): object {
  const groups = [...servedGroups(resources)].map(([g, v]) => groupEntry(g, v));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

export function apiGroup(resources: ResourceInfo[], group: string): object | undefined {
  const versions = servedGroups(resources).get(group);
  return versions ? { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(group, versions) } : undefined;
}

/**
 * kube's storageVersionHash: the first 8 bytes of sha256("<group>/<version>/<kind>")
 * of the version the resource is stored as, in base64, so clients can tell when
 * a resource's storage version changes. Resources that are never stored have none.
 */
export function storageVersionHash(r: ResourceInfo): string | undefined {
  if (r.virtual) return undefined;
  // events.k8s.io Events are stored as core v1 Events, as in kube.
  const [group, version] = r.group === 'events.k8s.io' && r.resource === 'events' ? ['', 'v1'] : [r.group, r.custom?.storageVersion ?? r.version];
  return createHash('sha256').update(`${group}/${version}/${r.kind}`).digest().subarray(0, 8).toString('base64');
}

export function apiResourceList(resources: ResourceInfo[], group: string, version: string): object | undefined {
  const inVersion = resources.filter((r) => r.group === group && r.version === version).sort(byResourceName);
  if (inVersion.length === 0) return undefined;
  const list: object[] = [];
  for (const r of inVersion) {
    const entry: Record<string, unknown> = {
      name: r.resource,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: r.verbs,
    };
    if (r.shortNames?.length) entry.shortNames = r.shortNames;
    if (r.categories?.length) entry.categories = r.categories;
    const hash = storageVersionHash(r);
    if (hash) entry.storageVersionHash = hash;
    list.push(entry);
    for (const sub of [...(r.subresources ?? [])].sort()) {
      const s = subresourceKinds[sub];
      if (!s) continue;
      const subEntry: Record<string, unknown> = { name: `${r.resource}/${sub}`, singularName: '', namespaced: r.namespaced, kind: s.kind || r.kind, verbs: s.verbs };
      if (s.group !== undefined) subEntry.group = s.group;
      if (s.version !== undefined) subEntry.version = s.version;
      list.push(subEntry);
    }
  }
  // By full name, subresources included, as kube lists them.
  list.sort((a, b) => {
    const [x, y] = [(a as { name: string }).name, (b as { name: string }).name];
    return x < y ? -1 : x > y ? 1 : 0;
  });
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: apiVersionOf(group, version), resources: list };
}

/**
 * Generates `test/testdata/kube-1.32-api-resources.json`: the rows `kubectl
 * api-resources -o wide` prints against a Kubernetes 1.32 cluster with its
 * default API set (NAME, SHORTNAMES, APIVERSION, NAMESPACED, KIND, VERBS,
 * CATEGORIES), which api-resources-1.32.test.ts compares the embedded server
 * (and the real kubectl against it) with.
 *
 * Sources (see scripts/upstream/kube-discovery/README.md):
 * - kube-apiserver's own discovery documents, as kubernetes/kubernetes keeps
 *   them under api/discovery/ (written from a running kube-apiserver with
 *   every API on): `aggregated_v2.json` for the named groups and
 *   `api__v1.json` for the core group, at a commit of the 1.32 development
 *   line's start (flowcontrol.apiserver.k8s.io/v1beta3 still served, which
 *   1.32 removed; resource.k8s.io/v1alpha3 served, which 1.31 added), and a
 *   later `aggregated_v2.json` (coordination.k8s.io/v1beta1 served, added in
 *   1.33) in which every earlier GA resource must be unchanged, so 1.32, between
 *   them, is the same;
 * - the kubectl 1.32 binary, whose embedded protobuf descriptors are
 *   k8s.io/api v0.32's: they say which kinds each GA group version has in 1.32.
 *
 * A default 1.32 cluster serves the GA group versions (no beta API is on by
 * default any more). GA resources are never removed, so every GA resource of
 * the snapshot is served by 1.32; that 1.32 serves no other is checked against
 * the kubectl 1.32 kinds (every listable kind of a GA package must have a row,
 * and every listable row a kind): the script fails rather than guess. The
 * rows are chosen per group as client-go's ServerPreferredResources does (the
 * preferred version's resource, else the first version's) and sorted as
 * kubectl sorts them (group, then name).
 *
 *   node --conditions=source --import tsx packages/apiserver/scripts/gen-api-resources.ts [kubectl-1.32-binary]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { descriptorsIn } from './proto-descriptors-in-binary.js';

const here = dirname(fileURLToPath(import.meta.url));
const upstream = join(here, 'upstream', 'kube-discovery');
export const apiResourcesFile = join(here, '..', 'test', 'testdata', 'kube-1.32-api-resources.json');
export const defaultKubectl132 = '/usr/lib/google-cloud-sdk/bin/kubectl.1.32';

/** The snapshot files and what pins them (checked when the script runs). */
const snapshot = {
  aggregated: 'aggregated_v2.0209a4cb.json',
  core: 'api__v1.7c554ea1.json',
  /** A later aggregated document (after 1.32), to bound 1.32 from the other side. */
  later: 'aggregated_v2.9d2a8fb7.json',
};

/** One row of `kubectl api-resources -o wide`. */
export interface ApiResourceRow {
  name: string;
  shortNames: string[];
  apiVersion: string;
  namespaced: boolean;
  kind: string;
  /** Sorted, as kubectl prints them. */
  verbs: string[];
  categories: string[];
}

interface Resource {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  shortNames: string[];
  categories: string[];
}

interface AggregatedResource {
  resource: string;
  responseKind: { kind: string };
  scope: 'Namespaced' | 'Cluster';
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
}
interface AggregatedList {
  items: Array<{ metadata: { name: string }; versions: Array<{ version: string; resources: AggregatedResource[] }> }>;
}
interface LegacyList {
  groupVersion: string;
  resources: Array<{ name: string; kind: string; namespaced: boolean; verbs: string[]; shortNames?: string[]; categories?: string[] }>;
}

const isGA = (version: string): boolean => /^v\d+$/.test(version);
const readJson = <T>(file: string): T => JSON.parse(readFileSync(join(upstream, file), 'utf8')) as T;

/** `apps` -> `k8s.io.api.apps.v1`; `rbac.authorization.k8s.io` -> `k8s.io.api.rbac.v1`; core -> `k8s.io.api.core.v1`. */
const protoPackage = (group: string, version: string): string => `k8s.io.api.${group === '' ? 'core' : group.split('.')[0]}.${version}`;

/** The GA group versions of an aggregated document, each with its resources. */
function gaGroupVersions(aggregated: AggregatedList): Array<{ group: string; version: string; resources: Resource[] }> {
  const out: Array<{ group: string; version: string; resources: Resource[] }> = [];
  for (const g of aggregated.items) {
    for (const v of g.versions) {
      if (!isGA(v.version)) continue;
      out.push({
        group: g.metadata.name,
        version: v.version,
        resources: v.resources.map((r) => ({
          name: r.resource,
          kind: r.responseKind.kind,
          namespaced: r.scope === 'Namespaced',
          verbs: r.verbs,
          shortNames: r.shortNames ?? [],
          categories: r.categories ?? [],
        })),
      });
    }
  }
  return out;
}

/** The GA group versions of the snapshot, each with its resources (no subresources), in discovery order. */
function snapshotGroupVersions(): Array<{ group: string; version: string; resources: Resource[] }> {
  const aggregated = readJson<AggregatedList>(snapshot.aggregated);
  const core = readJson<LegacyList>(snapshot.core);
  const groups = aggregated.items.map((g) => g.metadata.name);
  // The pins: this snapshot predates 1.32 (flowcontrol v1beta3, removed in 1.32, is served) and is of 1.31's line or later.
  const versionsOf = (group: string): string[] => aggregated.items.find((g) => g.metadata.name === group)?.versions.map((v) => v.version) ?? [];
  if (!versionsOf('flowcontrol.apiserver.k8s.io').includes('v1beta3')) throw new Error(`${snapshot.aggregated}: flowcontrol v1beta3 is not served; not a pre-1.32 snapshot`);
  if (!versionsOf('resource.k8s.io').includes('v1alpha3')) throw new Error(`${snapshot.aggregated}: resource.k8s.io/v1alpha3 is not served; older than 1.31's line`);
  if (!groups.length || core.groupVersion !== 'v1') throw new Error('unexpected snapshot shape');

  const out: Array<{ group: string; version: string; resources: Resource[] }> = [];
  out.push({
    group: '',
    version: 'v1',
    resources: core.resources
      .filter((r) => !r.name.includes('/'))
      .map((r) => ({ name: r.name, kind: r.kind, namespaced: r.namespaced, verbs: r.verbs, shortNames: r.shortNames ?? [], categories: r.categories ?? [] })),
  });
  out.push(...gaGroupVersions(aggregated));
  return out;
}

/**
 * The later snapshot against the earlier one: a GA resource of the earlier is in the later
 * with the same kind, scope, verbs, short names and categories (so 1.32, between them, has
 * those too), and a GA resource only the later has is of a kind kubectl 1.32 does not know.
 */
function laterSnapshotProblems(earlier: ReadonlyArray<{ group: string; version: string; resources: Resource[] }>, kinds: ReadonlyMap<string, Set<string>>): string[] {
  const later = readJson<AggregatedList>(snapshot.later);
  const coordination = later.items.find((g) => g.metadata.name === 'coordination.k8s.io')?.versions.map((v) => v.version) ?? [];
  if (!coordination.includes('v1beta1')) return [`${snapshot.later}: coordination.k8s.io/v1beta1 (added in 1.33) is not served; not a post-1.32 snapshot`];
  const laterGvs = gaGroupVersions(later);
  const problems: string[] = [];
  const laterByKey = new Map<string, Resource>(laterGvs.flatMap((gv) => gv.resources.map((r) => [`${gv.group}/${gv.version}/${r.name}`, r] as const)));
  const earlierKeys = new Set<string>();
  for (const gv of earlier) {
    if (gv.group === '') continue; // the later document has no core group
    for (const r of gv.resources) {
      const key = `${gv.group}/${gv.version}/${r.name}`;
      earlierKeys.add(key);
      const l = laterByKey.get(key);
      if (!l) problems.push(`${key}: served before 1.32, gone later`);
      else if (JSON.stringify(l) !== JSON.stringify(r)) problems.push(`${key}: changed around 1.32: ${JSON.stringify(r)} -> ${JSON.stringify(l)}`);
    }
  }
  for (const gv of laterGvs) {
    for (const r of gv.resources) {
      const key = `${gv.group}/${gv.version}/${r.name}`;
      if (earlierKeys.has(key)) continue;
      if (kinds.get(protoPackage(gv.group, gv.version))?.has(r.kind)) problems.push(`${key}: a 1.32 kind served later, not in the earlier snapshot`);
    }
  }
  return problems;
}

/** Per proto package of kubectl 1.32: the kinds that have a List kind (the ones a resource serves). */
function listableKinds(kubectl: string, packages: ReadonlySet<string>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const file of descriptorsIn(kubectl, (pkg) => packages.has(pkg))) {
    const names = new Set(file.messages.filter((m) => m.fullName === `${file.pkg}.${m.shortName}`).map((m) => m.shortName));
    const kinds = out.get(file.pkg) ?? new Set<string>();
    for (const n of names) if (names.has(`${n}List`)) kinds.add(n);
    out.set(file.pkg, kinds);
  }
  return out;
}

/** The rows, checked against the kubectl 1.32 kinds; throws on any disagreement. */
export function deriveApiResources(kubectl = defaultKubectl132): { source: Record<string, string>; rows: ApiResourceRow[] } {
  const gvs = snapshotGroupVersions();
  // apiextensions and apiregistration types are not linked into kubectl: those groups are taken as the snapshot has them.
  const checked = gvs.filter((gv) => gv.group !== 'apiextensions.k8s.io' && gv.group !== 'apiregistration.k8s.io');
  // The later snapshot's GA packages too, to tell its additions from 1.32's kinds.
  const laterPackages = gaGroupVersions(readJson<AggregatedList>(snapshot.later)).map((gv) => protoPackage(gv.group, gv.version));
  const kinds = listableKinds(kubectl, new Set([...checked.map((gv) => protoPackage(gv.group, gv.version)), ...laterPackages]));
  const problems: string[] = [];
  for (const gv of checked) {
    const pkg = protoPackage(gv.group, gv.version);
    const known = kinds.get(pkg);
    if (!known) {
      problems.push(`${pkg}: not in ${kubectl}`);
      continue;
    }
    const listed = new Set(gv.resources.filter((r) => r.verbs.includes('list')).map((r) => r.kind));
    for (const k of listed) if (!known.has(k)) problems.push(`${gv.group}/${gv.version} ${k}: served by the snapshot, no such kind in kubectl 1.32`);
    for (const k of known) if (!listed.has(k)) problems.push(`${gv.group}/${gv.version} ${k}: a kind of 1.32 the snapshot does not serve`);
  }
  problems.push(...laterSnapshotProblems(gvs, kinds));
  if (problems.length > 0) throw new Error(`the snapshots and kubectl 1.32 disagree:\n${problems.join('\n')}`);

  // client-go's ServerPreferredResources: per group, the preferred (first) version's resource, else the first version that has it.
  const rows = new Map<string, ApiResourceRow & { group: string }>();
  for (const gv of gvs) {
    for (const r of gv.resources) {
      const key = `${gv.group}/${r.name}`;
      if (rows.has(key)) continue;
      rows.set(key, {
        group: gv.group,
        name: r.name,
        shortNames: r.shortNames,
        apiVersion: gv.group === '' ? gv.version : `${gv.group}/${gv.version}`,
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: [...r.verbs].sort(),
        categories: r.categories,
      });
    }
  }
  const sorted = [...rows.values()].sort((a, b) => (a.group !== b.group ? (a.group < b.group ? -1 : 1) : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    source: {
      'kubernetes/kubernetes api/discovery/aggregated_v2.json': '0209a4cb57a359609b96779f044bcdff8e8df70d',
      'kubernetes/kubernetes api/discovery/api__v1.json': '7c554ea1d91eddac32fcd89f37d7ed0347e1f311',
      'bounded above by kubernetes/kubernetes api/discovery/aggregated_v2.json': '9d2a8fb7c431f0cf55f9671ca9502e5b1fc151ff',
      'kinds checked against': 'kubectl v1.32 (k8s.io/api v0.32 protobuf descriptors)',
    },
    rows: sorted.map(({ group: _group, ...row }) => row),
  };
}

/** A subresource as a legacy APIResourceList lists it (`group`/`version` only when they differ from the list's). */
export interface SubresourceEntry {
  apiVersion: string;
  name: string;
  kind: string;
  group?: string;
  version?: string;
  verbs: string[];
}

/** The subresources of every GA group version of the snapshot, in the legacy shape. */
export function snapshotSubresources(): SubresourceEntry[] {
  const aggregated = readJson<AggregatedList & { items: Array<{ versions: Array<{ resources: Array<AggregatedResource & { subresources?: Array<{ subresource: string; responseKind: { group: string; version: string; kind: string }; verbs: string[] }> }> }> }> }>(snapshot.aggregated);
  const core = readJson<LegacyList>(snapshot.core);
  const out: SubresourceEntry[] = core.resources
    .filter((r) => r.name.includes('/'))
    .map((r) => {
      const { group, version } = r as { group?: string; version?: string };
      return { apiVersion: 'v1', name: r.name, kind: r.kind, ...(group !== undefined ? { group } : {}), ...(version !== undefined ? { version } : {}), verbs: r.verbs };
    });
  for (const g of aggregated.items) {
    for (const v of g.versions) {
      if (!isGA(v.version)) continue;
      for (const r of v.resources) {
        for (const sub of r.subresources ?? []) {
          const k = sub.responseKind;
          out.push({
            apiVersion: `${g.metadata.name}/${v.version}`,
            name: `${r.resource}/${sub.subresource}`,
            kind: k.kind,
            ...(k.group ? { group: k.group } : {}),
            ...(k.version ? { version: k.version } : {}),
            verbs: sub.verbs,
          });
        }
      }
    }
  }
  return out;
}

/** The file's text for a derivation. */
export function apiResourcesText(derived: ReturnType<typeof deriveApiResources>): string {
  return `${JSON.stringify(derived, null, 1)}\n`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const derived = deriveApiResources(process.argv[2] ?? defaultKubectl132);
  writeFileSync(apiResourcesFile, apiResourcesText(derived));
  console.log(`wrote ${derived.rows.length} rows to ${apiResourcesFile}`);
}

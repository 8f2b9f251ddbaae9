/**
 * The objects every cluster starts with: the default, kube-system, kube-public and kube-node-lease
 * namespaces, the default RBAC policy, the system PriorityClasses and the priority-and-fairness
 * bootstrap configuration.
 */
import { StatusError, type KubeObject } from '@operant/apimachinery';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles } from './auth/rbac/bootstrap-policy.js';
import type { ResourceCatalog } from './registry/catalog.js';
import type { ResourceStore } from './registry/resource-store.js';
import { systemPriorityClasses } from './registry/scheduling-strategies.js';
import { ensureFlowcontrolBootstrap } from './registry/flowcontrol-bootstrap.js';
import { precomputedManagedFields } from './bootstrap-managed-fields.js';

const initialNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** How the bootstrap objects are written: see {@link bootstrap}. */
export type BootstrapWrites = 'auto' | 'full';

/** The bootstrap objects, in the order they are created: resource (group/resource) and objects. */
function bootstrapObjects(): Array<{ group: string; version: string; resource: string; objects: KubeObject[] }> {
  const rbac = 'rbac.authorization.k8s.io';
  return [
    { group: rbac, version: 'v1', resource: 'clusterroles', objects: bootstrapClusterRoles() as unknown as KubeObject[] },
    { group: rbac, version: 'v1', resource: 'clusterrolebindings', objects: bootstrapClusterRoleBindings() as unknown as KubeObject[] },
    {
      group: 'scheduling.k8s.io',
      version: 'v1',
      resource: 'priorityclasses',
      objects: systemPriorityClasses.map(({ name, value, description }) => ({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value, description }) as KubeObject),
    },
    { group: '', version: 'v1', resource: 'namespaces', objects: initialNamespaces.map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }) as KubeObject) },
  ];
}

/**
 * Creates the bootstrap objects that are missing (a restart on a data dir finds
 * them there, and keeps them as they are). On a new, empty store they are
 * written by {@link ResourceStore.createBuiltIn}, which stores them exactly as
 * the full write path would (nothing can have configured admission yet), with
 * the managedFields computed ahead of time (bootstrap-managed-fields.ts);
 * otherwise, or with `writes: 'full'`, through the full path.
 */
export async function bootstrap(catalog: ResourceCatalog, writes: BootstrapWrites = 'auto'): Promise<void> {
  const sets = bootstrapObjects().map((s) => ({ rs: catalog.lookup(s.group, s.version, s.resource)!, objects: s.objects }));
  // Revision 1 is where every store starts: nothing was ever written to it.
  const newStore = sets[0]!.rs.mvcc.revision === 1;
  for (const { rs, objects } of sets) {
    for (const obj of objects) {
      // Already there: the create would be refused with a 409, which bootstrap ignores.
      if (rs.mvcc.get(rs.key('', obj.metadata.name!))) continue;
      if (writes === 'auto' && newStore) rs.createBuiltIn(obj, undefined, precomputedManagedFields(rs.info.group, rs.info.resource, obj.metadata.name!));
      else await ignoreExisting(rs.create('', obj, { dryRun: false, fieldValidation: 'Ignore' }));
    }
  }
  // Priority and fairness: kube's ensurer, which also restores a changed object while it auto-updates.
  await ensureFlowcontrolBootstrap(catalog, writes === 'auto' && newStore);
  await sets[0]!.rs.mvcc.durable();
}

/**
 * The `kubernetes` Service in `default`, its Endpoints and its EndpointSlice,
 * pointing at this server, as every cluster has them (rewritten at each start: the port may change).
 * `builtIn`: the store is new and nothing but the bootstrap objects was written to it (so no
 * admission webhook, quota or existing object can be in the way): they are written as the
 * bootstrap objects are, by {@link ResourceStore.createBuiltIn} (the bootstrap test compares
 * both ways byte for byte).
 */
export async function ensureKubernetesService(catalog: ResourceCatalog, host: string, port: number, builtIn = false): Promise<void> {
  const services = catalog.lookup('', 'v1', 'services')!;
  const endpoints = catalog.lookup('', 'v1', 'endpoints')!;
  const labels = { component: 'apiserver', provider: 'kubernetes' };
  const service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'kubernetes', namespace: 'default', labels },
    spec: { type: 'ClusterIP', clusterIP: '10.96.0.1', ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: port }] },
  };
  const ep = {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
    subsets: [{ addresses: [{ ip: host }], ports: [{ name: 'https', port, protocol: 'TCP' }] }],
  };
  if (builtIn) {
    const slices = catalog.lookup('discovery.k8s.io', 'v1', 'endpointslices')!;
    for (const [rs, obj] of [[services, service], [endpoints, ep], [slices, kubernetesEndpointSlice(host, port)]] as const) {
      rs.createBuiltIn(obj as KubeObject, undefined, precomputedManagedFields(rs.info.group, rs.info.resource, 'kubernetes'));
    }
    return;
  }
  await createOrPatch(services, service, { spec: { ports: service.spec.ports } });
  await createOrPatch(endpoints, ep, { subsets: ep.subsets });
  // kube-apiserver's endpoints adapter keeps an EndpointSlice beside the Endpoints (endpointSliceFromEndpoints).
  const slice = kubernetesEndpointSlice(host, port);
  await createOrPatch(catalog.lookup('discovery.k8s.io', 'v1', 'endpointslices')!, slice, {
    metadata: { labels: slice.metadata.labels },
    endpoints: slice.endpoints,
    ports: slice.ports,
  });
}

/**
 * Creates `default/kubernetes` when it is not there (a create that would answer 409 goes through
 * the whole write path first), else merge-patches it, as a restart on a data dir finds it.
 */
async function createOrPatch(rs: ResourceStore, obj: object, patch: object): Promise<void> {
  const opts = { dryRun: false, fieldValidation: 'Ignore' as const };
  if (!rs.mvcc.get(rs.key('default', 'kubernetes'))) {
    try {
      await rs.create('default', obj as KubeObject, opts);
      return;
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 409)) throw e;
    }
  }
  await rs.patch('default', 'kubernetes', 'application/merge-patch+json', Buffer.from(JSON.stringify(patch)), opts);
}

/** The `kubernetes` EndpointSlice, pointing at the server. */
function kubernetesEndpointSlice(host: string, port: number) {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { 'kubernetes.io/service-name': 'kubernetes' } },
    // The host is an address the server listens on: only an IPv6 one holds a colon (net.isIPv6 compiles a
    // large regular expression at its first call, a few milliseconds of every start).
    addressType: host.includes(':') ? 'IPv6' : 'IPv4',
    endpoints: [{ addresses: [host], conditions: { ready: true } }],
    ports: [{ name: 'https', port, protocol: 'TCP' }],
  };
}

/** Awaits a create that may find its object there already (a restart with --data-dir). */
async function ignoreExisting(create: Promise<unknown>): Promise<void> {
  try {
    await create;
  } catch (e) {
    if (!(e instanceof StatusError && e.code === 409)) throw e;
  }
}

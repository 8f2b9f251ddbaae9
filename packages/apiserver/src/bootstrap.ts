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
import { nowTimestamp } from './registry/object-meta.js';
import { fillConditionTimes, fillKubernetesAddress, kubernetesAddressType, precomputedBootstrap, type PrecomputedBootstrap, type PrecomputedObject } from './bootstrap-objects.js';

const initialNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/**
 * The parts of bootstrap-objects.json that bootstrap() parsed for a new store and did not store, by
 * server (catalog): fresh objects, which ensureKubernetesService takes instead of parsing the file again.
 */
const unusedParts = new WeakMap<ResourceCatalog, Pick<PrecomputedBootstrap, 'kubernetes' | 'controllerWrites'>>();

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
 * them there, and keeps them as they are). A new, empty store gets them as the
 * full write path stored them when bootstrap-objects.json was made (see
 * bootstrap-objects.ts), with this start's uids and times; otherwise, or with
 * `writes: 'full'`, each missing one goes through the full path.
 */
export async function bootstrap(catalog: ResourceCatalog, writes: BootstrapWrites = 'auto'): Promise<void> {
  const first = catalog.lookup('rbac.authorization.k8s.io', 'v1', 'clusterroles')!;
  // Revision 1 is where every store starts: nothing was ever written to it.
  const newStore = first.mvcc.revision === 1;
  if (writes === 'auto' && newStore) {
    const { objects, kubernetes, controllerWrites } = precomputedBootstrap();
    storePrecomputed(catalog, objects);
    // The file's other parts, untouched, for this server's ensureKubernetesService: one parse of it per start.
    unusedParts.set(catalog, { kubernetes, controllerWrites });
    await first.mvcc.durable();
    return;
  }
  // A restart finds them all (bootstrap-objects.json names every one): nothing to build.
  const precomputed = writes === 'auto' ? precomputedBootstrap().objects : [];
  const allThere = precomputed.length > 0 && precomputed.every(({ group, version, resource, object }) => {
    const rs = catalog.lookup(group, version, resource)!;
    return rs.mvcc.get(rs.key(object.metadata.namespace ?? '', object.metadata.name!)) !== undefined;
  });
  if (!allThere) {
    for (const { rs, objects } of bootstrapObjects().map((s) => ({ rs: catalog.lookup(s.group, s.version, s.resource)!, objects: s.objects }))) {
      for (const obj of objects) {
        // Already there: the create would be refused with a 409, which bootstrap ignores.
        if (rs.mvcc.get(rs.key('', obj.metadata.name!))) continue;
        await ignoreExisting(rs.create('', obj, { dryRun: false, fieldValidation: 'Ignore' }));
      }
    }
  }
  // Priority and fairness: kube's ensurer, which also restores a changed object while it auto-updates.
  await ensureFlowcontrolBootstrap(catalog);
  await first.mvcc.durable();
}

/** Stores precomputed objects in their order, each by its resource, with one creation time. */
function storePrecomputed(catalog: ResourceCatalog, objects: readonly PrecomputedObject[], time = nowTimestamp()): void {
  for (const { group, version, resource, object } of objects) catalog.lookup(group, version, resource)!.createPrecomputed(object, time);
}

/**
 * Stores what the server's own controllers write on a new store right after
 * the `kubernetes` Service (autoregister's APIServices, the FlowSchemas'
 * Dangling conditions), as they wrote it
 * when bootstrap-objects.json was made, in the same order: their first passes
 * then find everything as they want it, and write nothing.
 */
function storeControllerWrites(catalog: ResourceCatalog, writes: readonly PrecomputedObject[], time: string): void {
  for (const { group, version, resource, object } of writes) {
    const rs = catalog.lookup(group, version, resource)!;
    fillConditionTimes(object, time);
    if (rs.mvcc.get(rs.key(object.metadata.namespace ?? '', object.metadata.name!))) rs.updatePrecomputed(object, time);
    else rs.createPrecomputed(object, time);
  }
}

/**
 * The `kubernetes` Service in `default`, its Endpoints and its EndpointSlice,
 * pointing at this server, as every cluster has them (rewritten at each start: the port may change).
 * `precomputed`: the store is new and nothing but the bootstrap objects was written to it (so no
 * admission webhook, quota or existing object can be in the way): they are stored as the
 * bootstrap objects are, from bootstrap-objects.json with this server's address, followed by
 * what the server's controllers would write next (the bootstrap test compares both ways byte for byte).
 */
export async function ensureKubernetesService(catalog: ResourceCatalog, host: string, port: number, precomputed = false): Promise<void> {
  // Taken in any case: they are for this call only.
  const unused = unusedParts.get(catalog);
  unusedParts.delete(catalog);
  if (precomputed) {
    const { kubernetes, controllerWrites } = unused ?? precomputedBootstrap();
    fillKubernetesAddress(kubernetes, host, port);
    const time = nowTimestamp();
    storePrecomputed(catalog, kubernetes, time);
    storeControllerWrites(catalog, controllerWrites, time);
    return;
  }
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
    addressType: kubernetesAddressType(host),
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

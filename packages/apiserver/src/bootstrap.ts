/**
 * The objects every cluster starts with: the default, kube-system, kube-public and kube-node-lease
 * namespaces, the default RBAC policy, the system PriorityClasses and the priority-and-fairness
 * bootstrap configuration.
 */
import { StatusError, type KubeObject } from '@operant/apimachinery';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles } from './auth/rbac/bootstrap-policy.js';
import type { ResourceCatalog } from './registry/catalog.js';
import { systemPriorityClasses } from './registry/scheduling-strategies.js';
import { ensureFlowcontrolBootstrap } from './registry/flowcontrol-bootstrap.js';

const initialNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export async function bootstrap(catalog: ResourceCatalog): Promise<void> {
  await createMissing(catalog, 'clusterroles', bootstrapClusterRoles() as unknown as KubeObject[]);
  await createMissing(catalog, 'clusterrolebindings', bootstrapClusterRoleBindings() as unknown as KubeObject[]);
  const priorityClasses = catalog.lookup('scheduling.k8s.io', 'v1', 'priorityclasses')!;
  for (const { name, value, description } of systemPriorityClasses) {
    const pc = { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value, description };
    await ignoreExisting(priorityClasses.create('', pc, { dryRun: false, fieldValidation: 'Ignore' }));
  }
  await ensureFlowcontrolBootstrap(catalog);
  const namespaces = catalog.lookup('', 'v1', 'namespaces')!;
  for (const name of initialNamespaces) {
    await ignoreExisting(namespaces.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { dryRun: false, fieldValidation: 'Ignore' }));
  }
}

/**
 * The `kubernetes` Service in `default` and its Endpoints, pointing at this
 * server, as every cluster has them (rewritten at each start: the port may change).
 */
export async function ensureKubernetesService(catalog: ResourceCatalog, host: string, port: number): Promise<void> {
  const services = catalog.lookup('', 'v1', 'services')!;
  const endpoints = catalog.lookup('', 'v1', 'endpoints')!;
  const opts = { dryRun: false, fieldValidation: 'Ignore' as const };
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
  try {
    await services.create('default', service, opts);
  } catch (e) {
    if (!(e instanceof StatusError && e.code === 409)) throw e;
    const patch = { spec: { ports: service.spec.ports } };
    await services.patch('default', 'kubernetes', 'application/merge-patch+json', Buffer.from(JSON.stringify(patch)), opts);
  }
  try {
    await endpoints.create('default', ep, opts);
  } catch (e) {
    if (!(e instanceof StatusError && e.code === 409)) throw e;
    await endpoints.patch('default', 'kubernetes', 'application/merge-patch+json', Buffer.from(JSON.stringify({ subsets: ep.subsets })), opts);
  }
}

/** The default RBAC objects every cluster has (kept as they are when they already exist). */
async function createMissing(catalog: ResourceCatalog, resource: string, objects: KubeObject[]): Promise<void> {
  const rs = catalog.lookup('rbac.authorization.k8s.io', 'v1', resource)!;
  for (const obj of objects) await ignoreExisting(rs.create('', obj, { dryRun: false, fieldValidation: 'Ignore' }));
}

/** Awaits a create that may find its object there already (a restart with --data-dir). */
async function ignoreExisting(create: Promise<unknown>): Promise<void> {
  try {
    await create;
  } catch (e) {
    if (!(e instanceof StatusError && e.code === 409)) throw e;
  }
}

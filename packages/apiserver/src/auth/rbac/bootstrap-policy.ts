/**
 * The default ClusterRoles and ClusterRoleBindings every kube cluster has (kube's
 * plugin/pkg/auth/authorizer/rbac/bootstrappolicy), restricted to the roles that make
 * sense without nodes and controllers: cluster-admin, admin/edit/view (aggregated from
 * system:aggregate-to-*), system:discovery, system:basic-user, system:public-info-viewer,
 * system:monitoring, system:auth-delegator and system:service-account-issuer-discovery.
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule } from './attributes.js';
import { aggregatedRules } from './aggregation.js';

const rbacGroup = 'rbac.authorization.k8s.io';
const legacy = '';
const apps = 'apps';
const authentication = 'authentication.k8s.io';
const authorization = 'authorization.k8s.io';
const autoscaling = 'autoscaling';
const batch = 'batch';
const discovery = 'discovery.k8s.io';
const extensions = 'extensions';
const networking = 'networking.k8s.io';
const policy = 'policy';

const read = ['get', 'list', 'watch'];
const write = ['create', 'update', 'patch', 'delete', 'deletecollection'];
const readWrite = [...read, ...write];

/** The label kube puts on every default role and binding. */
export const bootstrappingLabel = { key: 'kubernetes.io/bootstrapping', value: 'rbac-defaults' } as const;
/** The annotation that lets the server reconcile a default role or binding at start. */
export const autoUpdateAnnotation = 'rbac.authorization.kubernetes.io/autoupdate';
/** Labels that put a ClusterRole's rules into admin, edit or view. */
export const aggregateToLabels = {
  admin: 'rbac.authorization.k8s.io/aggregate-to-admin',
  edit: 'rbac.authorization.k8s.io/aggregate-to-edit',
  view: 'rbac.authorization.k8s.io/aggregate-to-view',
} as const;

const sorted = (items: readonly string[]): string[] => [...items].sort();

/** A resource rule as kube's PolicyRuleBuilder makes it (every list sorted). */
function rule(verbs: readonly string[], groups: readonly string[], resources: readonly string[]): PolicyRule {
  return { verbs: sorted(verbs), apiGroups: sorted(groups), resources: sorted(resources) };
}

/** A non-resource rule as kube's PolicyRuleBuilder makes it. */
function urlRule(verbs: readonly string[], urls: readonly string[]): PolicyRule {
  return { verbs: sorted(verbs), nonResourceURLs: sorted(urls) };
}

function clusterRole(name: string, rules: PolicyRule[], labels: Record<string, string> = {}): ClusterRole {
  return {
    apiVersion: `${rbacGroup}/v1`,
    kind: 'ClusterRole',
    metadata: {
      name,
      labels: { ...labels, [bootstrappingLabel.key]: bootstrappingLabel.value },
      annotations: { [autoUpdateAnnotation]: 'true' },
    },
    rules,
  };
}

function aggregatingRole(name: string, selectLabel: string, labels: Record<string, string> = {}): ClusterRole {
  return {
    ...clusterRole(name, [], labels),
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [selectLabel]: 'true' } }] },
  };
}

/**
 * kube's default ClusterRoles (the subset listed in the module doc). admin, edit and view
 * carry their aggregationRule and, as kube's aggregation controller leaves them, the
 * aggregated rules of the system:aggregate-to-* roles.
 */
export function bootstrapClusterRoles(): ClusterRole[] {
  const roles: ClusterRole[] = [
    clusterRole('cluster-admin', [rule(['*'], ['*'], ['*']), urlRule(['*'], ['*'])]),
    clusterRole('system:discovery', [
      urlRule(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/', '/openapi', '/openapi/*', '/api', '/api/*', '/apis', '/apis/*']),
    ]),
    clusterRole('system:monitoring', [
      urlRule(['get'], ['/metrics', '/metrics/slis', '/livez', '/readyz', '/healthz', '/livez/*', '/readyz/*', '/healthz/*']),
    ]),
    clusterRole('system:basic-user', [
      rule(['create'], [authorization], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
      rule(['create'], [authentication], ['selfsubjectreviews']),
    ]),
    clusterRole('system:public-info-viewer', [urlRule(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/'])]),
    aggregatingRole('admin', aggregateToLabels.admin),
    aggregatingRole('edit', aggregateToLabels.edit, { [aggregateToLabels.admin]: 'true' }),
    aggregatingRole('view', aggregateToLabels.view, { [aggregateToLabels.edit]: 'true' }),
    clusterRole(
      'system:aggregate-to-admin',
      [rule(['create'], [authorization], ['localsubjectaccessreviews']), rule(readWrite, [rbacGroup], ['roles', 'rolebindings'])],
      { [aggregateToLabels.admin]: 'true' },
    ),
    clusterRole(
      'system:aggregate-to-edit',
      [
        // Read on resources that allow escalation.
        rule(read, [legacy], ['pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'secrets', 'services/proxy']),
        rule(['impersonate'], [legacy], ['serviceaccounts']),
        rule(write, [legacy], ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
        rule(['create'], [legacy], ['pods/eviction']),
        rule(write, [legacy], [
          'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/proxy',
          'persistentvolumeclaims', 'configmaps', 'secrets', 'events',
        ]),
        rule(['create'], [legacy], ['serviceaccounts/token']),
        rule(write, [apps], [
          'statefulsets', 'statefulsets/scale', 'daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback',
          'replicasets', 'replicasets/scale',
        ]),
        rule(write, [autoscaling], ['horizontalpodautoscalers']),
        rule(write, [batch], ['jobs', 'cronjobs']),
        rule(write, [extensions], [
          'daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'ingresses', 'replicasets',
          'replicasets/scale', 'replicationcontrollers/scale', 'networkpolicies',
        ]),
        rule(write, [policy], ['poddisruptionbudgets']),
        rule(write, [networking], ['networkpolicies', 'ingresses']),
      ],
      { [aggregateToLabels.edit]: 'true' },
    ),
    clusterRole(
      'system:aggregate-to-view',
      [
        rule(read, [legacy], [
          'pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status',
          'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'configmaps',
        ]),
        rule(read, [legacy], [
          'limitranges', 'resourcequotas', 'bindings', 'events', 'pods/status', 'resourcequotas/status', 'namespaces/status',
          'replicationcontrollers/status', 'pods/log',
        ]),
        // Reading namespaces at the namespace scope means reading *this* namespace.
        rule(read, [legacy], ['namespaces']),
        rule(read, [discovery], ['endpointslices']),
        rule(read, [apps], [
          'controllerrevisions', 'statefulsets', 'statefulsets/status', 'statefulsets/scale', 'daemonsets', 'daemonsets/status',
          'deployments', 'deployments/status', 'deployments/scale', 'replicasets', 'replicasets/status', 'replicasets/scale',
        ]),
        rule(read, [autoscaling], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
        rule(read, [batch], ['jobs', 'cronjobs', 'cronjobs/status', 'jobs/status']),
        rule(read, [extensions], [
          'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses',
          'ingresses/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale',
          'networkpolicies',
        ]),
        rule(read, [policy], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
        rule(read, [networking], ['networkpolicies', 'ingresses', 'ingresses/status']),
      ],
      { [aggregateToLabels.view]: 'true' },
    ),
    clusterRole('system:auth-delegator', [
      rule(['create'], [authentication], ['tokenreviews']),
      rule(['create'], [authorization], ['subjectaccessreviews']),
    ]),
    clusterRole('system:service-account-issuer-discovery', [
      urlRule(['get'], ['/.well-known/openid-configuration', '/.well-known/openid-configuration/', '/openid/v1/jwks', '/openid/v1/jwks/']),
    ]),
  ];
  for (const role of roles) if (role.aggregationRule) role.rules = aggregatedRules(role, roles);
  return roles;
}

function clusterRoleBinding(roleName: string, groups: readonly string[]): ClusterRoleBinding {
  return {
    apiVersion: `${rbacGroup}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: {
      name: roleName,
      labels: { [bootstrappingLabel.key]: bootstrappingLabel.value },
      annotations: { [autoUpdateAnnotation]: 'true' },
    },
    roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: roleName },
    subjects: groups.map((name) => ({ apiGroup: rbacGroup, kind: 'Group', name })),
  };
}

/**
 * kube's default ClusterRoleBindings for {@link bootstrapClusterRoles}: cluster-admin to
 * `system:masters`; system:discovery and system:basic-user to `system:authenticated`;
 * system:public-info-viewer to `system:authenticated` and `system:unauthenticated`;
 * system:monitoring to `system:monitoring`; system:service-account-issuer-discovery to
 * `system:serviceaccounts`. Each is named after its ClusterRole.
 */
export function bootstrapClusterRoleBindings(): ClusterRoleBinding[] {
  return [
    clusterRoleBinding('cluster-admin', ['system:masters']),
    clusterRoleBinding('system:monitoring', ['system:monitoring']),
    clusterRoleBinding('system:discovery', ['system:authenticated']),
    clusterRoleBinding('system:basic-user', ['system:authenticated']),
    clusterRoleBinding('system:public-info-viewer', ['system:authenticated', 'system:unauthenticated']),
    clusterRoleBinding('system:service-account-issuer-discovery', ['system:serviceaccounts']),
  ];
}

/**
 * config/rbac: the manager's ServiceAccount and its bindings, leader election,
 * metrics authn/authz, and for each kind the admin/editor/viewer ClusterRoles
 * kubebuilder offers cluster admins (not used by the manager itself).
 */
import { projectLabels, type ProjectInfo, type ResourceInfo } from './types.js';

export const rbacKustomization = `resources:
# All RBAC will be applied under this service account in
# the deployment namespace. You may comment out this resource
# if your manager will use a service account that exists at
# runtime. Be sure to update RoleBinding and ClusterRoleBinding
# subjects if changing service account names.
- service_account.yaml
- role.yaml
- role_binding.yaml
- leader_election_role.yaml
- leader_election_role_binding.yaml
# The following RBAC configurations are used to protect
# the metrics endpoint with authn/authz. These configurations
# ensure that only authorized users and service accounts
# can access the metrics endpoint. Comment the following
# permissions if you want to disable this protection.
# More info: https://book.kubebuilder.io/reference/metrics.html
- metrics_auth_role.yaml
- metrics_auth_role_binding.yaml
- metrics_reader_role.yaml
`;

/** The comment `create api` puts once before the first kind's roles in config/rbac/kustomization.yaml. */
export function kindRolesComment(project: ProjectInfo): string {
  return `For each CRD, "Admin", "Editor" and "Viewer" roles are scaffolded by
default, aiding admins in cluster management. Those roles are
not used by the ${project.projectName} itself. You can comment the following lines
if you do not want those helpers be installed with your Project.`;
}

/** A binding of the manager's ServiceAccount (`subjects` as kubebuilder writes them). */
function binding(kind: 'ClusterRoleBinding' | 'RoleBinding', name: string, roleKind: string, role: string, labels: string): string {
  return `apiVersion: rbac.authorization.k8s.io/v1
kind: ${kind}
metadata:
${labels}  name: ${name}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ${roleKind}
  name: ${role}
subjects:
- kind: ServiceAccount
  name: controller-manager
  namespace: system
`;
}

/** The files `init` writes under config/rbac, by file name. */
export function initialRbacFiles(project: ProjectInfo): Record<string, string> {
  const labels = `  labels:\n${projectLabels(project, '    ')}`;
  return {
    'kustomization.yaml': rbacKustomization,
    'service_account.yaml': `apiVersion: v1
kind: ServiceAccount
metadata:
${labels}  name: controller-manager
  namespace: system
`,
    'role.yaml': `# The manager's permissions. \`npm run manifests\` (operant generate) rewrites this
# file from the controllers' RBAC markers; until then the manager may do nothing.
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
${labels}  name: manager-role
rules: []
`,
    'role_binding.yaml': binding('ClusterRoleBinding', 'manager-rolebinding', 'ClusterRole', 'manager-role', labels),
    'leader_election_role.yaml': `# permissions to do leader election.
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
${labels}  name: leader-election-role
rules:
- apiGroups:
  - ""
  resources:
  - configmaps
  verbs:
  - get
  - list
  - watch
  - create
  - update
  - patch
  - delete
- apiGroups:
  - coordination.k8s.io
  resources:
  - leases
  verbs:
  - get
  - list
  - watch
  - create
  - update
  - patch
  - delete
- apiGroups:
  - ""
  resources:
  - events
  verbs:
  - create
  - patch
`,
    'leader_election_role_binding.yaml': binding('RoleBinding', 'leader-election-rolebinding', 'Role', 'leader-election-role', labels),
    'metrics_auth_role.yaml': `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: metrics-auth-role
rules:
- apiGroups:
  - authentication.k8s.io
  resources:
  - tokenreviews
  verbs:
  - create
- apiGroups:
  - authorization.k8s.io
  resources:
  - subjectaccessreviews
  verbs:
  - create
`,
    'metrics_auth_role_binding.yaml': binding('ClusterRoleBinding', 'metrics-auth-rolebinding', 'ClusterRole', 'metrics-auth-role', ''),
    'metrics_reader_role.yaml': `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: metrics-reader
rules:
- nonResourceURLs:
  - "/metrics"
  verbs:
  - get
`,
  };
}

const kindRoles = {
  admin: {
    verbs: ["'*'"],
    about: (group: string) => `Grants full permissions ('*') over ${group}.
# This role is intended for users authorized to modify roles and bindings within the cluster,
# enabling them to delegate specific permissions to other users or groups as needed.`,
  },
  editor: {
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    about: (group: string) => `Grants permissions to create, update, and delete resources within the ${group}.
# This role is intended for users who need to manage these resources
# but should not control RBAC or manage permissions for others.`,
  },
  viewer: {
    verbs: ['get', 'list', 'watch'],
    about: (group: string) => `Grants read-only access to ${group} resources.
# This role is intended for users who need visibility into these resources
# without permissions to modify them. It is ideal for monitoring purposes and limited-access viewing.`,
  },
};

/** The file name (in config/rbac) and content of each of a kind's helper roles. */
export function kindRoleFiles(project: ProjectInfo, r: ResourceInfo): Record<string, string> {
  const kind = r.kind.toLowerCase();
  const group = r.qualifiedGroup === '' ? '""' : r.qualifiedGroup;
  const files: Record<string, string> = {};
  for (const [role, { verbs, about }] of Object.entries(kindRoles)) {
    files[`${kind}_${role}_role.yaml`] = `# This rule is not used by the project ${project.projectName} itself.
# It is provided to allow the cluster admin to help manage permissions for users.
#
# ${about(r.qualifiedGroup || 'the core group')}

apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  labels:
${projectLabels(project, '    ')}  name: ${kind}-${role}-role
rules:
- apiGroups:
  - ${group}
  resources:
  - ${r.plural}
  verbs:
${verbs.map((v) => `  - ${v}\n`).join('')}- apiGroups:
  - ${group}
  resources:
  - ${r.plural}/status
  verbs:
  - get
`;
  }
  return files;
}

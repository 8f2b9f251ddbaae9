/**
 * rbac.authorization.k8s.io/v1 defaults (k8s.io/kubernetes
 * pkg/apis/rbac/v1/defaults.go at 1.32): a binding's roleRef and its User and
 * Group subjects are in the RBAC group; a ServiceAccount subject is core.
 */
import { asObject, defaultString, objectsAt, type Json } from './json-fields.js';

const rbacGroup = 'rbac.authorization.k8s.io';

/** Fills in a RoleBinding's or ClusterRoleBinding's defaults in place. */
export function defaultRoleBinding(binding: Json): void {
  const roleRef = asObject(binding.roleRef);
  if (roleRef) defaultString(roleRef, 'apiGroup', rbacGroup);
  for (const subject of objectsAt(binding, 'subjects')) {
    // SetDefaults_Subject leaves other kinds alone; ServiceAccount's group is "", which omitempty hides.
    if (subject.kind === 'User' || subject.kind === 'Group') defaultString(subject, 'apiGroup', rbacGroup);
  }
}

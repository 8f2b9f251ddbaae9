/**
 * What the RBAC authorizer is asked about (k8s.io/apiserver's authorizer.Attributes)
 * and the RBAC objects it decides from. Plain JSON throughout: the objects are the
 * rbac.authorization.k8s.io/v1 objects as stored.
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';

export type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding };

import type { UserInfo } from '../authn/user-info.js';

export type { UserInfo };

/** One request as the authorizer sees it (kube's authorizer.AttributesRecord). */
export interface RequestAttributes {
  /** Who makes the request. */
  user: UserInfo;
  /** The kube verb: get, list, watch, create, update, patch, delete, deletecollection, or an HTTP verb (lowercase) for non-resource paths. */
  verb: string;
  /** True for requests on API resources; false for non-resource paths such as `/healthz`. */
  resourceRequest: boolean;
  /** The API group, `""` for the core group. */
  apiGroup: string;
  /** The API version, e.g. `v1`. */
  apiVersion: string;
  /** The resource (plural), e.g. `pods`. */
  resource: string;
  /** The subresource, e.g. `status`, or `""`. */
  subresource: string;
  /** The namespace, `""` for cluster-scoped requests and non-resource requests. */
  namespace: string;
  /** The object name, `""` when the request has none (list, create without name, ...). */
  name: string;
  /** The request path, used for non-resource requests. */
  path: string;
}

/** The RBAC objects the authorizer decides from, as stored. */
export interface RbacObjects {
  roles: readonly Role[];
  clusterRoles: readonly ClusterRole[];
  roleBindings: readonly RoleBinding[];
  clusterRoleBindings: readonly ClusterRoleBinding[];
}

/** An authorization answer. `reason` is kube's text (empty when RBAC has nothing to say). */
export interface Decision {
  allowed: boolean;
  reason: string;
}

/** The superuser group: its members pass every authorization check. */
export const systemMastersGroup = 'system:masters';

/** Anything that answers authorization questions (the RBAC authorizer, or a stand-in in tests). */
export interface Authorizer {
  authorize(attrs: RequestAttributes): Decision;
}

/**
 * The checks kube's RBAC storages (pkg/registry/rbac/{role,clusterrole,rolebinding,
 * clusterrolebinding}/policybased) make before a Role, ClusterRole, RoleBinding or
 * ClusterRoleBinding is created or updated, so that nobody grants more than they hold:
 *
 * - a Role or ClusterRole: unless the user may `escalate` on it, it holds every rule;
 *   setting or keeping an aggregationRule on a ClusterRole takes full authority;
 * - a RoleBinding or ClusterRoleBinding: unless the user may `bind` the referred role, it
 *   holds every rule of that role (a missing role is kube's 404 on it).
 *
 * Members of `system:masters` skip them, and an update that only changes what the garbage
 * collector changes (ownerReferences, finalizers) is not checked, as in kube.
 */
import { deepCopy, isJsonObject, jsonEqual, notFound, StatusError } from '@operant/apimachinery';
import type { PolicyRule, RoleBinding, UserInfo } from './attributes.js';
import { systemMastersGroup } from './attributes.js';
import type { RbacAuthorizer } from './authorizer.js';
import type { Strategy } from '../../registry/strategy.js';
import { bindingAuthorized, confirmCanAggregate, confirmCanBind, confirmNoEscalation, escalationAuthorized } from './escalation.js';

export const rbacGroup = 'rbac.authorization.k8s.io';

/** The four resources whose writes are checked. */
export const rbacPolicyResources: ReadonlySet<string> = new Set(['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings']);

type Json = Record<string, unknown>;

/** One write of an RBAC object, as the storage sees it. */
export interface RbacWrite {
  /** `roles`, `clusterroles`, `rolebindings` or `clusterrolebindings`. */
  resource: string;
  /** The request's namespace (`""` for the cluster-scoped kinds). */
  namespace: string;
  /** The name in the request path (`""` on create). */
  requestName: string;
  /** The object to be stored: the request body, or the current object with the patch applied. */
  object: Json;
  /** The stored object an update or patch replaces; absent on create (and on an update that creates). */
  old?: Json;
}

/**
 * kube's IsOnlyMutatingGCFields: whether `obj` differs from `old` in ownerReferences,
 * finalizers, selfLink or managedFields only (empty and absent lists count as the same).
 */
export function isOnlyMutatingGCFields(obj: Json, old: Json | undefined): boolean {
  if (!old) return false;
  const copy = deepCopy(obj);
  const meta = (isJsonObject(copy.metadata) ? copy.metadata : (copy.metadata = {})) as Json;
  const oldMeta = (isJsonObject(old.metadata) ? old.metadata : {}) as Json;
  for (const key of ['ownerReferences', 'finalizers', 'selfLink', 'managedFields']) {
    if (oldMeta[key] === undefined) delete meta[key];
    else meta[key] = oldMeta[key];
  }
  return jsonEqual(withoutEmpty(copy), withoutEmpty(old));
}

/** The value with null, empty lists and empty maps left out, as Go's omitempty fields compare. */
function withoutEmpty(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutEmpty);
  if (!isJsonObject(value)) return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    const w = withoutEmpty(v);
    if (w === null || w === undefined || (Array.isArray(w) && w.length === 0) || (isJsonObject(w) && Object.keys(w).length === 0)) continue;
    out[k] = w;
  }
  return out;
}

function nameOf(obj: Json): string {
  const meta = isJsonObject(obj.metadata) ? obj.metadata : {};
  return typeof meta.name === 'string' ? meta.name : '';
}

function rulesOf(obj: Json): PolicyRule[] {
  return Array.isArray(obj.rules) ? (obj.rules.filter(isJsonObject) as unknown as PolicyRule[]) : [];
}

function hasAggregationRule(obj: Json | undefined): boolean {
  const rule = obj?.aggregationRule;
  return isJsonObject(rule) && Array.isArray(rule.clusterRoleSelectors) && rule.clusterRoleSelectors.length > 0;
}

function roleRefOf(obj: Json): RoleBinding['roleRef'] {
  const ref = isJsonObject(obj.roleRef) ? obj.roleRef : {};
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  return { apiGroup: str(ref.apiGroup), kind: str(ref.kind), name: str(ref.name) };
}

/**
 * The 403 (or, for a binding to a missing role, 404) kube answers a write of an RBAC object
 * that would grant more than `user` holds; undefined when the write may go ahead.
 */
export function checkRbacWrite(user: UserInfo, write: RbacWrite, authorizer: RbacAuthorizer): StatusError | undefined {
  if (user.groups.includes(systemMastersGroup)) return undefined;
  if (!rbacPolicyResources.has(write.resource)) return undefined;
  if (write.old && isOnlyMutatingGCFields(write.object, write.old)) return undefined;
  const target = { resource: write.resource, name: nameOf(write.object), requestName: write.requestName };
  const namespace = write.namespace;

  if (write.resource === 'roles' || write.resource === 'clusterroles') {
    if (escalationAuthorized(user, write.resource, namespace, write.requestName, authorizer)) return undefined;
    const err = confirmNoEscalation(user, rulesOf(write.object), namespace, authorizer, target);
    if (err) return err;
    if (write.resource === 'clusterroles' && (hasAggregationRule(write.object) || hasAggregationRule(write.old))) {
      return confirmCanAggregate(user, authorizer, target);
    }
    return undefined;
  }

  const roleRef = roleRefOf(write.object);
  if (bindingAuthorized(user, roleRef, namespace, authorizer)) return undefined;
  if (roleRef.kind !== 'Role' && roleRef.kind !== 'ClusterRole') {
    // A plain error in kube's storage: a 500 with no reason and the bare text.
    const err = new StatusError(500, 'InternalError', `unsupported role reference kind: ${JSON.stringify(roleRef.kind)}`);
    delete err.status.reason;
    return err;
  }
  const rules = authorizer.roleReferenceRules(roleRef, namespace);
  if (!rules) return notFound({ group: rbacGroup, resource: roleRef.kind === 'Role' ? 'roles' : 'clusterroles' }, roleRef.name);
  return confirmCanBind(user, roleRef, rules, namespace, authorizer, target);
}

/**
 * The strategy hook of one of the four RBAC kinds (`authorizeWrite`): the store calls it
 * with the object it decoded once, after the mutating webhooks, as kube's policybased
 * storages wrap the generic store's Create and Update.
 */
export function rbacWritePolicy(resource: string, authorizer: RbacAuthorizer): NonNullable<Strategy['authorizeWrite']> {
  return ({ user, namespace, requestName, object, old }) => checkRbacWrite(user, { resource, namespace, requestName, object, old }, authorizer);
}

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterRole, ClusterRoleBinding, RbacObjects, Role, RoleBinding, UserInfo } from './attributes.js';
import { RbacAuthorizer } from './authorizer.js';
import { checkRbacWrite, isOnlyMutatingGCFields } from './storage-policy.js';

const rbacGroup = 'rbac.authorization.k8s.io';
const u: UserInfo = { username: 'u', groups: ['g', 'system:authenticated'] };
const master: UserInfo = { username: 'root', groups: ['system:masters'] };

function authorizer(o: Partial<RbacObjects>): RbacAuthorizer {
  const full: RbacObjects = { roles: [], clusterRoles: [], roleBindings: [], clusterRoleBindings: [], ...o };
  return new RbacAuthorizer(() => full, () => 1);
}

const writer: Role = {
  metadata: { namespace: 'ns', name: 'writer' },
  rules: [
    { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
    { apiGroups: [rbacGroup], resources: ['roles', 'rolebindings'], verbs: ['create', 'update', 'patch'] },
  ],
};
const bindsWriter: RoleBinding = {
  metadata: { namespace: 'ns', name: 'w' },
  roleRef: { apiGroup: rbacGroup, kind: 'Role', name: 'writer' },
  subjects: [{ kind: 'User', apiGroup: rbacGroup, name: 'u' }],
};
const a = authorizer({ roles: [writer], roleBindings: [bindsWriter] });

const role = (name: string, verbs: string[], extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: `${rbacGroup}/v1`,
  kind: 'Role',
  metadata: { name, namespace: 'ns', ...extra },
  rules: [{ apiGroups: [''], resources: ['pods'], verbs }],
});

describe('checkRbacWrite', () => {
  it('lets a user write a role with rules it holds, and refuses more, in kube\'s words', () => {
    assert.equal(checkRbacWrite(u, { resource: 'roles', namespace: 'ns', requestName: '', object: role('r', ['get']) }, a), undefined);
    const err = checkRbacWrite(u, { resource: 'roles', namespace: 'ns', requestName: '', object: role('r', ['get', 'delete']) }, a);
    assert.equal(err?.code, 403);
    assert.equal(
      err?.message,
      'roles.rbac.authorization.k8s.io "r" is forbidden: user "u" (groups=["g" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}',
    );
    assert.deepEqual(err?.status.details, { name: 'r', group: rbacGroup, kind: 'roles' });
    // Elsewhere the user holds nothing.
    assert.equal(checkRbacWrite(u, { resource: 'roles', namespace: 'other', requestName: '', object: role('r', ['get']) }, a)?.code, 403);
    // A generated name is not known yet: none is quoted.
    const generated = checkRbacWrite(u, { resource: 'roles', namespace: 'ns', requestName: '', object: { ...role('', ['delete']), metadata: { generateName: 'r-' } } }, a);
    assert.match(generated?.message ?? '', /^roles\.rbac\.authorization\.k8s\.io is forbidden: user "u"/);
  });

  it('system:masters and the escalate verb skip the check', () => {
    assert.equal(checkRbacWrite(master, { resource: 'roles', namespace: 'ns', requestName: '', object: role('r', ['*']) }, a), undefined);
    const escalator: Role = { metadata: { namespace: 'ns', name: 'esc' }, rules: [{ apiGroups: [rbacGroup], resources: ['roles'], verbs: ['escalate'], resourceNames: ['r'] }] };
    const b: RoleBinding = { metadata: { namespace: 'ns', name: 'e' }, roleRef: { apiGroup: rbacGroup, kind: 'Role', name: 'esc' }, subjects: [{ kind: 'User', name: 'u' }] };
    const e = authorizer({ roles: [writer, escalator], roleBindings: [bindsWriter, b] });
    // resourceNames match the name in the request path: an update of r, not a create.
    assert.equal(checkRbacWrite(u, { resource: 'roles', namespace: 'ns', requestName: 'r', object: role('r', ['*']), old: role('r', ['get']) }, e), undefined);
    assert.equal(checkRbacWrite(u, { resource: 'roles', namespace: 'ns', requestName: '', object: role('r', ['*']) }, e)?.code, 403);
  });

  it('an update of ownerReferences or finalizers only is not checked', () => {
    const old = role('r', ['delete']);
    const gcOnly = role('r', ['delete'], { finalizers: ['x'], ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: '1' }] });
    assert.equal(isOnlyMutatingGCFields(gcOnly, old), true);
    assert.equal(checkRbacWrite(u, { resource: 'roles', namespace: 'ns', requestName: 'r', object: gcOnly, old }, a), undefined);
    const labelled = role('r', ['delete'], { labels: { a: 'b' } });
    assert.equal(isOnlyMutatingGCFields(labelled, old), false);
    assert.equal(checkRbacWrite(u, { resource: 'roles', namespace: 'ns', requestName: 'r', object: labelled, old }, a)?.code, 403);
  });

  it('an aggregationRule takes full authority, even to remove it', () => {
    const cw: ClusterRole = { metadata: { name: 'cw' }, rules: [{ apiGroups: [rbacGroup], resources: ['clusterroles'], verbs: ['create', 'update'] }] };
    const crb: ClusterRoleBinding = { metadata: { name: 'cw' }, roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'cw' }, subjects: [{ kind: 'User', name: 'u' }] };
    const c = authorizer({ clusterRoles: [cw], clusterRoleBindings: [crb] });
    const aggregating = { metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: 'y' } }] }, rules: [] };
    const err = checkRbacWrite(u, { resource: 'clusterroles', namespace: '', requestName: '', object: aggregating }, c);
    assert.equal(err?.message, 'clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule');
    const removed = checkRbacWrite(u, { resource: 'clusterroles', namespace: '', requestName: 'agg', object: { metadata: { name: 'agg' }, rules: [] }, old: aggregating }, c);
    assert.equal(removed?.code, 403);
    assert.equal(checkRbacWrite(u, { resource: 'clusterroles', namespace: '', requestName: '', object: { metadata: { name: 'plain' }, rules: [] } }, c), undefined);
  });

  it('bindings: to a role the user holds, or may bind; a missing role is kube\'s 404', () => {
    const rb = (name: string, roleRef: RoleBinding['roleRef']): Record<string, unknown> => ({ metadata: { name, namespace: 'ns' }, roleRef, subjects: [{ kind: 'User', name: 'x' }] });
    const edit: ClusterRole = { metadata: { name: 'edit' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['*'] }] };
    const b = authorizer({ roles: [writer], roleBindings: [bindsWriter], clusterRoles: [edit] });
    assert.equal(checkRbacWrite(u, { resource: 'rolebindings', namespace: 'ns', requestName: '', object: rb('ok', { apiGroup: rbacGroup, kind: 'Role', name: 'writer' }) }, b), undefined);
    const toEdit = checkRbacWrite(u, { resource: 'rolebindings', namespace: 'ns', requestName: '', object: rb('e', { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'edit' }) }, b);
    assert.match(toEdit?.message ?? '', /^rolebindings\.rbac\.authorization\.k8s\.io "e" is forbidden: user "u" .*\n\{APIGroups:\[""\], Resources:\["pods"\], Verbs:\["\*"\]\}$/);
    const missing = checkRbacWrite(u, { resource: 'rolebindings', namespace: 'ns', requestName: '', object: rb('m', { apiGroup: rbacGroup, kind: 'Role', name: 'nope' }) }, b);
    assert.equal(missing?.code, 404);
    assert.equal(missing?.message, 'roles.rbac.authorization.k8s.io "nope" not found');
    const odd = checkRbacWrite(u, { resource: 'rolebindings', namespace: 'ns', requestName: '', object: rb('o', { apiGroup: rbacGroup, kind: 'Group', name: 'g' }) }, b);
    assert.equal(odd?.code, 500);
    assert.equal(odd?.message, 'unsupported role reference kind: "Group"');

    const binder: Role = { metadata: { namespace: 'ns', name: 'binder' }, rules: [{ apiGroups: [rbacGroup], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['edit'] }] };
    const bb: RoleBinding = { metadata: { namespace: 'ns', name: 'bb' }, roleRef: { apiGroup: rbacGroup, kind: 'Role', name: 'binder' }, subjects: [{ kind: 'Group', name: 'g' }] };
    const withBind = authorizer({ roles: [writer, binder], roleBindings: [bindsWriter, bb], clusterRoles: [edit] });
    assert.equal(checkRbacWrite(u, { resource: 'rolebindings', namespace: 'ns', requestName: '', object: rb('e', { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'edit' }) }, withBind), undefined);
    // bind granted in a namespace does not extend to a ClusterRoleBinding.
    assert.equal(checkRbacWrite(u, { resource: 'clusterrolebindings', namespace: '', requestName: '', object: rb('e', { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'edit' }) }, withBind)?.code, 403);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RequestAttributes, UserInfo } from './attributes.js';
import { RbacAuthorizer } from './authorizer.js';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles } from './bootstrap-policy.js';

const roles = bootstrapClusterRoles();
const bindings = bootstrapClusterRoleBindings();
const byName = new Map(roles.map((r) => [r.metadata!.name!, r]));

function res(user: UserInfo, verb: string, group: string, resource: string, namespace: string, subresource = ''): RequestAttributes {
  return { user, verb, resourceRequest: true, apiGroup: group, apiVersion: 'v1', resource, subresource, namespace, name: '', path: '' };
}
function url(user: UserInfo, path: string, verb = 'get'): RequestAttributes {
  return { user, verb, resourceRequest: false, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '', path };
}

describe('bootstrap policy', () => {
  it('every object carries the bootstrapping label and autoupdate annotation', () => {
    for (const o of [...roles, ...bindings]) {
      assert.equal(o.metadata?.labels?.['kubernetes.io/bootstrapping'], 'rbac-defaults', o.metadata?.name);
      assert.equal(o.metadata?.annotations?.['rbac.authorization.kubernetes.io/autoupdate'], 'true', o.metadata?.name);
    }
    assert.equal(roles[0]!.apiVersion, 'rbac.authorization.k8s.io/v1');
    assert.equal(roles[0]!.kind, 'ClusterRole');
    assert.equal(bindings[0]!.kind, 'ClusterRoleBinding');
  });

  it('cluster-admin, and admin/edit/view as aggregated roles', () => {
    assert.deepEqual(byName.get('cluster-admin')!.rules, [
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      { verbs: ['*'], nonResourceURLs: ['*'] },
    ]);
    assert.deepEqual(byName.get('admin')!.aggregationRule, {
      clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' } }],
    });
    assert.equal(byName.get('edit')!.metadata!.labels!['rbac.authorization.k8s.io/aggregate-to-admin'], 'true');
    assert.equal(byName.get('view')!.metadata!.labels!['rbac.authorization.k8s.io/aggregate-to-edit'], 'true');
    // As the aggregation controller leaves them.
    assert.equal(byName.get('view')!.rules!.length, byName.get('system:aggregate-to-view')!.rules!.length);
    assert.ok(byName.get('admin')!.rules!.length > byName.get('edit')!.rules!.length);
    // kube's PolicyRuleBuilder sorts.
    assert.deepEqual(byName.get('system:aggregate-to-admin')!.rules![1], {
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      apiGroups: ['rbac.authorization.k8s.io'],
      resources: ['rolebindings', 'roles'],
    });
  });

  it('bindings', () => {
    const subjects = Object.fromEntries(bindings.map((b) => [b.metadata!.name!, [b.roleRef.name, ...(b.subjects ?? []).map((s) => `${s.kind}:${s.name}`)]]));
    assert.deepEqual(subjects['cluster-admin'], ['cluster-admin', 'Group:system:masters']);
    assert.deepEqual(subjects['system:discovery'], ['system:discovery', 'Group:system:authenticated']);
    assert.deepEqual(subjects['system:basic-user'], ['system:basic-user', 'Group:system:authenticated']);
    assert.deepEqual(subjects['system:public-info-viewer'], ['system:public-info-viewer', 'Group:system:authenticated', 'Group:system:unauthenticated']);
    for (const b of bindings) assert.ok(byName.has(b.roleRef.name), b.roleRef.name);
  });

  describe('decisions with the default policy', () => {
    const viewer: UserInfo = { username: 'viewer', groups: ['system:authenticated'] };
    const editor: UserInfo = { username: 'editor', groups: ['system:authenticated'] };
    const admin: UserInfo = { username: 'nsadmin', groups: ['system:authenticated'] };
    const anon: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };
    const rb = (name: string, role: string, user: string) => ({
      metadata: { namespace: 'team', name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: user }],
    });
    const a = new RbacAuthorizer(
      () => ({ roles: [], clusterRoles: roles, roleBindings: [rb('v', 'view', 'viewer'), rb('e', 'edit', 'editor'), rb('a', 'admin', 'nsadmin')], clusterRoleBindings: bindings }),
      () => 1,
    );
    const cases: Array<[string, RequestAttributes, boolean]> = [
      ['view lists pods', res(viewer, 'list', '', 'pods', 'team'), true],
      ['view reads pod logs', res(viewer, 'get', '', 'pods', 'team', 'log'), true],
      ['view cannot read secrets', res(viewer, 'get', '', 'secrets', 'team'), false],
      ['view cannot create pods', res(viewer, 'create', '', 'pods', 'team'), false],
      ['view reads deployments', res(viewer, 'watch', 'apps', 'deployments', 'team'), true],
      ['view reads controllerrevisions', res(viewer, 'list', 'apps', 'controllerrevisions', 'team'), true],
      ['view gets its namespace', res(viewer, 'get', '', 'namespaces', 'team'), true],
      ['view only in its namespace', res(viewer, 'list', '', 'pods', 'other'), false],
      ['edit reads secrets', res(editor, 'get', '', 'secrets', 'team'), true],
      ['edit creates deployments', res(editor, 'create', 'apps', 'deployments', 'team'), true],
      ['edit scales deployments', res(editor, 'update', 'apps', 'deployments', 'team', 'scale'), true],
      ['edit cannot update deployment status', res(editor, 'update', 'apps', 'deployments', 'team', 'status'), false],
      ['edit creates serviceaccount tokens', res(editor, 'create', '', 'serviceaccounts', 'team', 'token'), true],
      ['edit cannot write roles', res(editor, 'create', 'rbac.authorization.k8s.io', 'roles', 'team'), false],
      ['edit cannot write endpoints', res(editor, 'create', '', 'endpoints', 'team'), false],
      ['admin writes rolebindings', res(admin, 'create', 'rbac.authorization.k8s.io', 'rolebindings', 'team'), true],
      ['admin creates localsubjectaccessreviews', res(admin, 'create', 'authorization.k8s.io', 'localsubjectaccessreviews', 'team'), true],
      ['admin lists configmaps', res(admin, 'list', '', 'configmaps', 'team'), true],
      ['authenticated: selfsubjectaccessreviews', res(viewer, 'create', 'authorization.k8s.io', 'selfsubjectaccessreviews', ''), true],
      ['authenticated: selfsubjectreviews', res(viewer, 'create', 'authentication.k8s.io', 'selfsubjectreviews', ''), true],
      ['authenticated: discovery', url(viewer, '/apis/apps/v1'), true],
      ['authenticated: openapi', url(viewer, '/openapi/v3'), true],
      ['authenticated: no metrics', url(viewer, '/metrics'), false],
      ['anonymous: healthz', url(anon, '/healthz'), true],
      ['anonymous: version/', url(anon, '/version/'), true],
      ['anonymous: no discovery', url(anon, '/api'), false],
      ['anonymous: no pods', res(anon, 'list', '', 'pods', 'team'), false],
      ['masters: anything', res({ username: 'k', groups: ['system:masters'] }, 'delete', '', 'nodes', ''), true],
    ];
    for (const [name, attrs, want] of cases) it(name, () => assert.equal(a.authorize(attrs).allowed, want));
  });
});

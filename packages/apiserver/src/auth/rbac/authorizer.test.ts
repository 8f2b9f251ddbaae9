import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterRole, ClusterRoleBinding, PolicyRule, RbacObjects, RequestAttributes, Role, RoleBinding, UserInfo } from './attributes.js';
import { RbacAuthorizer } from './authorizer.js';
import { ruleAllows } from './rules.js';

const rbacGroup = 'rbac.authorization.k8s.io';

function user(username: string, ...groups: string[]): UserInfo {
  return { username, groups };
}

function res(
  u: UserInfo,
  verb: string,
  resource: string,
  opts: { group?: string; sub?: string; ns?: string; name?: string } = {},
): RequestAttributes {
  return {
    user: u,
    verb,
    resourceRequest: true,
    apiGroup: opts.group ?? '',
    apiVersion: 'v1',
    resource,
    subresource: opts.sub ?? '',
    namespace: opts.ns ?? '',
    name: opts.name ?? '',
    path: '',
  };
}

function nonRes(u: UserInfo, verb: string, path: string): RequestAttributes {
  return { user: u, verb, resourceRequest: false, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '', path };
}

function role(namespace: string, name: string, rules: PolicyRule[]): Role {
  return { apiVersion: `${rbacGroup}/v1`, kind: 'Role', metadata: { namespace, name }, rules };
}
function clusterRole(name: string, rules: PolicyRule[], labels?: Record<string, string>): ClusterRole {
  return { apiVersion: `${rbacGroup}/v1`, kind: 'ClusterRole', metadata: { name, ...(labels ? { labels } : {}) }, rules };
}
type Subject = NonNullable<RoleBinding['subjects']>[number];
function roleBinding(namespace: string, name: string, kind: 'Role' | 'ClusterRole', ref: string, subjects: Subject[]): RoleBinding {
  return { metadata: { namespace, name }, roleRef: { apiGroup: rbacGroup, kind, name: ref }, subjects };
}
function clusterRoleBinding(name: string, ref: string, subjects: Subject[]): ClusterRoleBinding {
  return { metadata: { name }, roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: ref }, subjects };
}
const U = (name: string): Subject => ({ kind: 'User', apiGroup: rbacGroup, name });
const G = (name: string): Subject => ({ kind: 'Group', apiGroup: rbacGroup, name });
const SA = (name: string, namespace?: string): Subject => ({ kind: 'ServiceAccount', name, ...(namespace !== undefined ? { namespace } : {}) });

function authz(objects: Partial<RbacObjects>): RbacAuthorizer {
  const full: RbacObjects = { roles: [], clusterRoles: [], roleBindings: [], clusterRoleBindings: [], ...objects };
  return new RbacAuthorizer(() => full, () => 1);
}

describe('ruleAllows (kube TestRuleMatches-style table)', () => {
  const u = user('u');
  const cases: Array<{ name: string; rule: PolicyRule; attrs: RequestAttributes; want: boolean }> = [
    { name: 'exact', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, attrs: res(u, 'get', 'pods'), want: true },
    { name: 'other verb', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, attrs: res(u, 'list', 'pods'), want: false },
    { name: 'star verb', rule: { verbs: ['*'], apiGroups: [''], resources: ['pods'] }, attrs: res(u, 'deletecollection', 'pods'), want: true },
    { name: 'other group', rule: { verbs: ['get'], apiGroups: [''], resources: ['deployments'] }, attrs: res(u, 'get', 'deployments', { group: 'apps' }), want: false },
    { name: 'star group', rule: { verbs: ['get'], apiGroups: ['*'], resources: ['deployments'] }, attrs: res(u, 'get', 'deployments', { group: 'apps' }), want: true },
    { name: 'no groups', rule: { verbs: ['get'], resources: ['pods'] }, attrs: res(u, 'get', 'pods'), want: false },
    { name: 'star resource', rule: { verbs: ['get'], apiGroups: [''], resources: ['*'] }, attrs: res(u, 'get', 'pods', { sub: 'log' }), want: true },
    { name: 'resource does not cover subresource', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, attrs: res(u, 'get', 'pods', { sub: 'log' }), want: false },
    { name: 'resource/subresource', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, attrs: res(u, 'get', 'pods', { sub: 'log' }), want: true },
    { name: 'subresource does not cover resource', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, attrs: res(u, 'get', 'pods'), want: false },
    { name: '*/subresource', rule: { verbs: ['update'], apiGroups: ['*'], resources: ['*/status'] }, attrs: res(u, 'update', 'deployments', { group: 'apps', sub: 'status' }), want: true },
    { name: '*/subresource other sub', rule: { verbs: ['update'], apiGroups: ['*'], resources: ['*/status'] }, attrs: res(u, 'update', 'deployments', { group: 'apps', sub: 'scale' }), want: false },
    { name: '*/subresource no sub', rule: { verbs: ['update'], apiGroups: ['*'], resources: ['*/status'] }, attrs: res(u, 'update', 'deployments', { group: 'apps' }), want: false },
    { name: 'pods/* is not a wildcard', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods/*'] }, attrs: res(u, 'get', 'pods', { sub: 'log' }), want: false },
    { name: 'resourceNames match', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a', 'b'] }, attrs: res(u, 'get', 'pods', { name: 'b' }), want: true },
    { name: 'resourceNames other', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }, attrs: res(u, 'get', 'pods', { name: 'c' }), want: false },
    { name: 'resourceNames without name (list)', rule: { verbs: ['list'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }, attrs: res(u, 'list', 'pods'), want: false },
    { name: 'empty resourceNames any name', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: [] }, attrs: res(u, 'get', 'pods', { name: 'z' }), want: true },
    { name: 'resource rule does not cover path', rule: { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, attrs: nonRes(u, 'get', '/healthz'), want: false },
    { name: 'url exact', rule: { verbs: ['get'], nonResourceURLs: ['/healthz'] }, attrs: nonRes(u, 'get', '/healthz'), want: true },
    { name: 'url exact other', rule: { verbs: ['get'], nonResourceURLs: ['/healthz'] }, attrs: nonRes(u, 'get', '/healthz/ping'), want: false },
    { name: 'url prefix*', rule: { verbs: ['get'], nonResourceURLs: ['/healthz/*'] }, attrs: nonRes(u, 'get', '/healthz/ping'), want: true },
    { name: 'url prefix* without slash', rule: { verbs: ['get'], nonResourceURLs: ['/api*'] }, attrs: nonRes(u, 'get', '/apis/apps'), want: true },
    { name: 'url prefix* not the bare path', rule: { verbs: ['get'], nonResourceURLs: ['/healthz/*'] }, attrs: nonRes(u, 'get', '/healthz'), want: false },
    { name: 'url star', rule: { verbs: ['*'], nonResourceURLs: ['*'] }, attrs: nonRes(u, 'post', '/anything'), want: true },
    { name: 'url verb', rule: { verbs: ['get'], nonResourceURLs: ['*'] }, attrs: nonRes(u, 'post', '/metrics'), want: false },
    { name: 'url rule does not cover resource', rule: { verbs: ['*'], nonResourceURLs: ['*'] }, attrs: res(u, 'get', 'pods'), want: false },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(ruleAllows(c.attrs, c.rule), c.want));
  }
});

describe('RbacAuthorizer', () => {
  const podReader = role('default', 'pod-reader', [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] }]);
  const deployEditor = clusterRole('deploy-editor', [{ verbs: ['*'], apiGroups: ['apps'], resources: ['deployments', 'deployments/scale'] }]);

  it('User subject of a RoleBinding to a Role: only in that namespace', () => {
    const a = authz({ roles: [podReader], roleBindings: [roleBinding('default', 'rb', 'Role', 'pod-reader', [U('alice')])] });
    const alice = user('alice', 'system:authenticated');
    assert.deepEqual(a.authorize(res(alice, 'list', 'pods', { ns: 'default' })), {
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "rb/default" of Role "pod-reader" to User "alice"',
    });
    assert.equal(a.authorize(res(alice, 'list', 'pods', { ns: 'other' })).allowed, false);
    assert.equal(a.authorize(res(alice, 'list', 'pods')).allowed, false, 'cluster-wide list');
    assert.equal(a.authorize(res(alice, 'delete', 'pods', { ns: 'default', name: 'x' })).allowed, false);
    assert.equal(a.authorize(res(user('bob'), 'list', 'pods', { ns: 'default' })).allowed, false);
  });

  it('Role of another namespace with the same name is not used', () => {
    const a = authz({ roles: [role('other', 'pod-reader', podReader.rules!)], roleBindings: [roleBinding('default', 'rb', 'Role', 'pod-reader', [U('alice')])] });
    assert.deepEqual(a.authorize(res(user('alice'), 'list', 'pods', { ns: 'default' })), {
      allowed: false,
      reason: 'RBAC: role.rbac.authorization.k8s.io "pod-reader" not found',
    });
  });

  it('Group subject', () => {
    const a = authz({ clusterRoles: [deployEditor], clusterRoleBindings: [clusterRoleBinding('crb', 'deploy-editor', [G('devs')])] });
    assert.deepEqual(a.authorize(res(user('carol', 'devs'), 'patch', 'deployments', { group: 'apps', ns: 'x', name: 'web' })), {
      allowed: true,
      reason: 'RBAC: allowed by ClusterRoleBinding "crb" of ClusterRole "deploy-editor" to Group "devs"',
    });
    assert.equal(a.authorize(res(user('carol', 'devs'), 'update', 'deployments', { group: 'apps', ns: 'x', name: 'web', sub: 'scale' })).allowed, true);
    assert.equal(a.authorize(res(user('carol', 'devs'), 'update', 'deployments', { group: 'apps', ns: 'x', name: 'web', sub: 'status' })).allowed, false);
    assert.equal(a.authorize(res(user('carol', 'ops'), 'patch', 'deployments', { group: 'apps', ns: 'x' })).allowed, false);
    assert.equal(a.authorize(res(user('devs'), 'patch', 'deployments', { group: 'apps', ns: 'x' })).allowed, false, 'a user named like the group');
  });

  it('ServiceAccount subject, with and without namespace', () => {
    const saUser = user('system:serviceaccount:default:op', 'system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated');
    const a = authz({
      roles: [podReader],
      clusterRoles: [deployEditor],
      roleBindings: [roleBinding('default', 'rb', 'Role', 'pod-reader', [SA('op')])],
      clusterRoleBindings: [clusterRoleBinding('crb', 'deploy-editor', [SA('op', 'default')]), clusterRoleBinding('nons', 'deploy-editor', [SA('ghost')])],
    });
    assert.deepEqual(a.authorize(res(saUser, 'get', 'pods', { ns: 'default', name: 'p' })), {
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "rb/default" of Role "pod-reader" to ServiceAccount "op/default"',
    });
    assert.deepEqual(a.authorize(res(saUser, 'create', 'deployments', { group: 'apps', ns: 'kube-system' })), {
      allowed: true,
      reason: 'RBAC: allowed by ClusterRoleBinding "crb" of ClusterRole "deploy-editor" to ServiceAccount "op/default"',
    });
    assert.equal(a.authorize(res(user('system:serviceaccount:other:op'), 'get', 'pods', { ns: 'default' })).allowed, false);
    assert.equal(a.authorize(res(user('op'), 'get', 'pods', { ns: 'default' })).allowed, false);
    // A ServiceAccount subject without namespace in a ClusterRoleBinding matches nobody.
    assert.equal(a.authorize(res(user('system:serviceaccount::ghost'), 'get', 'deployments', { group: 'apps', ns: 'x' })).allowed, false);
  });

  it('RoleBinding to a ClusterRole grants it in the binding namespace only', () => {
    const a = authz({ clusterRoles: [deployEditor], roleBindings: [roleBinding('team', 'rb', 'ClusterRole', 'deploy-editor', [U('dave')])] });
    assert.deepEqual(a.authorize(res(user('dave'), 'delete', 'deployments', { group: 'apps', ns: 'team', name: 'x' })), {
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "rb/team" of ClusterRole "deploy-editor" to User "dave"',
    });
    assert.equal(a.authorize(res(user('dave'), 'delete', 'deployments', { group: 'apps', ns: 'other', name: 'x' })).allowed, false);
    assert.equal(a.authorize(res(user('dave'), 'list', 'deployments', { group: 'apps' })).allowed, false);
  });

  it('non-resource URLs through a ClusterRoleBinding, never through a RoleBinding', () => {
    const metrics = clusterRole('metrics', [{ verbs: ['get'], nonResourceURLs: ['/metrics', '/debug/*'] }]);
    const a = authz({
      clusterRoles: [metrics],
      clusterRoleBindings: [clusterRoleBinding('m', 'metrics', [U('mon')])],
      roleBindings: [roleBinding('default', 'rb', 'ClusterRole', 'metrics', [U('ns-mon')])],
    });
    assert.equal(a.authorize(nonRes(user('mon'), 'get', '/metrics')).allowed, true);
    assert.equal(a.authorize(nonRes(user('mon'), 'get', '/debug/pprof/heap')).allowed, true);
    assert.equal(a.authorize(nonRes(user('mon'), 'post', '/metrics')).allowed, false);
    assert.equal(a.authorize(nonRes(user('ns-mon'), 'get', '/metrics')).allowed, false);
  });

  it('system:masters is allowed everything, with no bindings at all', () => {
    const a = authz({});
    assert.deepEqual(a.authorize(res(user('admin', 'system:masters'), 'delete', 'nodes', { name: 'n' })), { allowed: true, reason: '' });
    assert.equal(a.authorize(nonRes(user('admin', 'system:masters'), 'get', '/metrics')).allowed, true);
    assert.deepEqual(a.authorize(res(user('admin'), 'delete', 'nodes', { name: 'n' })), { allowed: false, reason: '' });
  });

  it('missing roles: errors as the reason of a denial, in kube words, deduplicated', () => {
    const a = authz({
      clusterRoleBindings: [clusterRoleBinding('a', 'nope', [U('u')]), clusterRoleBinding('b', 'nope', [U('u')])],
      roleBindings: [roleBinding('ns', 'c', 'Role', 'gone', [U('u')])],
    });
    assert.deepEqual(a.authorize(res(user('u'), 'get', 'pods', { ns: 'ns' })), {
      allowed: false,
      reason: 'RBAC: [clusterrole.rbac.authorization.k8s.io "nope" not found, role.rbac.authorization.k8s.io "gone" not found]',
    });
  });

  it('ClusterRoleBindings are visited before RoleBindings; a binding naming the user twice is visited once', () => {
    const all = clusterRole('all', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]);
    const a = authz({
      clusterRoles: [all],
      roleBindings: [roleBinding('ns', 'first-rb', 'ClusterRole', 'all', [U('u')])],
      clusterRoleBindings: [clusterRoleBinding('crb', 'all', [G('g'), U('u')])],
    });
    assert.equal(
      a.authorize(res(user('u', 'g'), 'get', 'pods', { ns: 'ns' })).reason,
      'RBAC: allowed by ClusterRoleBinding "crb" of ClusterRole "all" to Group "g"',
    );
    assert.equal(a.rulesFor(user('u', 'g'), 'ns').rules.length, 2);
  });

  it('aggregated ClusterRoles are used without an aggregation controller', () => {
    const agg: ClusterRole = {
      metadata: { name: 'monitoring' },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'example.com/aggregate-to-monitoring': 'true' } }] },
    };
    const piece = clusterRole('piece', [{ verbs: ['get'], apiGroups: [''], resources: ['services'] }], { 'example.com/aggregate-to-monitoring': 'true' });
    const a = authz({ clusterRoles: [agg, piece], clusterRoleBindings: [clusterRoleBinding('m', 'monitoring', [U('u')])] });
    assert.equal(a.authorize(res(user('u'), 'get', 'services', { ns: 'x', name: 's' })).allowed, true);
    assert.equal(a.authorize(res(user('u'), 'list', 'services', { ns: 'x' })).allowed, false);
  });

  it('re-indexes when the version changes, and only then', () => {
    let objects: RbacObjects = { roles: [], clusterRoles: [], roleBindings: [], clusterRoleBindings: [] };
    let version = 1;
    let reads = 0;
    const a = new RbacAuthorizer(
      () => {
        reads++;
        return objects;
      },
      () => version,
    );
    const attrs = res(user('u'), 'get', 'pods', { ns: 'default', name: 'p' });
    assert.equal(a.authorize(attrs).allowed, false);
    objects = { ...objects, roles: [podReader], roleBindings: [roleBinding('default', 'rb', 'Role', 'pod-reader', [U('u')])] };
    assert.equal(a.authorize(attrs).allowed, false, 'same version: the old index');
    version = 2;
    assert.equal(a.authorize(attrs).allowed, true);
    assert.equal(a.authorize(attrs).allowed, true);
    assert.equal(reads, 2);
  });

  it('stays cheap with 1,000 roles and bindings', () => {
    const roles: Role[] = [];
    const roleBindings: RoleBinding[] = [];
    for (let i = 0; i < 1000; i++) {
      roles.push(role(`ns${i % 50}`, `r${i}`, [{ verbs: ['get'], apiGroups: [''], resources: [`things${i}`] }]));
      roleBindings.push(roleBinding(`ns${i % 50}`, `b${i}`, 'Role', `r${i}`, [U(`user${i}`), G(`group${i % 10}`)]));
    }
    const a = authz({ roles, roleBindings });
    const attrs = res(user('user999', 'group9', 'system:authenticated'), 'get', 'things999', { ns: 'ns49', name: 'x' });
    assert.equal(a.authorize(attrs).allowed, true);
    const start = performance.now();
    for (let i = 0; i < 10000; i++) a.authorize(attrs);
    const perCall = (performance.now() - start) / 10000;
    assert.ok(perCall < 0.1, `authorize took ${perCall} ms`);
  });
});

describe('RbacAuthorizer.roleReferenceRules', () => {
  it('resolves Roles in their namespace and ClusterRoles with aggregation', () => {
    const r = role('ns', 'r', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]);
    const agg: ClusterRole = { metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] } };
    const piece = clusterRole('piece', [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }], { a: 'b' });
    const a = authz({ roles: [r], clusterRoles: [agg, piece] });
    assert.deepEqual(a.roleReferenceRules({ apiGroup: rbacGroup, kind: 'Role', name: 'r' }, 'ns'), r.rules);
    assert.equal(a.roleReferenceRules({ apiGroup: rbacGroup, kind: 'Role', name: 'r' }, 'other'), undefined);
    assert.deepEqual(a.roleReferenceRules({ apiGroup: rbacGroup, kind: 'ClusterRole', name: 'agg' }, ''), piece.rules);
    assert.equal(a.roleReferenceRules({ apiGroup: rbacGroup, kind: 'ClusterRole', name: 'nope' }, ''), undefined);
  });
});

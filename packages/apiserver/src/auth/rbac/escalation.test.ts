import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterRole, ClusterRoleBinding, RbacObjects, Role, RoleBinding, UserInfo } from './attributes.js';
import { RbacAuthorizer } from './authorizer.js';
import { breakdownRule, compactRules, compactString, confirmCanBind, confirmNoEscalation } from './escalation.js';

const rbacGroup = 'rbac.authorization.k8s.io';

function objects(o: Partial<RbacObjects>): RbacAuthorizer {
  const full: RbacObjects = { roles: [], clusterRoles: [], roleBindings: [], clusterRoleBindings: [], ...o };
  return new RbacAuthorizer(() => full, () => 1);
}

const u: UserInfo = { username: 'u', groups: ['g1', 'g2'] };
const podsRW: Role = {
  metadata: { namespace: 'ns', name: 'pods-rw' },
  rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'create'] }],
};
const holdsPods: RoleBinding = {
  metadata: { namespace: 'ns', name: 'b' },
  roleRef: { apiGroup: rbacGroup, kind: 'Role', name: 'pods-rw' },
  subjects: [{ kind: 'User', apiGroup: rbacGroup, name: 'u' }],
};
const target = { resource: 'roles', name: 'new-role' };

describe('breakdown and compaction (kube helpers)', () => {
  it('breakdownRule', () => {
    assert.deepEqual(breakdownRule({ apiGroups: ['', 'apps'], resources: ['pods'], verbs: ['get', 'list'], resourceNames: ['a'] }), [
      { apiGroups: [''], resources: ['pods'], verbs: ['get'], resourceNames: ['a'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['list'], resourceNames: ['a'] },
      { apiGroups: ['apps'], resources: ['pods'], verbs: ['get'], resourceNames: ['a'] },
      { apiGroups: ['apps'], resources: ['pods'], verbs: ['list'], resourceNames: ['a'] },
    ]);
    assert.deepEqual(breakdownRule({ nonResourceURLs: ['/a', '/b'], verbs: ['get'] }), [
      { nonResourceURLs: ['/a'], verbs: ['get'] },
      { nonResourceURLs: ['/b'], verbs: ['get'] },
    ]);
  });

  it('compactRules + compactString', () => {
    const compact = compactRules([
      { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['get'], resourceNames: ['x'] },
      { nonResourceURLs: ['/metrics'], verbs: ['get'] },
    ]).map(compactString);
    assert.deepEqual(compact.sort(), [
      '{APIGroups:[""], Resources:["pods"], ResourceNames:["x"], Verbs:["get"]}',
      '{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}',
      '{NonResourceURLs:["/metrics"], Verbs:["get"]}',
    ]);
  });
});

describe('confirmNoEscalation', () => {
  const a = objects({ roles: [podsRW], roleBindings: [holdsPods] });

  it('allows granting rules the user holds (or a subset)', () => {
    assert.equal(confirmNoEscalation(u, [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'create'] }], 'ns', a, target), undefined);
    assert.equal(confirmNoEscalation(u, [], 'ns', a, target), undefined);
    assert.equal(
      confirmNoEscalation(u, [{ apiGroups: [''], resources: ['pods'], verbs: ['get'], resourceNames: ['one', 'two'] }], 'ns', a, target),
      undefined,
      'names are covered by a rule without names',
    );
  });

  it('denies more than held, in kube words', () => {
    const err = confirmNoEscalation(u, [{ apiGroups: [''], resources: ['pods', 'secrets'], verbs: ['get', 'delete'] }], 'ns', a, target);
    assert.ok(err);
    assert.equal(err.code, 403);
    assert.equal(err.reason, 'Forbidden');
    assert.equal(
      err.message,
      'roles.rbac.authorization.k8s.io "new-role" is forbidden: user "u" (groups=["g1" "g2"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}\n' +
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}',
    );
    assert.deepEqual(err.status.details, { name: 'new-role', group: rbacGroup, kind: 'roles' });
  });

  it('the exact example of the brief', () => {
    const err = confirmNoEscalation(u, [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }], 'other', a, { resource: 'roles', name: 'name' });
    assert.equal(
      err?.message,
      'roles.rbac.authorization.k8s.io "name" is forbidden: user "u" (groups=["g1" "g2"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["get"]}',
    );
  });

  it('wildcards are only covered by wildcards', () => {
    const err = confirmNoEscalation(u, [{ apiGroups: [''], resources: ['pods'], verbs: ['*'] }], 'ns', a, target);
    assert.match(err?.message ?? '', /\{APIGroups:\[""\], Resources:\["pods"\], Verbs:\["\*"\]\}$/);
    const err2 = confirmNoEscalation(u, [{ apiGroups: [''], resources: ['*'], verbs: ['get'] }], 'ns', a, target);
    assert.match(err2?.message ?? '', /Resources:\["\*"\]/);
  });

  it('a namespaced grant does not cover a ClusterRole (namespace "")', () => {
    const err = confirmNoEscalation(u, [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }], '', a, { resource: 'clusterroles', name: 'cr' });
    assert.match(err?.message ?? '', /^clusterroles\.rbac\.authorization\.k8s\.io "cr" is forbidden: user "u"/);
  });

  it('non-resource URLs and subresources', () => {
    const holder: ClusterRole = {
      metadata: { name: 'holder' },
      rules: [
        { nonResourceURLs: ['/logs/*'], verbs: ['get'] },
        { apiGroups: ['apps'], resources: ['*/status'], verbs: ['update'] },
      ],
    };
    const crb: ClusterRoleBinding = { metadata: { name: 'h' }, roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'holder' }, subjects: [{ kind: 'User', name: 'u' }] };
    const b = objects({ clusterRoles: [holder], clusterRoleBindings: [crb] });
    assert.equal(
      confirmNoEscalation(u, [{ nonResourceURLs: ['/logs/kube', '/logs/*'], verbs: ['get'] }, { apiGroups: ['apps'], resources: ['deployments/status'], verbs: ['update'] }], '', b, target),
      undefined,
    );
    const err = confirmNoEscalation(u, [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }, { apiGroups: ['apps'], resources: ['deployments'], verbs: ['update'] }], '', b, target);
    assert.equal(
      err?.message.split('\n').slice(1).join('\n'),
      '{APIGroups:["apps"], Resources:["deployments"], Verbs:["update"]}\n{NonResourceURLs:["/metrics"], Verbs:["get"]}',
    );
  });

  it('the escalate verb on roles skips the check', () => {
    const escalator: ClusterRole = { metadata: { name: 'escalator' }, rules: [{ apiGroups: [rbacGroup], resources: ['roles'], verbs: ['escalate'] }] };
    const b = objects({
      roles: [podsRW],
      clusterRoles: [escalator],
      roleBindings: [holdsPods, { metadata: { namespace: 'ns', name: 'esc' }, roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'escalator' }, subjects: [{ kind: 'Group', name: 'g2' }] }],
    });
    const rules = [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }];
    assert.equal(confirmNoEscalation(u, rules, 'ns', b, target), undefined);
    assert.ok(confirmNoEscalation(u, rules, 'other', b, target), 'escalate only in ns');
    assert.ok(confirmNoEscalation(u, rules, '', b, { resource: 'clusterroles', name: 'x' }), 'escalate on roles is not on clusterroles');
  });

  it('system:masters skips the check', () => {
    const admin: UserInfo = { username: 'admin', groups: ['system:masters'] };
    assert.equal(confirmNoEscalation(admin, [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }], '', objects({}), target), undefined);
  });

  it('appends resolution errors from bindings to missing roles', () => {
    const b = objects({
      roleBindings: [{ metadata: { namespace: 'ns', name: 'x' }, roleRef: { apiGroup: rbacGroup, kind: 'Role', name: 'gone' }, subjects: [{ kind: 'User', name: 'u' }] }],
    });
    const err = confirmNoEscalation(u, [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }], 'ns', b, target);
    assert.match(err?.message ?? '', /Verbs:\["get"\]\}; resolution errors: \[role\.rbac\.authorization\.k8s\.io "gone" not found\]$/);
  });
});

describe('confirmCanBind', () => {
  const viewer: ClusterRole = { metadata: { name: 'viewer' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] };
  const bindTarget = { resource: 'rolebindings', name: 'rb' };

  it('allows binding a role whose rules the user holds', () => {
    const a = objects({ roles: [podsRW], roleBindings: [holdsPods], clusterRoles: [viewer] });
    assert.equal(confirmCanBind(u, { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'viewer' }, viewer.rules!, 'ns', a, bindTarget), undefined);
    const err = confirmCanBind(u, { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'viewer' }, viewer.rules!, 'other', a, bindTarget);
    assert.match(err?.message ?? '', /^rolebindings\.rbac\.authorization\.k8s\.io "rb" is forbidden: user "u" \(groups=\["g1" "g2"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["pods"\], Verbs:\["get"\]\}$/);
  });

  it('the bind verb on the referred role skips the check', () => {
    const binder: ClusterRole = { metadata: { name: 'binder' }, rules: [{ apiGroups: [rbacGroup], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['viewer'] }] };
    const crb: ClusterRoleBinding = { metadata: { name: 'b' }, roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'binder' }, subjects: [{ kind: 'User', name: 'u' }] };
    const a = objects({ clusterRoles: [viewer, binder], clusterRoleBindings: [crb] });
    assert.equal(confirmCanBind(u, { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'viewer' }, viewer.rules!, '', a, { resource: 'clusterrolebindings', name: 'x' }), undefined);
    const other: ClusterRole = { metadata: { name: 'other' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] };
    assert.ok(confirmCanBind(u, { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'other' }, other.rules!, '', a, { resource: 'clusterrolebindings', name: 'x' }));
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '@operant/apimachinery';
import { hasImpersonationHeaders, impersonate, impersonationRequested, type AuthorizationAttributes, type Authorize } from './impersonation.js';
import type { UserInfo } from './user-info.js';

const bob: UserInfo = { username: 'bob', groups: ['dev', 'system:authenticated'] };
const admin: UserInfo = { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };

/** An authorizer that allows exactly the listed `resource/name` pairs and records what it was asked. */
function allowing(...allowed: string[]): Authorize & { asked: AuthorizationAttributes[] } {
  const asked: AuthorizationAttributes[] = [];
  const fn = (attrs: AuthorizationAttributes): { allowed: boolean } => {
    asked.push(attrs);
    const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
    return { allowed: allowed.includes(`${resource}/${attrs.name}`) };
  };
  return Object.assign(fn, { asked });
}

async function rejection(p: Promise<unknown>): Promise<{ code: number; message?: string; details?: unknown }> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof StatusError, String(err));
    return { code: err.code, message: err.status.message, details: err.status.details };
  }
  assert.fail('expected a StatusError');
}

describe('impersonation', () => {
  it('leaves the user alone without impersonation headers', async () => {
    const authorize = allowing();
    assert.equal(await impersonate(bob, { accept: ['*/*'] }, authorize), bob);
    assert.equal(authorize.asked.length, 0);
    assert.equal(impersonationRequested({ accept: ['*/*'] }), false);
    assert.equal(impersonationRequested({ 'impersonate-extra-scopes': ['x'] }), true);
  });

  it('impersonates an allowed user, who gets system:authenticated', async () => {
    const authorize = allowing('users/jane');
    assert.deepEqual(await impersonate(bob, { 'impersonate-user': ['jane'] }, authorize), { username: 'jane', groups: ['system:authenticated'] });
    assert.deepEqual(authorize.asked, [
      {
        user: bob,
        verb: 'impersonate',
        resourceRequest: true,
        apiGroup: '',
        apiVersion: '',
        resource: 'users',
        subresource: '',
        namespace: '',
        name: 'jane',
        path: '',
      },
    ]);
  });

  it('refuses a user it may not impersonate with kube\'s 403', async () => {
    assert.deepEqual(await rejection(impersonate(bob, { 'impersonate-user': ['jane'] }, allowing())), {
      code: 403,
      message: 'users "jane" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope',
      details: { name: 'jane', kind: 'users' },
    });
    // An authorizer's reason is appended.
    const withReason: Authorize = () => ({ allowed: false, reason: 'no RBAC policy matched' });
    assert.equal(
      (await rejection(impersonate(bob, { 'impersonate-user': ['jane'] }, withReason))).message,
      'users "jane" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope: no RBAC policy matched',
    );
  });

  it('checks every group, and a refused group ends the request', async () => {
    const headers = { 'impersonate-user': ['jane'], 'impersonate-group': ['devs', 'admins'] };
    assert.deepEqual(await impersonate(bob, headers, allowing('users/jane', 'groups/devs', 'groups/admins')), {
      username: 'jane',
      groups: ['devs', 'admins', 'system:authenticated'],
    });
    assert.equal(
      (await rejection(impersonate(bob, headers, allowing('users/jane', 'groups/devs')))).message,
      'groups "admins" is forbidden: User "bob" cannot impersonate resource "groups" in API group "" at the cluster scope',
    );
  });

  it('impersonates a ServiceAccount with its groups, asking in its namespace', async () => {
    const authorize = allowing('serviceaccounts/op');
    assert.deepEqual(await impersonate(bob, { 'impersonate-user': ['system:serviceaccount:team-a:op'] }, authorize), {
      username: 'system:serviceaccount:team-a:op',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:team-a', 'system:authenticated'],
    });
    assert.equal(authorize.asked[0].namespace, 'team-a');
    assert.equal(
      (await rejection(impersonate(bob, { 'impersonate-user': ['system:serviceaccount:team-a:op'] }, allowing()))).message,
      'serviceaccounts "op" is forbidden: User "bob" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "team-a"',
    );
    // Not a valid ServiceAccount name: an ordinary user.
    assert.deepEqual(await impersonate(bob, { 'impersonate-user': ['system:serviceaccount:Bad_NS:op'] }, allowing('users/system:serviceaccount:Bad_NS:op')), {
      username: 'system:serviceaccount:Bad_NS:op',
      groups: ['system:authenticated'],
    });
  });

  it('sets uid and extras (keys unescaped and lowercased), each authorized', async () => {
    const authorize = allowing('users/jane', 'uids/1234', 'userextras/scopes/view', 'userextras/scopes/edit', 'userextras/example.com/team/a');
    const user = await impersonate(
      bob,
      { 'impersonate-user': ['jane'], 'impersonate-uid': ['1234'], 'impersonate-extra-scopes': ['view', 'edit'], 'impersonate-extra-example.com%2fteam': ['a'] },
      authorize,
    );
    assert.deepEqual(user, {
      username: 'jane',
      uid: '1234',
      groups: ['system:authenticated'],
      extra: { scopes: ['view', 'edit'], 'example.com/team': ['a'] },
    });
    const extraAsk = authorize.asked.find((a) => a.resource === 'userextras')!;
    assert.deepEqual([extraAsk.apiGroup, extraAsk.apiVersion, extraAsk.subresource, extraAsk.name], ['authentication.k8s.io', 'v1', 'scopes', 'view']);
    assert.equal(
      (await rejection(impersonate(bob, { 'impersonate-user': ['jane'], 'impersonate-extra-scopes': ['x'] }, allowing('users/jane')))).message,
      'userextras.authentication.k8s.io "x" is forbidden: User "bob" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope',
    );
  });

  it('lets system:masters impersonate anyone without asking', async () => {
    const authorize = allowing();
    const user = await impersonate(admin, { 'impersonate-user': ['jane'], 'impersonate-group': ['system:masters'] }, authorize);
    assert.deepEqual(user, { username: 'jane', groups: ['system:masters', 'system:authenticated'] });
    assert.equal(authorize.asked.length, 0);
  });

  it('keeps explicit system:authenticated / system:unauthenticated, and makes anonymous unauthenticated', async () => {
    const all = allowing('users/jane', 'groups/system:unauthenticated', 'users/system:anonymous', 'groups/system:authenticated');
    assert.deepEqual(await impersonate(bob, { 'impersonate-user': ['jane'], 'impersonate-group': ['system:unauthenticated'] }, all), {
      username: 'jane',
      groups: ['system:unauthenticated'],
    });
    assert.deepEqual(await impersonate(bob, { 'impersonate-user': ['system:anonymous'] }, all), { username: 'system:anonymous', groups: ['system:unauthenticated'] });
    assert.deepEqual(await impersonate(bob, { 'impersonate-user': ['jane'], 'impersonate-group': ['system:authenticated'] }, all), {
      username: 'jane',
      groups: ['system:authenticated'],
    });
  });

  it('refuses groups, uid or extras without a user (400)', async () => {
    assert.deepEqual(await rejection(impersonate(bob, { 'impersonate-group': ['devs'] }, allowing())), {
      code: 400,
      message: 'requested [{Group  devs    }] without impersonating a user',
      details: undefined,
    });
    assert.equal(
      (await rejection(impersonate(bob, { 'impersonate-uid': ['1'], 'impersonate-extra-scopes': ['v'] }, allowing()))).message,
      'requested [{UserExtra  v  authentication.k8s.io/v1  scopes} {UID  1  authentication.k8s.io/v1  }] without impersonating a user',
    );
  });
});

describe('hasImpersonationHeaders', () => {
  /** Raw header lines (name, value, ...) and the lower-case names Node's headersDistinct would give. */
  const distinct = (raw: string[]): Record<string, string[]> => {
    const out: Record<string, string[]> = {};
    for (let i = 0; i < raw.length; i += 2) (out[raw[i]!.toLowerCase()] ??= []).push(raw[i + 1]!);
    return out;
  };

  it('finds every impersonation header in any case, and is false only where impersonation finds no header', () => {
    const cases: Array<[string[], boolean]> = [
      [['Host', 'x', 'Authorization', 'Bearer t'], false],
      [['Impersonate-User', 'jane'], true],
      [['IMPERSONATE-GROUP', 'dev'], true],
      [['impersonate-uid', '1'], true],
      [['Content-Type', 'application/json', 'Impersonate-Extra-Scopes', 'view'], true],
      [['X-Impersonate-User', 'jane', 'Impersonated', 'no'], false],
    ];
    for (const [raw, expected] of cases) {
      assert.equal(hasImpersonationHeaders(raw), expected, raw.join(' '));
      if (!expected) assert.equal(impersonationRequested(distinct(raw)), false, raw.join(' '));
      else assert.equal(impersonationRequested(distinct(raw)), true, raw.join(' '));
    }
  });
});

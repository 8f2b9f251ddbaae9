import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RequestAttributes } from './attributes.js';
import { forbiddenError } from './forbidden.js';

function attrs(over: Partial<RequestAttributes> & { username: string }): RequestAttributes {
  const { username, ...rest } = over;
  return {
    user: { username, groups: ['system:authenticated'] },
    verb: 'get',
    resourceRequest: true,
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'pods',
    subresource: '',
    namespace: '',
    name: '',
    path: '',
    ...rest,
  };
}

describe('forbiddenError', () => {
  it('list in a namespace', () => {
    const err = forbiddenError(attrs({ username: 'system:serviceaccount:default:op', verb: 'list', namespace: 'default' }));
    assert.equal(err.code, 403);
    assert.equal(err.reason, 'Forbidden');
    assert.equal(
      err.message,
      'pods is forbidden: User "system:serviceaccount:default:op" cannot list resource "pods" in API group "" in the namespace "default"',
    );
    assert.deepEqual(err.status, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: err.message,
      reason: 'Forbidden',
      details: { kind: 'pods' },
      code: 403,
    });
  });

  it('with a name', () => {
    const err = forbiddenError(attrs({ username: 'u', namespace: 'default', name: 'x' }));
    assert.equal(err.message, 'pods "x" is forbidden: User "u" cannot get resource "pods" in API group "" in the namespace "default"');
    assert.deepEqual(err.status.details, { name: 'x', kind: 'pods' });
  });

  it('cluster scope, named group', () => {
    const err = forbiddenError(attrs({ username: 'u', verb: 'list', apiGroup: 'apps', apiVersion: 'v1', resource: 'deployments' }));
    assert.equal(err.message, 'deployments.apps is forbidden: User "u" cannot list resource "deployments" in API group "apps" at the cluster scope');
    assert.deepEqual(err.status.details, { group: 'apps', kind: 'deployments' });
  });

  it('subresource', () => {
    const err = forbiddenError(attrs({ username: 'u', subresource: 'log', namespace: 'ns', name: 'p' }));
    assert.equal(err.message, 'pods "p" is forbidden: User "u" cannot get resource "pods/log" in API group "" in the namespace "ns"');
    assert.deepEqual(err.status.details, { name: 'p', kind: 'pods' });
  });

  it('non-resource path', () => {
    const err = forbiddenError(attrs({ username: 'u', resourceRequest: false, resource: '', path: '/metrics' }));
    assert.equal(err.message, 'forbidden: User "u" cannot get path "/metrics"');
    assert.deepEqual(err.status.details, {});
  });

  it('appends the authorizer reason and escapes HTML characters in the attributes', () => {
    const err = forbiddenError(
      attrs({ username: 'a<b>&c', namespace: 'ns' }),
      'RBAC: role.rbac.authorization.k8s.io "r" not found',
    );
    assert.equal(
      err.message,
      'pods is forbidden: User "a&lt;b&gt;&amp;c" cannot get resource "pods" in API group "" in the namespace "ns": RBAC: role.rbac.authorization.k8s.io "r" not found',
    );
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../object.js';
import { addResources, exceededResources, printResources, subtractNonNegative } from './resource-list.js';
import { matchingQuotaResources, quotaConstraintProblem, quotaScopesMatch, quotaUsage } from './evaluators.js';

const pods = { group: '', resource: 'pods' };
const pod = (spec: Record<string, unknown>, status: Record<string, unknown> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec, status });
const container = (name: string, requests?: Record<string, string>, limits?: Record<string, string>, extra: Record<string, unknown> = {}) => ({ name, image: 'x', resources: { requests, limits }, ...extra });

describe('resource lists', () => {
  it('sums keep the first non-zero format; subtraction stops at zero; prints sorted', () => {
    assert.deepEqual(addResources({ 'requests.memory': '0', cpu: '500m' }, { 'requests.memory': '128Mi', cpu: '1.5', pods: '1' }), { 'requests.memory': '128Mi', cpu: '2', pods: '1' });
    assert.deepEqual(addResources({ memory: '1Gi' }, { memory: '512Mi' }), { memory: '1536Mi' });
    assert.deepEqual(subtractNonNegative({ a: '2', b: '1' }, { a: '3' }), { a: '0', b: '1' });
    assert.deepEqual(exceededResources({ pods: '3', cpu: '1' }, { pods: '2', cpu: '1', memory: '1Gi' }), ['pods']);
    assert.equal(printResources({ pods: '2', 'count/pods': '2' }), 'count/pods=2,pods=2');
  });
});

describe('quota evaluators', () => {
  it('a pod counts its effective requests: app containers summed, init containers at their peak, sidecars added', () => {
    const usage = quotaUsage(
      pods,
      pod({
        initContainers: [container('init', { cpu: '2', memory: '64Mi' }), container('sidecar', { cpu: '100m' }, undefined, { restartPolicy: 'Always' })],
        containers: [container('a', { cpu: '250m', memory: '128Mi' }, { cpu: '1', memory: '256Mi' }), container('b', { cpu: '250m', memory: '128Mi' }, { memory: '256Mi' })],
      }),
      0,
    );
    assert.deepEqual(usage, {
      pods: '1',
      'count/pods': '1',
      cpu: '2',
      'requests.cpu': '2',
      memory: '256Mi',
      'requests.memory': '256Mi',
      'limits.cpu': '1',
      'limits.memory': '512Mi',
    });
  });

  it('a finished pod counts only as an object', () => {
    assert.deepEqual(quotaUsage(pods, pod({ containers: [container('a', { cpu: '1' })] }, { phase: 'Succeeded' }), 0), { 'count/pods': '1' });
  });

  it('services count node ports and load balancers; claims count storage per class; configmaps by their legacy name', () => {
    const svc: KubeObject = { metadata: { name: 's' }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }, { port: 443 }] } };
    assert.deepEqual(quotaUsage({ group: '', resource: 'services' }, svc, 0), { 'count/services': '1', services: '1', 'services.loadbalancers': '1', 'services.nodeports': '2' });
    const pvc: KubeObject = { metadata: { name: 'c' }, spec: { storageClassName: 'gold', resources: { requests: { storage: '1Gi' } } } };
    assert.deepEqual(quotaUsage({ group: '', resource: 'persistentvolumeclaims' }, pvc, 0), {
      persistentvolumeclaims: '1',
      'count/persistentvolumeclaims': '1',
      'gold.storageclass.storage.k8s.io/persistentvolumeclaims': '1',
      'requests.storage': '1Gi',
      'gold.storageclass.storage.k8s.io/requests.storage': '1Gi',
    });
    assert.deepEqual(quotaUsage({ group: '', resource: 'configmaps' }, { metadata: { name: 'c' } }, 0), { 'count/configmaps': '1', configmaps: '1' });
    assert.deepEqual(quotaUsage({ group: 'apps', resource: 'deployments' }, { metadata: { name: 'd' } }, 0), { 'count/deployments.apps': '1' });
    assert.deepEqual(matchingQuotaResources({ group: '', resource: 'persistentvolumeclaims' }, ['gold.storageclass.storage.k8s.io/requests.storage', 'pods', 'requests.storage']), [
      'gold.storageclass.storage.k8s.io/requests.storage',
      'requests.storage',
    ]);
  });

  it('scopes apply to pods only; constraints name what a container leaves out, sorted', () => {
    const quota: KubeObject = { metadata: { name: 'q' }, spec: { scopes: ['BestEffort'] } };
    assert.equal(quotaScopesMatch(quota, pods, pod({ containers: [container('a')] })), true);
    assert.equal(quotaScopesMatch(quota, pods, pod({ containers: [container('a', { cpu: '1' })] })), false);
    assert.equal(quotaScopesMatch(quota, { group: '', resource: 'services' }, { metadata: {} }), false);
    const byClass: KubeObject = { metadata: { name: 'q' }, spec: { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } } };
    assert.equal(quotaScopesMatch(byClass, pods, pod({ priorityClassName: 'high' })), true);
    assert.equal(quotaScopesMatch(byClass, pods, pod({})), false);
    const problem = quotaConstraintProblem(pods, ['pods', 'limits.memory', 'limits.cpu'], pod({ containers: [container('a', { cpu: '1' })] }));
    assert.equal(problem, 'must specify limits.cpu,limits.memory');
    assert.equal(quotaConstraintProblem(pods, ['pods'], pod({ containers: [container('a')] })), undefined);
  });
});

/**
 * ResourceQuota admission against the server alone (issue 12): the quota's
 * status is written here as the resourcequota controller would write it, so
 * that the plugin's rules are seen without a controller: kube's messages for
 * an exceeded quota, a missing usage and a container that asks for no limits;
 * the charge to status.used at admission, which keeps two concurrent creates
 * from both taking the last unit; dry runs that charge nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestApi, type Json } from './support/api-client.js';

let api: TestApi;

before(async () => {
  api = await TestApi.start();
});
after(async () => {
  await api?.stop();
});

const quotas = (ns: string): string => `/api/v1/namespaces/${ns}/resourcequotas`;
const pods = (ns: string): string => `/api/v1/namespaces/${ns}/pods`;
const pod = (name: string, resources?: Json): Json => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'app', image: 'nginx', resources }] } });

/** Creates a quota and writes its status as the controller would. */
async function quota(ns: string, name: string, hard: Json, used: Json | undefined): Promise<void> {
  const created = await api.ok('POST', quotas(ns), { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec: { hard } }, 201);
  await api.ok('PUT', `${quotas(ns)}/${name}/status`, { ...created, status: used ? { hard, used } : { hard } }, 200);
}

describe('ResourceQuota admission', () => {
  it('charges status.used at admission: of two concurrent creates for the last pod, one passes and one is refused in kube words', async () => {
    await api.createNamespace('quota-pods');
    await quota('quota-pods', 'pods-quota', { pods: '2' }, { pods: '1' });
    const answers = await Promise.all(['a', 'b'].map((n) => api.request('POST', pods('quota-pods'), pod(n))));
    const codes = answers.map((r) => r.status).sort();
    assert.deepEqual(codes, [201, 403]);
    const refused = answers.find((r) => r.status === 403)!;
    const name = refused.body.details.name;
    assert.equal(refused.body.reason, 'Forbidden');
    assert.equal(refused.body.message, `pods "${name}" is forbidden: exceeded quota: pods-quota, requested: pods=1, used: pods=2, limited: pods=2`);
    const q = await api.ok('GET', `${quotas('quota-pods')}/pods-quota`);
    assert.deepEqual(q.status.used, { pods: '2' });
  });

  it('a quota on cpu or memory needs every container to ask for it; a pod within it is charged its limits', async () => {
    await api.createNamespace('quota-compute');
    await quota('quota-compute', 'compute', { 'limits.cpu': '2', 'limits.memory': '1Gi' }, { 'limits.cpu': '0', 'limits.memory': '0' });
    const bare = await api.request('POST', pods('quota-compute'), pod('bare'));
    assert.equal(bare.status, 403);
    assert.equal(bare.body.message, 'pods "bare" is forbidden: failed quota: compute: must specify limits.cpu,limits.memory');
    await api.ok('POST', pods('quota-compute'), pod('fits', { limits: { cpu: '1', memory: '512Mi' } }), 201);
    assert.deepEqual((await api.ok('GET', `${quotas('quota-compute')}/compute`)).status.used, { 'limits.cpu': '1', 'limits.memory': '512Mi' });
    const big = await api.request('POST', pods('quota-compute'), pod('big', { limits: { cpu: '1500m', memory: '256Mi' } }));
    assert.equal(big.status, 403);
    assert.equal(big.body.message, 'pods "big" is forbidden: exceeded quota: compute, requested: limits.cpu=1500m, used: limits.cpu=1, limited: limits.cpu=2');
    // A dry run is checked but charges nothing.
    await api.ok('POST', `${pods('quota-compute')}?dryRun=All`, pod('dry', { limits: { cpu: '500m', memory: '256Mi' } }), 201);
    assert.deepEqual((await api.ok('GET', `${quotas('quota-compute')}/compute`)).status.used, { 'limits.cpu': '1', 'limits.memory': '512Mi' });
  });

  it('a limited resource without usage refuses the write; a quota without status.hard does not count yet', async () => {
    await api.createNamespace('quota-unknown');
    const configMap = (name: string): Json => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
    await api.ok('POST', quotas('quota-unknown'), { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'fresh' }, spec: { hard: { configmaps: '0' } } }, 201);
    await api.ok('POST', '/api/v1/namespaces/quota-unknown/configmaps', configMap('before-status'), 201);
    await quota('quota-unknown', 'maps', { configmaps: '5', 'count/configmaps': '5' }, undefined);
    const r = await api.request('POST', '/api/v1/namespaces/quota-unknown/configmaps', configMap('unknown'));
    assert.equal(r.status, 403);
    assert.equal(r.body.message, 'configmaps "unknown" is forbidden: status unknown for quota: maps, resources: configmaps,count/configmaps');
  });

  it('a Service becoming a NodePort is charged its ports on update', async () => {
    await api.createNamespace('quota-svc');
    await quota('quota-svc', 'ports', { 'services.nodeports': '1' }, { 'services.nodeports': '0' });
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ name: 'a', port: 80 }, { name: 'b', port: 81 }] } };
    const created = await api.ok('POST', '/api/v1/namespaces/quota-svc/services', svc, 201);
    const r = await api.request('PUT', '/api/v1/namespaces/quota-svc/services/web', { ...created, spec: { ...created.spec, type: 'NodePort' } });
    assert.equal(r.status, 403);
    assert.equal(r.body.message, 'services "web" is forbidden: exceeded quota: ports, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1');
  });
});

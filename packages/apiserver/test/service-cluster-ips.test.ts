/**
 * Cluster IPs of Services, over HTTPS against the embedded server, as kube's
 * service registry allocates them from the service CIDR, 10.96.0.0/12
 * (pkg/registry/core/service/storage/alloc.go and ipallocator): the one
 * asked for when it is in the range and free, else the next free one; held
 * from the registry's BeginCreate/BeginUpdate until the write is stored or
 * has failed; none for headless (`None`) and ExternalName Services; given
 * back by a deletion or a change to ExternalName; rebuilt from the stored
 * Services after a restart. kube's errors for an address in use and one
 * outside the range.
 */
import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TestApi, type Json } from './support/api-client.js';
import { startServiceWebhook, type ServiceWebhook } from './support/service-webhook.js';

const mergePatch = { 'Content-Type': 'application/merge-patch+json' };

function service(name: string, spec: Json = {}, labels?: Json): Json {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, ...(labels ? { labels } : {}) }, spec: { selector: { app: name }, ports: [{ port: 80 }], ...spec } };
}

/** Whether `ip` is an address kube's allocator may hand out from 10.96.0.0/12 (neither the network nor the broadcast address). */
function inServiceRange(ip: string): boolean {
  const [a, b, c, d] = ip.split('.').map(Number);
  const n = ((b - 96) << 16) | (c << 8) | d;
  return a === 10 && b >= 96 && b <= 111 && n > 0 && n < (1 << 20) - 1;
}

/** kube's 422 for a cluster IP its allocator refuses (allocIPs): the field is spec.clusterIPs, the value the whole list. */
function refusedIp(name: string, ip: string, why: string): Json {
  const body = `Invalid value: []string{"${ip}"}: failed to allocate IP ${ip}: ${why}`;
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `Service "${name}" is invalid: spec.clusterIPs: ${body}`,
    reason: 'Invalid',
    details: { name, kind: 'Service', causes: [{ reason: 'FieldValueInvalid', message: body, field: 'spec.clusterIPs' }] },
    code: 422,
  };
}
const alreadyAllocated = (name: string, ip: string): Json => refusedIp(name, ip, 'provided IP is already allocated');
const notInRange = (name: string, ip: string): Json =>
  refusedIp(name, ip, `the provided IP (${ip}) is not in the valid range. The range of valid IPs is 10.96.0.0/12`);

describe('Service cluster IPs', () => {
  let api: TestApi;
  const ns = 'cluster-ips';
  const path = `/api/v1/namespaces/${ns}/services`;
  before(async () => {
    api = await TestApi.start();
    await api.createNamespace(ns);
  });
  after(() => api.stop());

  const refused = async (body: Json, query = ''): Promise<Json> => {
    const res = await api.request('POST', `${path}${query}`, body);
    assert.equal(res.status, 422, res.text);
    return res.body;
  };

  it('a Service gets a free address of the range; concurrent creates get different ones, none of them the kubernetes Service\'s', async () => {
    const created = await Promise.all(Array.from({ length: 12 }, (_, i) => api.ok('POST', path, service(`auto-${i}`), 201)));
    const ips = created.map((s) => s.spec.clusterIP as string);
    for (const [i, s] of created.entries()) {
      assert.ok(inServiceRange(ips[i]), `${ips[i]} is in the range`);
      assert.deepEqual(s.spec.clusterIPs, [ips[i]]);
    }
    assert.equal(new Set(ips).size, 12, ips.join(' '));
    assert.ok(!ips.includes('10.96.0.1'));
    assert.deepEqual((await api.ok('GET', `${path}/auto-0`)).spec.clusterIPs, [ips[0]], 'stored as answered');
  });

  it("an address asked for is given when free; one another Service holds is kube's Invalid, whether asked as clusterIP or clusterIPs", async () => {
    const asked = await api.ok('POST', path, service('asks', { clusterIP: '10.96.0.10' }), 201);
    assert.deepEqual([asked.spec.clusterIP, asked.spec.clusterIPs], ['10.96.0.10', ['10.96.0.10']]);
    assert.deepEqual(await refused(service('b', { clusterIP: '10.96.0.10' })), alreadyAllocated('b', '10.96.0.10'));
    assert.deepEqual(await refused(service('b', { clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'] })), alreadyAllocated('b', '10.96.0.10'));
    // A NodePort Service's address comes from the same range.
    assert.deepEqual(await refused(service('b', { type: 'NodePort', clusterIP: '10.96.0.10' })), alreadyAllocated('b', '10.96.0.10'));
    assert.equal((await api.request('GET', `${path}/b`)).status, 404, 'nothing was created');
  });

  it("the kubernetes Service's 10.96.0.1 stays reserved", async () => {
    assert.equal((await api.ok('GET', '/api/v1/namespaces/default/services/kubernetes')).spec.clusterIP, '10.96.0.1');
    assert.deepEqual(await refused(service('wants-first', { clusterIP: '10.96.0.1' })), alreadyAllocated('wants-first', '10.96.0.1'));
  });

  it("an address outside the range, or the range's network or broadcast address, is kube's Invalid naming the range", async () => {
    for (const ip of ['1.1.1.1', '10.96.0.0', '10.111.255.255', '10.112.0.1']) {
      assert.deepEqual(await refused(service('outside', { clusterIP: ip })), notInRange('outside', ip));
    }
    // kube's loose checks before it allocates: an address at all, and of a family this single-stack cluster serves.
    assert.equal((await refused(service('not-ip', { clusterIP: 'foo' }))).message, 'Service "not-ip" is invalid: spec.clusterIPs[0]: Invalid value: "foo": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)');
    assert.equal((await refused(service('v6', { clusterIP: 'fd00::10' }))).message, 'Service "v6" is invalid: spec.clusterIPs[0]: Invalid value: []string{"fd00::10"}: IPv6 is not configured on this cluster');
  });

  it('headless and ExternalName Services hold no address', async () => {
    const a = await api.ok('POST', path, service('headless-a', { clusterIP: 'None' }), 201);
    const b = await api.ok('POST', path, service('headless-b', { clusterIP: 'None' }), 201);
    assert.deepEqual([a.spec.clusterIPs, b.spec.clusterIPs], [['None'], ['None']]);
    assert.deepEqual([a.spec.ipFamilyPolicy, a.spec.ipFamilies], ['SingleStack', ['IPv4']]);
    // kube makes a headless Service without a selector RequireDualStack with both families, on any cluster.
    const selectorless = await api.ok('POST', path, { ...service('headless-c', { clusterIP: 'None' }), spec: { clusterIP: 'None', ports: [{ port: 80 }] } }, 201);
    assert.deepEqual([selectorless.spec.ipFamilyPolicy, selectorless.spec.ipFamilies], ['RequireDualStack', ['IPv4', 'IPv6']]);
    const ext = await api.ok('POST', path, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'ext' }, spec: { type: 'ExternalName', externalName: 'example.com' } }, 201);
    assert.equal(ext.spec.clusterIP, undefined);
    assert.equal(ext.spec.clusterIPs, undefined);
  });

  it('an update that leaves the address out keeps it; one that changes it is refused; a change to ExternalName gives it back, and back to ClusterIP takes a new one', async () => {
    const svc = await api.ok('POST', path, service('changes', { clusterIP: '10.96.0.20' }), 201);
    const put = await api.ok('PUT', `${path}/changes`, { ...svc, spec: { ...svc.spec, clusterIP: undefined, clusterIPs: undefined } });
    assert.deepEqual([put.spec.clusterIP, put.spec.clusterIPs], ['10.96.0.20', ['10.96.0.20']]);
    const moved = await api.request('PUT', `${path}/changes`, { ...put, spec: { ...put.spec, clusterIP: '10.96.0.21' } });
    assert.equal(moved.status, 422, moved.text);
    assert.equal(moved.body.message, 'Service "changes" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.96.0.21"}: may not change once set');

    const ext = await api.ok('PATCH', `${path}/changes`, JSON.stringify({ spec: { type: 'ExternalName', externalName: 'example.com' } }), 200, mergePatch);
    assert.deepEqual([ext.spec.clusterIP, ext.spec.clusterIPs, ext.spec.ipFamilies, ext.spec.ipFamilyPolicy], [undefined, undefined, undefined, undefined]);
    await api.ok('POST', path, service('takes-20', { clusterIP: '10.96.0.20' }), 201);

    // Back from ExternalName: the address asked for is checked as on a create.
    const clash = await api.request('PATCH', `${path}/changes`, JSON.stringify({ spec: { type: 'ClusterIP', externalName: null, clusterIP: '10.96.0.20' } }), mergePatch);
    assert.deepEqual(clash.body, alreadyAllocated('changes', '10.96.0.20'));
    const back = await api.ok('PATCH', `${path}/changes`, JSON.stringify({ spec: { type: 'ClusterIP', externalName: null } }), 200, mergePatch);
    assert.ok(inServiceRange(back.spec.clusterIP) && back.spec.clusterIP !== '10.96.0.20', back.spec.clusterIP);
    assert.deepEqual(back.spec.clusterIPs, [back.spec.clusterIP]);
  });

  it('a deleted Service gives its address back', async () => {
    await api.ok('POST', path, service('frees', { clusterIP: '10.96.0.30' }), 201);
    await refused(service('waits', { clusterIP: '10.96.0.30' }));
    await api.ok('DELETE', `${path}/frees`, undefined, 200);
    assert.equal((await api.ok('POST', path, service('waits', { clusterIP: '10.96.0.30' }), 201)).spec.clusterIP, '10.96.0.30');
  });

  it("a create that fails validation gives its address back; a dry run holds nothing, as kube's dry-run allocator checks only the range", async () => {
    const invalid = await api.request('POST', path, service('invalid', { clusterIP: '10.96.0.40', ports: [] }));
    assert.equal(invalid.status, 422, invalid.text);
    assert.equal(invalid.body.message, 'Service "invalid" is invalid: spec.ports: Required value');
    await api.ok('POST', path, service('after-invalid', { clusterIP: '10.96.0.40' }), 201);

    const dry = await api.ok('POST', `${path}?dryRun=All`, service('dry', { clusterIP: '10.96.0.41' }), 201);
    assert.equal(dry.spec.clusterIP, '10.96.0.41');
    await api.ok('POST', path, service('after-dry', { clusterIP: '10.96.0.41' }), 201);
    // kube's dry run neither looks for a free address (it answers the range's network address) nor checks one asked for.
    const dryAuto = await api.ok('POST', `${path}?dryRun=All`, service('dry-auto'), 201);
    assert.deepEqual(dryAuto.spec.clusterIPs, ['10.96.0.0']);
    assert.equal((await api.ok('POST', `${path}?dryRun=All`, service('dry-taken', { clusterIP: '10.96.0.41' }), 201)).spec.clusterIP, '10.96.0.41');
    assert.deepEqual(await refused(service('dry-outside', { clusterIP: '1.1.1.1' }), '?dryRun=All'), notInRange('dry-outside', '1.1.1.1'));
  });
});

describe('cluster IPs held across the validating webhooks, as kube allocates them before admission validates', () => {
  let api: TestApi;
  let webhook: ServiceWebhook;
  const ns = 'reviewed-ips';
  const path = `/api/v1/namespaces/${ns}/services`;
  before(async () => {
    api = await TestApi.start();
    await api.createNamespace(ns);
    webhook = await startServiceWebhook(api, ns);
  });
  after(async () => {
    webhook.close();
    await api.stop();
  });

  const reviewed = (name: string, review: string, clusterIP?: string): Json => service(name, clusterIP ? { clusterIP } : {}, { review });

  it("two concurrent creates asking for the same address: exactly one is stored, the other is kube's Invalid", async () => {
    let progressed = 0;
    const progress = new EventEmitter();
    const step = (): void => {
      progressed++;
      progress.emit('step');
    };
    webhook.arrivals.on('held', step);
    try {
      const creates = ['race-a', 'race-b'].map((name) => api.request('POST', path, reviewed(name, 'hold', '10.96.0.50')).finally(step));
      while (progressed < 2) await once(progress, 'step');
      webhook.releaseAll(true);
      const answers = await Promise.all(creates);
      assert.deepEqual(answers.map((a) => a.status).sort(), [201, 422], answers.map((a) => a.text).join('\n'));
      const refused = answers.find((a) => a.status === 422)!.body;
      assert.deepEqual(refused, alreadyAllocated(refused.details.name, '10.96.0.50'));
      assert.equal((await api.request('GET', `${path}/${refused.details.name}`)).status, 404);
    } finally {
      webhook.arrivals.off('held', step);
      webhook.releaseAll(false);
    }
  });

  it('a create the webhook holds keeps its address from other creates; denied, it gives the address back', async () => {
    const first = api.request('POST', path, reviewed('holds', 'hold', '10.96.0.51'));
    await webhook.heldReview('holds');
    assert.deepEqual((await api.request('POST', path, reviewed('clashes', 'allow', '10.96.0.51'))).body, alreadyAllocated('clashes', '10.96.0.51'));
    webhook.releaseAll(false);
    const denied = await first;
    assert.equal(denied.status, 403, denied.text);
    assert.equal((await api.ok('POST', path, reviewed('later', 'allow', '10.96.0.51'), 201)).spec.clusterIP, '10.96.0.51');
  });

  it('an address allocated for a create the webhook holds is not handed to another create', async () => {
    const first = api.request('POST', path, reviewed('auto-held', 'hold'));
    await webhook.heldReview('auto-held');
    const others = await Promise.all(Array.from({ length: 5 }, (_, i) => api.ok('POST', path, reviewed(`auto-other-${i}`, 'allow'), 201)));
    webhook.releaseAll(true);
    const held = await first;
    assert.equal(held.status, 201, held.text);
    const ips = [held.body.spec.clusterIP, ...others.map((s) => s.spec.clusterIP)];
    assert.equal(new Set(ips).size, ips.length, ips.join(' '));
  });
});

describe('cluster IPs after a restart with a data dir', () => {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'operant-cluster-ips-')), 'data');
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  const path = '/api/v1/namespaces/default/services';

  it('the addresses of the stored Services are never handed out again, and one asked for is refused', async () => {
    const first = await TestApi.start({ dataDir });
    let stored: string[];
    try {
      await first.ok('POST', path, service('asked', { clusterIP: '10.96.0.60' }), 201);
      const autos = await Promise.all(Array.from({ length: 4 }, (_, i) => first.ok('POST', path, service(`auto-${i}`), 201)));
      stored = ['10.96.0.60', ...autos.map((s) => s.spec.clusterIP as string)];
    } finally {
      await first.stop();
    }
    const second = await TestApi.start({ dataDir });
    try {
      for (const ip of stored) {
        const res = await second.request('POST', path, service('again', { clusterIP: ip }));
        assert.deepEqual(res.body, alreadyAllocated('again', ip));
      }
      const fresh = await Promise.all(Array.from({ length: 4 }, (_, i) => second.ok('POST', path, service(`fresh-${i}`), 201)));
      for (const s of fresh) assert.ok(!stored.includes(s.spec.clusterIP), `${s.spec.clusterIP} was not in use`);
    } finally {
      await second.stop();
    }
  });
});

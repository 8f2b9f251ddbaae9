/**
 * Node ports of Services, over HTTPS against the embedded server, as kube's
 * service registry allocates them from its default range, 30000-32767: one
 * for each port of a NodePort or LoadBalancer Service (shared by the
 * protocols of one port number), the one asked for when it is in the range
 * and free, kept across updates that leave it out, freed with the Service or
 * when it stops being a NodePort; kube's errors for a port outside the range,
 * a port another Service holds, a node port on a ClusterIP Service, and a
 * full range.
 */
import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { TestApi, type Json } from './support/api-client.js';
import { startServiceWebhook, type ServiceWebhook } from './support/service-webhook.js';

const range = { min: 30000, max: 32767 };
const rangeSize = range.max - range.min + 1;

function service(name: string, spec: Json): Json {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { selector: { app: name }, ...spec } };
}

/** `count` named TCP ports, 1, 2, ... */
function manyPorts(count: number): Json[] {
  return Array.from({ length: count }, (_, i) => ({ name: `p${i + 1}`, port: i + 1 }));
}

const nodePorts = (svc: Json): number[] => svc.spec.ports.map((p: Json) => p.nodePort);

describe('Service node ports', () => {
  let api: TestApi;
  const ns = 'node-ports';
  const path = `/api/v1/namespaces/${ns}/services`;
  before(async () => {
    api = await TestApi.start();
    await api.createNamespace(ns);
  });
  after(() => api.stop());

  /** POSTs `body`, expecting an error: answers the Status. */
  async function refused(body: Json, code: number): Promise<Json> {
    const res = await api.request('POST', path, body);
    assert.equal(res.status, code, res.text);
    return res.body;
  }

  it('a NodePort Service gets a free port of the range for each port; TCP and UDP of one port number share one', async () => {
    const a = await api.ok('POST', path, service('auto-a', { type: 'NodePort', ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }] }), 201);
    const b = await api.ok('POST', path, service('auto-b', { type: 'NodePort', ports: [{ name: 'dns-tcp', port: 53, protocol: 'TCP' }, { name: 'dns-udp', port: 53, protocol: 'UDP' }] }), 201);
    for (const p of [...nodePorts(a), ...nodePorts(b)]) assert.ok(Number.isInteger(p) && p >= range.min && p <= range.max, `${p} is in the range`);
    assert.equal(new Set([...nodePorts(a), nodePorts(b)[0]]).size, 3, 'each Service port has a port of its own');
    assert.equal(nodePorts(b)[0], nodePorts(b)[1], 'one node port for both protocols of port 53');
    const read = await api.ok('GET', `${path}/auto-a`);
    assert.deepEqual(nodePorts(read), nodePorts(a), 'stored as answered');
  });

  it('concurrent creates get different ports', async () => {
    const created = await Promise.all(Array.from({ length: 12 }, (_, i) => api.ok('POST', path, service(`concurrent-${i}`, { type: 'NodePort', ports: [{ port: 80 }] }), 201)));
    assert.equal(new Set(created.map((s) => nodePorts(s)[0])).size, 12);
  });

  it('a port asked for is given when free; one another Service holds is kube\'s Invalid, "provided port is already allocated"', async () => {
    const asked = await api.ok('POST', path, service('asks', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] }), 201);
    assert.deepEqual(nodePorts(asked), [30080]);
    const status = await refused(service('clash', { type: 'NodePort', ports: [{ port: 8080, nodePort: 30080 }] }), 422);
    assert.equal(status.reason, 'Invalid');
    assert.equal(status.message, 'Service "clash" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated');
    assert.deepEqual(status.details, {
      name: 'clash',
      kind: 'Service',
      causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: 30080: provided port is already allocated', field: 'spec.ports[0].nodePort' }],
    });
    // A LoadBalancer's node ports come from the same range.
    const lb = await refused(service('clash-lb', { type: 'LoadBalancer', ports: [{ name: 'a', port: 1 }, { name: 'b', port: 2, nodePort: 30080 }] }), 422);
    assert.equal(lb.message, 'Service "clash-lb" is invalid: spec.ports[1].nodePort: Invalid value: 30080: provided port is already allocated');
    assert.equal((await api.request('GET', `${path}/clash`)).status, 404, 'nothing was created');
  });

  it('two ports of one Service asking for the same node port: the second is already allocated; TCP and UDP of one port number may share it', async () => {
    const status = await refused(service('twice', { type: 'NodePort', ports: [{ name: 'a', port: 80, nodePort: 30090 }, { name: 'b', port: 81, nodePort: 30090 }] }), 422);
    assert.equal(status.message, 'Service "twice" is invalid: spec.ports[1].nodePort: Invalid value: 30090: provided port is already allocated');
    const shared = await api.ok('POST', path, service('shared', {
      type: 'NodePort',
      ports: [{ name: 'tcp', port: 53, protocol: 'TCP', nodePort: 30053 }, { name: 'udp', port: 53, protocol: 'UDP' }],
    }), 201);
    assert.deepEqual(nodePorts(shared), [30053, 30053], 'the UDP port takes the node port its TCP twin asked for');
  });

  it('a port outside the range is kube\'s Invalid, naming the range', async () => {
    for (const [name, port] of [['low', 80], ['below', 29999], ['above', 32768]] as const) {
      const status = await refused(service(name, { type: 'NodePort', ports: [{ port: 80, nodePort: port }] }), 422);
      assert.equal(status.message, `Service "${name}" is invalid: spec.ports[0].nodePort: Invalid value: ${port}: provided port is not in the valid range. The range of valid ports is 30000-32767`);
    }
  });

  it('a ClusterIP Service may not name a node port; one port of one protocol may not name one twice', async () => {
    const clusterIp = await refused(service('cluster-ip', { ports: [{ port: 80, nodePort: 30100 }] }), 422);
    assert.equal(clusterIp.message, 'Service "cluster-ip" is invalid: spec.ports[0].nodePort: Forbidden: may not be used when `type` is \'ClusterIP\'');
    const twice = await refused(service('same-twice', { type: 'NodePort', ports: [{ name: 'a', port: 80, nodePort: 30101 }, { name: 'b', port: 80, nodePort: 30101 }] }), 422);
    assert.equal(twice.message, 'Service "same-twice" is invalid: spec.ports[1].nodePort: Duplicate value: 30101');
  });

  it('a LoadBalancer with allocateLoadBalancerNodePorts false gets none, but keeps one it asks for', async () => {
    const lb = await api.ok('POST', path, service('lb-none', {
      type: 'LoadBalancer',
      allocateLoadBalancerNodePorts: false,
      ports: [{ name: 'a', port: 80 }, { name: 'b', port: 81, nodePort: 30181 }],
    }), 201);
    assert.deepEqual(nodePorts(lb), [undefined, 30181]);
  });

  it('updates keep the node ports they leave out, check the ones they ask for, and a ClusterIP Service gives its ports back', async () => {
    const created = await api.ok('POST', path, service('updated', { type: 'NodePort', ports: [{ name: 'http', port: 80 }, { name: 'admin', port: 9000, nodePort: 30200 }] }), 201);
    const [http] = nodePorts(created);
    // A PUT that leaves the node ports out, as a controller that rebuilds the spec sends it.
    const put = await api.ok('PUT', `${path}/updated`, {
      ...created,
      spec: { ...created.spec, ports: [{ name: 'http', port: 80 }, { name: 'admin', port: 9000 }, { name: 'extra', port: 9100 }] },
    });
    const kept = nodePorts(put);
    assert.deepEqual(kept.slice(0, 2), [http, 30200], 'kept, matched by name');
    assert.ok(kept[2] >= range.min && kept[2] <= range.max && !kept.slice(0, 2).includes(kept[2]), 'the new port gets a free one');
    await api.ok('POST', path, service('holder', { type: 'NodePort', ports: [{ port: 80, nodePort: 30201 }] }), 201);
    const moved = put.spec.ports.map((p: Json) => (p.name === 'admin' ? { ...p, nodePort: 30201 } : p));
    const clash = await api.request('PUT', `${path}/updated`, { ...put, spec: { ...put.spec, ports: moved } });
    assert.equal(clash.status, 422, clash.text);
    assert.equal(clash.body.message, 'Service "updated" is invalid: spec.ports[1].nodePort: Invalid value: 30201: provided port is already allocated');
    const outside = await api.request('PUT', `${path}/updated`, { ...put, spec: { ...put.spec, ports: put.spec.ports.map((p: Json) => (p.name === 'admin' ? { ...p, nodePort: 8080 } : p)) } });
    assert.equal(outside.body.message, 'Service "updated" is invalid: spec.ports[1].nodePort: Invalid value: 8080: provided port is not in the valid range. The range of valid ports is 30000-32767');

    // Back to ClusterIP with the ports as they are: kube clears the node ports it gave, and they are free again.
    const clusterIp = await api.ok('PATCH', `${path}/updated`, JSON.stringify({ spec: { type: 'ClusterIP' } }), 200, { 'Content-Type': 'application/merge-patch+json' });
    assert.deepEqual(nodePorts(clusterIp), [undefined, undefined, undefined]);
    const reused = await api.ok('POST', path, service('reuses', { type: 'NodePort', ports: [{ port: 80, nodePort: 30200 }] }), 201);
    assert.deepEqual(nodePorts(reused), [30200]);
    // And a NodePort again: new ports, allocated on the update.
    const again = await api.ok('PATCH', `${path}/updated`, JSON.stringify({ spec: { type: 'NodePort' } }), 200, { 'Content-Type': 'application/merge-patch+json' });
    assert.ok(nodePorts(again).every((p: number) => p >= range.min && p <= range.max && p !== 30200));
  });

  it("an update naming one node port twice for one protocol is kube's 500 without a reason, before validation; TCP and UDP may share one", async () => {
    const created = await api.ok('POST', path, service('dup-update', { type: 'NodePort', ports: [{ name: 'a', port: 80 }, { name: 'b', port: 81 }] }), 201);
    const [a] = nodePorts(created);
    const withPorts = (b: Json, aPort = a): Json => ({ ...created, spec: { ...created.spec, ports: [{ name: 'a', port: 80, nodePort: aPort }, { name: 'b', port: 81, ...b }] } });
    // kube's updateNodePorts returns a plain error there, which its handler answers as a Status without reason or details.
    const expected = (port: number): Json => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `duplicate nodePort: {TCP ${port}}`, code: 500 });
    const onHeld = await api.request('PUT', `${path}/dup-update`, withPorts({ nodePort: a }));
    assert.equal(onHeld.status, 500, onHeld.text);
    assert.deepEqual(onHeld.body, expected(a));
    const onNew = await api.request('PUT', `${path}/dup-update`, withPorts({ nodePort: 30610 }, 30610));
    assert.equal(onNew.status, 500, onNew.text);
    assert.deepEqual(onNew.body, expected(30610));
    // The failed update gave back the port it took for the first of them.
    await api.ok('POST', path, service('after-dup-update', { type: 'NodePort', ports: [{ port: 80, nodePort: 30610 }] }), 201);
    const shared = await api.ok('PUT', `${path}/dup-update`, withPorts({ protocol: 'UDP', nodePort: a }));
    assert.deepEqual(nodePorts(shared), [a, a], 'TCP and UDP share one node port');
  });

  it('a LoadBalancer that stops allocating node ports keeps those it has, as kube does', async () => {
    const mergePatch = { 'Content-Type': 'application/merge-patch+json' };
    const lb = await api.ok('POST', path, service('lb-stops', { type: 'LoadBalancer', ports: [{ name: 'a', port: 80 }] }), 201);
    const off = await api.ok('PATCH', `${path}/lb-stops`, JSON.stringify({ spec: { allocateLoadBalancerNodePorts: false } }), 200, mergePatch);
    assert.deepEqual(nodePorts(off), nodePorts(lb));
    const held = await refused(service('lb-stops-clash', { type: 'NodePort', ports: [{ port: 80, nodePort: nodePorts(lb)[0] }] }), 422);
    assert.match(held.message, /provided port is already allocated$/, 'still held');
    // A NodePort Service that becomes such a LoadBalancer keeps its node ports too.
    const np = await api.ok('POST', path, service('np-to-lb', { type: 'NodePort', ports: [{ name: 'a', port: 80 }] }), 201);
    const toLb = await api.ok('PATCH', `${path}/np-to-lb`, JSON.stringify({ spec: { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false } }), 200, mergePatch);
    assert.deepEqual(nodePorts(toLb), nodePorts(np));
  });

  it("a LoadBalancer with externalTrafficPolicy Local holds a healthCheckNodePort of the range as kube's registry allocates it", async () => {
    const mergePatch = { 'Content-Type': 'application/merge-patch+json' };
    const local = await api.ok('POST', path, service('hc-local', { type: 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [{ name: 'a', port: 80 }] }), 201);
    const hc = local.spec.healthCheckNodePort;
    assert.ok(Number.isInteger(hc) && hc >= range.min && hc <= range.max && hc !== nodePorts(local)[0], `${hc} is a port of the range of its own`);
    const clash = await refused(service('hc-clash', { type: 'NodePort', ports: [{ port: 80, nodePort: hc }] }), 422);
    assert.match(clash.message, /spec\.ports\[0\]\.nodePort: Invalid value: \d+: provided port is already allocated$/, 'held');

    const asked = await api.ok('POST', path, service('hc-asks', { type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: 30400, ports: [{ port: 80 }] }), 201);
    assert.equal(asked.spec.healthCheckNodePort, 30400);
    const taken = await api.request('POST', path, service('hc-taken', { type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: 30400, ports: [{ port: 80 }] }));
    assert.equal(taken.status, 500, taken.text);
    assert.equal(taken.body.message, 'Internal error occurred: failed to allocate requested HealthCheck NodePort 30400: provided port is already allocated');
    const notNeeded = await refused(service('hc-not-needed', { type: 'NodePort', healthCheckNodePort: 30401, ports: [{ port: 80 }] }), 422);
    assert.equal(notNeeded.message, "Service \"hc-not-needed\" is invalid: spec.healthCheckNodePort: Invalid value: 30401: may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'");

    // An update that leaves it out keeps it; one that changes it is refused.
    const put = await api.ok('PUT', `${path}/hc-local`, { ...local, spec: { ...local.spec, healthCheckNodePort: undefined } });
    assert.equal(put.spec.healthCheckNodePort, hc);
    const changed = await api.request('PUT', `${path}/hc-local`, { ...put, spec: { ...put.spec, healthCheckNodePort: 30402 } });
    assert.equal(changed.status, 422, changed.text);
    assert.equal(changed.body.message, 'Service "hc-local" is invalid: spec.healthCheckNodePort: Forbidden: field is immutable');
    // No longer Local: cleared and free; Local again: a port allocated by the update.
    const cluster = await api.ok('PATCH', `${path}/hc-local`, JSON.stringify({ spec: { externalTrafficPolicy: 'Cluster' } }), 200, mergePatch);
    assert.equal(cluster.spec.healthCheckNodePort, undefined);
    await api.ok('POST', path, service('hc-reuses', { type: 'NodePort', ports: [{ port: 80, nodePort: hc }] }), 201);
    const again = await api.ok('PATCH', `${path}/hc-local`, JSON.stringify({ spec: { externalTrafficPolicy: 'Local' } }), 200, mergePatch);
    const next = again.spec.healthCheckNodePort;
    assert.ok(Number.isInteger(next) && next >= range.min && next <= range.max && next !== hc);
  });

  it('a deleted Service frees its node ports', async () => {
    await api.ok('POST', path, service('frees', { type: 'NodePort', ports: [{ port: 80, nodePort: 30300 }] }), 201);
    await refused(service('waits', { type: 'NodePort', ports: [{ port: 80, nodePort: 30300 }] }), 422);
    await api.ok('DELETE', `${path}/frees`, undefined, 200);
    const taken = await api.ok('POST', path, service('waits', { type: 'NodePort', ports: [{ port: 80, nodePort: 30300 }] }), 201);
    assert.deepEqual(nodePorts(taken), [30300]);
  });
});

describe('a full node port range', () => {
  let api: TestApi;
  const path = '/api/v1/namespaces/default/services';
  before(async () => {
    api = await TestApi.start();
  });
  after(() => api.stop());

  it('takes every port once; then an allocation is kube\'s 500 "range is full", a port asked for is already allocated, and a deletion frees them', async () => {
    const full = await api.ok('POST', path, service('fills', { type: 'NodePort', ports: manyPorts(rangeSize) }), 201);
    const given = nodePorts(full).sort((a: number, b: number) => a - b);
    assert.deepEqual(given, Array.from({ length: rangeSize }, (_, i) => range.min + i), 'every port of the range, each once');

    const res = await api.request('POST', path, service('one-more', { type: 'NodePort', ports: [{ port: 80 }] }));
    assert.equal(res.status, 500, res.text);
    assert.equal(res.body.reason, 'InternalError');
    assert.equal(res.body.message, 'Internal error occurred: failed to allocate a nodePort: range is full');
    const asked = await api.request('POST', path, service('asks', { type: 'NodePort', ports: [{ port: 80, nodePort: 31000 }] }));
    assert.equal(asked.status, 422, asked.text);
    assert.equal(asked.body.message, 'Service "asks" is invalid: spec.ports[0].nodePort: Invalid value: 31000: provided port is already allocated');
    // A ClusterIP Service needs no node port.
    await api.ok('POST', path, service('cluster-ip', { ports: [{ port: 80 }] }), 201);

    await api.ok('DELETE', `${path}/fills`, undefined, 200);
    const freed = await api.ok('POST', path, service('one-more', { type: 'NodePort', ports: [{ port: 80 }] }), 201);
    assert.ok(nodePorts(freed)[0] >= range.min && nodePorts(freed)[0] <= range.max);
    for (const port of [range.min, range.max].filter((p) => p !== nodePorts(freed)[0])) {
      const edge = await api.ok('POST', path, service(`edge-${port}`, { type: 'NodePort', ports: [{ port: 80, nodePort: port }] }), 201);
      assert.deepEqual(nodePorts(edge), [port], 'both ends of the range are in it');
    }
  });
});

describe('node ports held across the validating webhooks, as kube allocates them before admission validates', () => {
  let api: TestApi;
  let webhook: ServiceWebhook;
  const ns = 'reviewed';
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

  const reviewed = (name: string, review: string, nodePort: number, extra: Json = {}): Json => ({
    ...service(name, { type: 'NodePort', ports: [{ port: 80, nodePort }], ...extra }),
    metadata: { name, labels: { review } },
  });
  const alreadyAllocated = (name: string, port: number): Json => ({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `Service "${name}" is invalid: spec.ports[0].nodePort: Invalid value: ${port}: provided port is already allocated`,
    reason: 'Invalid',
    details: { name, kind: 'Service', causes: [{ reason: 'FieldValueInvalid', message: `Invalid value: ${port}: provided port is already allocated`, field: 'spec.ports[0].nodePort' }] },
    code: 422,
  });
  const heldReview = (name: string): Promise<void> => webhook.heldReview(name);
  const releaseAll = (allowed: boolean): void => webhook.releaseAll(allowed);

  it('two concurrent creates asking for the same node port: exactly one is stored, the other is kube\'s Invalid', async () => {
    // Each create either reaches the webhook (and is held there) or is answered; once both have, the webhook allows.
    let progressed = 0;
    const progress = new EventEmitter();
    const step = (): void => {
      progressed++;
      progress.emit('step');
    };
    webhook.arrivals.on('held', step);
    try {
      const creates = ['race-a', 'race-b'].map((name) => api.request('POST', path, reviewed(name, 'hold', 30500)).finally(step));
      while (progressed < 2) await once(progress, 'step');
      releaseAll(true);
      const answers = await Promise.all(creates);
      assert.deepEqual(answers.map((a) => a.status).sort(), [201, 422], answers.map((a) => a.text).join('\n'));
      const stored = answers.find((a) => a.status === 201)!.body;
      const refused = answers.find((a) => a.status === 422)!.body;
      assert.deepEqual(nodePorts(stored), [30500]);
      assert.deepEqual(refused, alreadyAllocated(refused.details.name, 30500));
      assert.equal((await api.request('GET', `${path}/${refused.details.name}`)).status, 404);
    } finally {
      webhook.arrivals.off('held', step);
      releaseAll(false);
    }
  });

  it('a create the webhook holds keeps its port from another create and from an update; denied, it gives the port back', async () => {
    const first = api.request('POST', path, reviewed('holds', 'hold', 30501));
    await heldReview('holds');
    const clash = await api.request('POST', path, reviewed('clashes', 'allow', 30501));
    assert.deepEqual(clash.body, alreadyAllocated('clashes', 30501));
    const other = await api.ok('POST', path, reviewed('moves', 'allow', 30502), 201);
    const moved = await api.request('PUT', `${path}/moves`, { ...other, spec: { ...other.spec, ports: [{ port: 80, nodePort: 30501 }] } });
    assert.deepEqual(moved.body, alreadyAllocated('moves', 30501));
    // A dry run checks the port but holds nothing.
    const dryRun = await api.request('POST', `${path}?dryRun=All`, reviewed('dry', 'allow', 30501));
    assert.deepEqual(dryRun.body, alreadyAllocated('dry', 30501));

    releaseAll(false);
    const denied = await first;
    assert.equal(denied.status, 403, denied.text);
    assert.equal(denied.body.message, 'admission webhook "service-review.example.com" denied the request: not this one');
    const later = await api.ok('POST', path, reviewed('later', 'allow', 30501), 201);
    assert.deepEqual(nodePorts(later), [30501], 'the denied create gave its port back');
  });

  it('an update the webhook holds keeps the port it asked for; a dry run holds nothing', async () => {
    const svc = await api.ok('POST', path, reviewed('updates', 'allow', 30503), 201);
    const update = api.request('PUT', `${path}/updates`, { ...svc, metadata: { ...svc.metadata, labels: { review: 'hold' } }, spec: { ...svc.spec, ports: [{ port: 80, nodePort: 30504 }] } });
    await heldReview('updates');
    assert.deepEqual((await api.request('POST', path, reviewed('wants-30504', 'allow', 30504))).body, alreadyAllocated('wants-30504', 30504));
    assert.deepEqual(nodePorts(await api.ok('GET', `${path}/updates`)), [30503], 'not yet written while held');
    releaseAll(true);
    const answered = await update;
    assert.equal(answered.status, 200, answered.text);
    assert.deepEqual(nodePorts(answered.body), [30504]);
    // The port it gave up is free again.
    await api.ok('POST', path, reviewed('takes-30503', 'allow', 30503), 201);

    const dry = api.request('POST', `${path}?dryRun=All`, reviewed('dry-held', 'hold', 30505));
    await heldReview('dry-held');
    await api.ok('POST', path, reviewed('not-held', 'allow', 30505), 201);
    releaseAll(true);
    assert.equal((await dry).status, 201, 'a dry run is not checked again');
  });
});

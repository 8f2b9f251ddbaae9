/**
 * discovery.k8s.io/v1 EndpointSlices and core Endpoints judged by the real
 * kubectl against `operant server --nodes 2`: the API (columns, defaults,
 * validation in kube's words) and the endpoints and endpointslice
 * controllers, which follow a Deployment's ready pods behind a Service.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { hasKubectl, kubectlOk, startServer, type ServerProcess } from './harness.js';
import { RunningKubectl, kit, kubectlFails, tableRows } from './kubectl-support.js';

let server: ServerProcess;

before(async () => {
  if (!hasKubectl) return;
  server = await startServer({ extraArgs: ['--nodes', '2'] });
});
after(async () => {
  await server?.stop();
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const json = async (args: string[]): Promise<Json> => JSON.parse(await kubectlOk(server, [...args, '-o', 'json'])) as Json;

describe('operant server --nodes 2: Endpoints and EndpointSlices', () => {
  kit('an EndpointSlice written by hand gets kube\'s port defaults, columns and validation', async () => {
    const rows = tableRows(await kubectlOk(server, ['api-resources', '--api-group=discovery.k8s.io']));
    assert.deepEqual(rows[1], ['endpointslices', 'discovery.k8s.io/v1', 'true', 'EndpointSlice']);
    await kubectlOk(server, ['apply', '-f', '-'], {
      input: `apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: manual, labels: {kubernetes.io/service-name: external}}
addressType: IPv4
ports: [{port: 8080}, {name: metrics, port: 9090}, {name: admin, port: 9000}, {name: debug, port: 6060}]
endpoints:
- addresses: [10.1.0.1]
- addresses: [10.1.0.2]
`,
    });
    const slice = await json(['get', 'endpointslice', 'manual']);
    assert.deepEqual(slice.ports[0], { name: '', port: 8080, protocol: 'TCP' });
    const printed = tableRows(await kubectlOk(server, ['get', 'endpointslices', 'manual']));
    assert.deepEqual(printed[0], ['NAME', 'ADDRESSTYPE', 'PORTS', 'ENDPOINTS', 'AGE']);
    assert.deepEqual(printed[1]!.slice(0, 4), ['manual', 'IPv4', '8080,9090,9000 + 1 more...', '10.1.0.1,10.1.0.2']);

    const bad = await kubectlFails(server, ['apply', '-f', '-'], {
      input: 'apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {name: bad}\naddressType: IPv4\nendpoints: [{addresses: []}, {addresses: [not-an-ip]}]\n',
    });
    assert.match(bad.stderr, /endpoints\[0\].addresses: Required value: must contain at least 1 address/);
    assert.match(bad.stderr, /endpoints\[1\].addresses\[0\]: Invalid value: "not-an-ip": must be a valid IPv4 address/);
    const immutable = await kubectlFails(server, ['patch', 'endpointslice', 'manual', '--type=merge', '-p', '{"addressType":"IPv6"}']);
    assert.match(immutable.stderr, /addressType: Invalid value: "IPv6": field is immutable/);
  });

  kit('a Service in front of a Deployment gets an EndpointSlice and Endpoints of its ready pods, which follow scaling and go with the Service', async () => {
    await kubectlOk(server, ['create', 'deployment', 'web', '--image=nginx', '--replicas=3', '--port=80']);
    await kubectlOk(server, ['expose', 'deployment', 'web', '--port=8080', '--target-port=80']);
    await kubectlOk(server, ['rollout', 'status', 'deployment/web', '--timeout=30s']);
    const podIps = (await json(['get', 'pods', '-l', 'app=web'])).items.map((p: Json) => p.status.podIP as string).sort();
    assert.equal(podIps.length, 3);

    await kubectlOk(server, ['wait', 'endpoints/web', `--for=jsonpath={.subsets[0].addresses[2].ip}`, '--timeout=30s']);
    const endpoints = await json(['get', 'endpoints', 'web']);
    assert.deepEqual(endpoints.subsets[0].addresses.map((a: Json) => a.ip), podIps);
    assert.deepEqual(endpoints.subsets[0].ports, [{ port: 80, protocol: 'TCP' }]);
    assert.equal(endpoints.subsets[0].addresses[0].targetRef.kind, 'Pod');
    const epRow = tableRows(await kubectlOk(server, ['get', 'endpoints', 'web']))[1]!;
    assert.equal(epRow[1], podIps.map((ip: string) => `${ip}:80`).join(','));

    const list = async (): Promise<Json[]> => (await json(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web'])).items as Json[];
    await kubectlOk(server, ['wait', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '--for=jsonpath={.endpoints[2].conditions.ready}=true', '--timeout=30s']);
    const [slice] = await list();
    assert.match(slice.metadata.name, /^web-[a-z0-9]{5}$/);
    assert.equal(slice.metadata.labels['endpointslice.kubernetes.io/managed-by'], 'endpointslice-controller.k8s.io');
    assert.equal(slice.metadata.labels.app, 'web');
    assert.deepEqual(slice.metadata.ownerReferences.map((o: Json) => [o.kind, o.name, o.controller]), [['Service', 'web', true]]);
    assert.deepEqual(slice.ports, [{ name: '', port: 80, protocol: 'TCP' }]);
    assert.deepEqual(slice.endpoints.map((e: Json) => e.addresses[0]).sort(), podIps);
    assert.deepEqual(slice.endpoints[0].conditions, { ready: true, serving: true, terminating: false });
    const row = tableRows(await kubectlOk(server, ['get', 'endpointslices', slice.metadata.name]))[1]!;
    assert.deepEqual(row.slice(0, 3), [slice.metadata.name, 'IPv4', '80']);
    assert.deepEqual(row[3]!.split(',').sort(), podIps);

    // Scaled to nothing: a placeholder slice, and Endpoints without subsets.
    await kubectlOk(server, ['scale', 'deployment', 'web', '--replicas=0']);
    await kubectlOk(server, ['wait', 'pods', '-l', 'app=web', '--for=delete', '--timeout=30s']);
    // Awaited on watches: the Endpoints lose their subsets, the slice its endpoints and ports (and is kept, as kube's placeholder).
    const endpointsWatch = new RunningKubectl(server, ['get', 'endpoints', 'web', '-w', '-o', 'jsonpath={.metadata.name} {.subsets}{"\\n"}']);
    const sliceWatch = new RunningKubectl(server, ['get', 'endpointslice', slice.metadata.name, '-w', '-o', 'jsonpath={.metadata.name} {.endpoints}{.ports}{"\\n"}']);
    try {
      await endpointsWatch.waitForLine(/^web\s*$/, 0, 20_000);
      // kube's placeholder: `endpoints: []` and `ports: null` (neither field is omitempty in Go).
      await sliceWatch.waitForLine(new RegExp(`^${slice.metadata.name} \\[\\]null$`), 0, 20_000);
    } finally {
      await endpointsWatch.kill();
      await sliceWatch.kill();
    }
    const placeholder = tableRows(await kubectlOk(server, ['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web']));
    assert.deepEqual(placeholder.slice(1).map((r) => r.slice(0, 4)), [[slice.metadata.name, 'IPv4', '<unset>', '<unset>']]);

    await kubectlOk(server, ['delete', 'service', 'web']);
    await kubectlOk(server, ['wait', 'endpoints/web', '--for=delete', '--timeout=30s']);
    await kubectlOk(server, ['wait', `endpointslice/${slice.metadata.name}`, '--for=delete', '--timeout=30s']);
  }, { timeout: 90_000 });

  kit('a ReplicationController keeps its pods (kube runs the replicaset controller for it), and a Service in front of them lists them', async () => {
    await kubectlOk(server, ['apply', '-f', '-'], {
      input: `apiVersion: v1
kind: ReplicationController
metadata: {name: legacy}
spec:
  replicas: 2
  template:
    metadata: {labels: {app: legacy}}
    spec: {containers: [{name: nginx, image: nginx:1.27, ports: [{name: http, containerPort: 80}]}]}
`,
    });
    await kubectlOk(server, ['wait', 'rc/legacy', '--for=jsonpath={.status.readyReplicas}=2', '--timeout=30s']);
    assert.deepEqual(tableRows(await kubectlOk(server, ['get', 'rc', 'legacy']))[1]!.slice(0, 4), ['legacy', '2', '2', '2']);
    const pods = (await json(['get', 'pods', '-l', 'app=legacy'])).items as Json[];
    assert.deepEqual(pods.map((p) => [p.metadata.ownerReferences[0].kind, p.metadata.ownerReferences[0].name, p.metadata.name.startsWith('legacy-')]), [
      ['ReplicationController', 'legacy', true],
      ['ReplicationController', 'legacy', true],
    ]);
    // A named target port resolves to the container port on each pod.
    await kubectlOk(server, ['expose', 'rc', 'legacy', '--port=8080', '--target-port=http']);
    await kubectlOk(server, ['wait', 'endpoints/legacy', '--for=jsonpath={.subsets[0].addresses[1].ip}', '--timeout=30s']);
    assert.deepEqual((await json(['get', 'endpoints', 'legacy'])).subsets[0].ports, [{ port: 80, protocol: 'TCP' }]);

    await kubectlOk(server, ['scale', 'rc', 'legacy', '--replicas=1']);
    await kubectlOk(server, ['wait', 'rc/legacy', '--for=jsonpath={.status.replicas}=1', '--timeout=30s']);
  });
});

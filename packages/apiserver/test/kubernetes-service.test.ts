/**
 * The `kubernetes` Service every cluster has in `default`, with its Endpoints
 * and (as kube-apiserver's endpoints adapter keeps one) its EndpointSlice, all
 * pointing at this server; a restart on the same data dir at another port
 * points them at the new one.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { TestApi } from './support/api-client.js';

const dataDir = join(mkdtempSync(join(tmpdir(), 'operant-kubernetes-service-')), 'data');
after(() => rmSync(dataDir, { recursive: true, force: true }));

/** The port the Service targets, the Endpoints' port and the EndpointSlice's port. */
async function pointedAt(api: TestApi): Promise<unknown[]> {
  const service = await api.ok('GET', '/api/v1/namespaces/default/services/kubernetes');
  const endpoints = await api.ok('GET', '/api/v1/namespaces/default/endpoints/kubernetes');
  const slice = await api.ok('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes');
  return [service.spec.ports[0].targetPort, endpoints.subsets[0].ports[0].port, slice.ports[0].port];
}

it('the kubernetes Service, its Endpoints and its EndpointSlice point at the server, and follow it to a new port', async () => {
  const first = await TestApi.start({ dataDir });
  const firstPort = first.server.port;
  try {
    const slice = await first.ok('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes');
    assert.deepEqual(
      { labels: slice.metadata.labels, addressType: slice.addressType, endpoints: slice.endpoints, ports: slice.ports },
      {
        labels: { 'kubernetes.io/service-name': 'kubernetes' },
        addressType: 'IPv4',
        endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
        ports: [{ name: 'https', port: firstPort, protocol: 'TCP' }],
      },
    );
    assert.deepEqual(await pointedAt(first), [firstPort, firstPort, firstPort]);
  } finally {
    await first.stop();
  }
  const second = await TestApi.start({ dataDir });
  try {
    const port = second.server.port;
    assert.notEqual(port, firstPort);
    assert.deepEqual(await pointedAt(second), [port, port, port], 'all three follow the server to its new port');
  } finally {
    await second.stop();
  }
});

/**
 * The Endpoints object's capacity (kube's truncateEndpoints) and the
 * hostname of a pod that names its Service as subdomain (ShouldSetHostname).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import type { PodObject } from '../objects.js';
import { endpointSubsets, maxEndpointsCapacity, truncateSubsets } from './controller.js';

const addresses = (n: number, prefix: string): corev1.EndpointAddress[] => Array.from({ length: n }, (_, i) => ({ ip: `${prefix}.${i}` }));
const subset = (ready: number, notReady: number, tag: string): corev1.EndpointSubset => ({
  addresses: addresses(ready, `r${tag}`),
  notReadyAddresses: addresses(notReady, `n${tag}`),
  ports: [{ port: 80, protocol: 'TCP' }],
});
const counts = (subsets: corev1.EndpointSubset[]) => subsets.map((s) => [s.addresses?.length ?? 0, s.notReadyAddresses?.length ?? 0]);

describe('Endpoints capacity', () => {
  it('up to 1,000 addresses nothing is cut', () => {
    const subsets = [subset(900, 100, 'a')];
    assert.equal(truncateSubsets(subsets), false);
    assert.deepEqual(counts(subsets), [[900, 100]]);
  });

  it('past it, ready addresses are kept before not-ready ones, and each subset keeps its share of the room left', () => {
    const subsets = [subset(300, 300, 'a'), subset(300, 300, 'b')];
    assert.equal(truncateSubsets(subsets), true);
    assert.deepEqual(counts(subsets), [[300, 200], [300, 200]]);
  });

  it('with more ready ones than fit, those are shared out (rounded up, the last subset taking what is left) and the not-ready ones go', () => {
    const subsets = [subset(600, 10, 'a'), subset(400, 20, 'b'), subset(200, 20, 'c')];
    assert.equal(truncateSubsets(subsets), true);
    assert.deepEqual(counts(subsets), [[500, 0], [334, 0], [166, 0]]);
    assert.equal(subsets.reduce((n, s) => n + (s.addresses?.length ?? 0), 0), maxEndpointsCapacity);
    assert.equal(subsets[0]!.addresses![0]!.ip, 'ra.0', 'the first addresses are the ones kept');
  });
});

describe('Endpoints addresses', () => {
  const service: corev1.Service = { metadata: { name: 'web', namespace: 'ns' }, spec: { clusterIP: 'None', ports: [{ port: 80 }] } };
  const pod = (name: string, spec: Partial<corev1.PodSpec>): PodObject =>
    ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'ns', uid: `uid-${name}` },
      spec: { containers: [{ name: 'c' }], ...spec },
      status: { phase: 'Running', podIP: `10.0.0.${name.length}`, conditions: [{ type: 'Ready', status: 'True' }] },
    }) as PodObject;

  it('a pod naming the Service as its subdomain is listed with its hostname; others without', () => {
    const [s] = endpointSubsets(service, [pod('a', { hostname: 'web-0', subdomain: 'web' }), pod('bb', { hostname: 'other', subdomain: 'elsewhere' })]);
    assert.deepEqual(s!.addresses!.map((a) => [a.ip, a.hostname]), [['10.0.0.1', 'web-0'], ['10.0.0.2', undefined]]);
  });
});

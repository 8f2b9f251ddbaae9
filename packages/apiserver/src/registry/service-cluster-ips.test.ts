/**
 * The cluster IP allocator over a small service CIDR, through the Service
 * strategy's beginCreate as the store calls it: the range's addresses, each
 * once (the upper band first, as KEP-3070 has it), then kube's 500 "range is
 * full", and an address free again once the write that held it ends.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError, type KubeObject } from '@operant/apimachinery';
import { builtinStrategies } from './builtin-strategies.js';
import { ClusterIpAllocator, ServiceCidr } from './cluster-ip.js';

function service(name: string, clusterIP?: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { type: 'ClusterIP', selector: { app: name }, ports: [{ port: 80 }], ...(clusterIP ? { clusterIP } : {}) } };
}
const ipOf = (o: KubeObject): string => (o.spec as { clusterIP: string }).clusterIP;

describe('ServiceCidr', () => {
  it("numbers the addresses between the network and broadcast ones, and leaves kube's lower band to requests", () => {
    const big = new ServiceCidr('10.96.0.0/12');
    assert.deepEqual([big.networkAddress, big.addressAt(0), big.addressAt(big.size - 1), big.dynamicFrom], ['10.96.0.0', '10.96.0.1', '10.111.255.254', 256]);
    assert.deepEqual(['10.96.0.0', '10.96.0.1', '10.111.255.254', '10.111.255.255', '10.95.255.255', '1.1.1.1', 'fd00::1', '10.96.0'].map((ip) => big.offsetOf(ip)), [undefined, 0, big.size - 1, undefined, undefined, undefined, undefined, undefined]);
    assert.equal(new ServiceCidr('10.0.0.0/24').dynamicFrom, 16);
    assert.equal(new ServiceCidr('10.0.0.0/28').dynamicFrom, 0);
  });
});

describe('a full cluster IP range', () => {
  it("hands out every address once, then is kube's 500; an address comes back when the write that held it ends", () => {
    const allocator = new ClusterIpAllocator(() => ({ ips: new Set(), nodePorts: new Set() }), '10.0.0.0/29');
    const strategy = builtinStrategies(allocator).get('/services')!;
    const begin = (o: KubeObject): (() => void) => {
      strategy.applyDefaults(o);
      return strategy.beginCreate!(o, false)!;
    };
    // 10.0.0.1 is the kubernetes Service's; .2 to .6 are free; a /29 has no lower band.
    const holds: Array<() => void> = [];
    const given: string[] = [];
    for (let i = 0; i < 5; i++) {
      const o = service(`s${i}`);
      holds.push(begin(o));
      given.push(ipOf(o));
    }
    assert.deepEqual(given.sort(), ['10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5', '10.0.0.6']);
    assert.throws(() => begin(service('one-more')), (e: unknown) => {
      assert.ok(e instanceof StatusError);
      assert.deepEqual([e.status.code, e.status.reason, e.status.message], [500, 'InternalError', 'Internal error occurred: failed to allocate a serviceIP: range is full']);
      return true;
    });
    assert.throws(() => begin(service('asks', '10.0.0.4')), /provided IP is already allocated/);
    const ended = given.indexOf('10.0.0.4');
    holds[ended]();
    const again = service('again');
    begin(again);
    assert.equal(ipOf(again), '10.0.0.4');
  });

  it('takes the upper band first and the lower band once it is full', () => {
    const allocator = new ClusterIpAllocator(() => ({ ips: new Set(), nodePorts: new Set() }), '10.0.0.0/27');
    const strategy = builtinStrategies(allocator).get('/services')!;
    const given = Array.from({ length: 29 }, (_, i) => {
      const o = service(`s${i}`);
      strategy.applyDefaults(o);
      strategy.beginCreate!(o, false);
      return Number(ipOf(o).split('.')[3]);
    });
    // A /27: 30 addresses, .1 the kubernetes Service's; the dynamic band starts at offset 16 (10.0.0.17).
    assert.deepEqual(given.slice(0, 14), Array.from({ length: 14 }, (_, i) => 17 + i));
    assert.deepEqual(given.slice(14), Array.from({ length: 15 }, (_, i) => 2 + i));
  });
});

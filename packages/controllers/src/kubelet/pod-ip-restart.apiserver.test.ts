/**
 * Pod addresses across a restart of the simulated nodes: the pods' statuses
 * are the record of the addresses handed out (as kube's host-local IPAM keeps
 * its record on disk), so a new pod synced before the old ones (the initial
 * list is the work queue's lowest priority, and sorts by name) is not handed
 * an address an old pod of the node still has. Statuses written before that
 * was checked can record one address for two pods: the pod that started
 * first keeps it, and the other is given a new one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApiServer, type RunningApiServer } from '@operant/apiserver';
import { Client, loadKubeConfig, Pod } from '@operant/runtime';
import { startSimulatedNodes, type SimulatedCluster } from '../cluster.js';
import { watchUntil } from '../testdata/watch-until.js';

describe('pod IPs after the simulated nodes restart', () => {
  let server: RunningApiServer;
  let client: Client;
  let nodes: SimulatedCluster | undefined;
  const namespace = 'default';
  const pod = (name: string) => ({ metadata: { name, namespace }, spec: { nodeName: 'node-1', containers: [{ name: 'app', image: 'nginx' }] } });
  const podIPs = (names: string[]) => watchUntil(client, Pod, namespace, (all) => names.every((n) => all.get(n)?.status?.podIP), undefined, 20_000);

  before(async () => {
    server = await startApiServer({ port: 0 });
    client = Client.fromConfig(await loadKubeConfig({ kubeconfigText: server.kubeconfig }), { qps: Infinity });
  });
  after(async () => {
    await nodes?.stop();
    client?.close();
    await server?.stop();
  });

  it('a new pod synced first gets none of the addresses the old pods of its node have', async () => {
    const old = ['z-old-0', 'z-old-1', 'z-old-2'];
    nodes = await startSimulatedNodes({ kubeconfig: { kubeconfigText: server.kubeconfig }, nodes: 1 });
    for (const name of old) await client.create(Pod, pod(name));
    const first = await podIPs(old);
    await nodes.stop();
    nodes = undefined;

    const fresh = ['a-new-0', 'a-new-1', 'a-new-2'];
    for (const name of fresh) await client.create(Pod, pod(name));
    nodes = await startSimulatedNodes({ kubeconfig: { kubeconfigText: server.kubeconfig }, nodes: 1 });
    const second = await podIPs([...old, ...fresh]);
    const ips = [...old, ...fresh].map((n) => second.get(n)!.status!.podIP!);
    assert.deepEqual(old.map((n) => second.get(n)!.status!.podIP), old.map((n) => first.get(n)!.status!.podIP), 'the old pods keep theirs');
    assert.equal(new Set(ips).size, ips.length, `every pod its own address: ${ips.join(', ')}`);
  });

  it('two pods recording one address (a data dir from before): the one that started first keeps it, the other gets a new one', async () => {
    const [older, newer] = ['y-dup-older', 'b-dup-newer'];
    await nodes?.stop();
    nodes = await startSimulatedNodes({ kubeconfig: { kubeconfigText: server.kubeconfig }, nodes: 1 });
    for (const name of [older, newer]) await client.create(Pod, pod(name));
    const first = await podIPs([older, newer]);
    await nodes.stop();
    nodes = undefined;
    // As an older version could leave them: the newer pod handed the older one's address.
    const shared = first.get(older)!.status!.podIP!;
    const startedEarlier = { ...first.get(older)!, status: { ...first.get(older)!.status, startTime: '2020-01-01T00:00:00Z' } };
    await client.updateStatus(Pod, startedEarlier);
    const dup = first.get(newer)!;
    await client.updateStatus(Pod, { ...dup, status: { ...dup.status, podIP: shared, podIPs: [{ ip: shared }] } });

    nodes = await startSimulatedNodes({ kubeconfig: { kubeconfigText: server.kubeconfig }, nodes: 1 });
    const after = await watchUntil(client, Pod, namespace, (all) => !!all.get(newer)?.status?.podIP && all.get(newer)!.status!.podIP !== shared, undefined, 20_000);
    assert.equal(after.get(older)!.status!.podIP, shared, 'the pod that started first keeps it');
    const renewed = after.get(newer)!.status!;
    assert.notEqual(renewed.podIP, shared);
    assert.deepEqual(renewed.podIPs, [{ ip: renewed.podIP }]);
    const ips = [...after.values()].filter((p) => p.spec?.nodeName === 'node-1' && p.status?.podIP).map((p) => p.status!.podIP!);
    assert.equal(new Set(ips).size, ips.length, `every pod its own address: ${ips.join(', ')}`);
  });
});

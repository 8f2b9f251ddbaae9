/**
 * Pod CIDRs past node 255: the cluster CIDR (10.244.0.0/14) has a /24 for
 * nodes 0 to 1023, and a node past it registers without one, as kube's node
 * IPAM leaves it: a CIDRNotAvailable event, the node NotReady (its network
 * plugin has no range), and a pod bound there waits with a
 * FailedCreatePodSandBox event, yet can still be deleted. It registers with
 * the not-ready NoSchedule taint the API server gives every new Node, which
 * the node lifecycle controller keeps (and takes from the Ready node-1000),
 * and the scheduler keeps pods off it by that taint, as kube-scheduler does
 * (it does not look at readiness itself).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApiServer, type RunningApiServer } from '@operant/apiserver';
import { Client, CoreEvent, loadKubeConfig, Node, Pod, type Kind, type KubeObject } from '@operant/runtime';
import { acceleratedClock } from '../clock.js';
import { startSimulatedCluster, startSimulatedNodes, type SimulatedCluster } from '../cluster.js';
import type { NodeObject, PodObject } from '../objects.js';
import { watchUntil } from '../testdata/watch-until.js';
import { networkNotReadyMessage } from './node.js';
import { nodeCidrCount, podCidrOf } from './pod-cidr.js';

describe('pod CIDRs', () => {
  it('are /24s of 10.244.0.0/14 by node number: the first 256 as in 10.244.0.0/16, then on to node 1023', () => {
    assert.equal(nodeCidrCount, 1024);
    assert.equal(podCidrOf(1), '10.244.1.0/24');
    assert.equal(podCidrOf(255), '10.244.255.0/24');
    assert.equal(podCidrOf(256), '10.245.0.0/24');
    assert.equal(podCidrOf(1000), '10.247.232.0/24');
    assert.equal(podCidrOf(1023), '10.247.255.0/24');
    assert.equal(podCidrOf(1024), undefined);
  });
});

describe('nodes past 255 and past the cluster CIDR, on the embedded server', () => {
  let server: RunningApiServer;
  let client: Client;
  const running: SimulatedCluster[] = [];
  const until = <T extends KubeObject>(kind: Kind<T>, namespace: string | undefined, check: (objects: Map<string, T>) => boolean) =>
    watchUntil(client, kind, namespace, check, undefined, 20_000);

  before(async () => {
    server = await startApiServer({ port: 0 });
    client = Client.fromConfig(await loadKubeConfig({ kubeconfigText: server.kubeconfig }), { qps: Infinity });
    for (const firstIndex of [1000, 1024]) {
      running.push(await startSimulatedNodes({ kubeconfig: { kubeconfigText: server.kubeconfig }, nodes: 1, firstIndex, clock: acceleratedClock(100) }));
    }
  });
  after(async () => {
    client?.close();
    for (const c of running) await c.stop();
    await server?.stop();
  });

  it('node-1000 gets 10.247.232.0/24, and its pods addresses from it', async () => {
    const node = (await client.get(Node, 'node-1000')) as NodeObject;
    assert.equal(node.spec?.podCIDR, '10.247.232.0/24');
    assert.deepEqual(node.spec?.podCIDRs, ['10.247.232.0/24']);
    await client.create(Pod, { metadata: { name: 'far', namespace: 'default' }, spec: { nodeName: 'node-1000', containers: [{ name: 'app', image: 'nginx' }] } });
    const pods = await until(Pod, 'default', (all) => all.get('far')?.status?.phase === 'Running');
    assert.match(pods.get('far')!.status!.podIP!, /^10\.247\.232\.\d+$/);
  });

  it('node-1024 gets no pod CIDR: a CIDRNotAvailable event, NotReady, and its pods wait for a sandbox', async () => {
    const node = (await client.get(Node, 'node-1024')) as NodeObject;
    assert.equal(node.spec?.podCIDR, undefined);
    const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
    assert.deepEqual([ready?.status, ready?.reason, ready?.message], ['False', 'KubeletNotReady', networkNotReadyMessage]);
    // No node lifecycle controller runs yet: the API server gave it the not-ready NoSchedule taint as it registered (TaintNodesAtCreation).
    assert.deepEqual(node.spec?.taints, [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }]);
    const events = await until(CoreEvent, 'default', (all) => [...all.values()].some((e) => e.reason === 'CIDRNotAvailable'));
    const cidr = [...events.values()].find((e) => e.reason === 'CIDRNotAvailable')!;
    assert.deepEqual([cidr.type, cidr.message, cidr.involvedObject.kind, cidr.involvedObject.name, cidr.reportingComponent], ['Warning', 'Node node-1024 status is now: CIDRNotAvailable', 'Node', 'node-1024', 'cidrAllocator']);

    await client.create(Pod, { metadata: { name: 'stuck', namespace: 'default' }, spec: { nodeName: 'node-1024', containers: [{ name: 'app', image: 'nginx' }] } });
    const failed = await until(CoreEvent, 'default', (all) => [...all.values()].some((e) => e.reason === 'FailedCreatePodSandBox' && e.involvedObject.name === 'stuck'));
    const sandbox = [...failed.values()].find((e) => e.reason === 'FailedCreatePodSandBox')!;
    assert.match(sandbox.message ?? '', /^Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "[0-9a-f]{64}": cni plugin not initialized$/);
    const stuck = (await client.get(Pod, 'stuck', { namespace: 'default' })) as PodObject;
    assert.equal(stuck.status?.podIP, undefined);
    assert.notEqual(stuck.status?.phase, 'Running');
    // Its deletion is still carried out by the kubelet (grace period, then gone).
    await client.delete(Pod, 'stuck', { namespace: 'default' });
    await until(Pod, 'default', (all) => !all.has('stuck'));
  });
  it("the node lifecycle controller taints the NotReady node not-ready, and the scheduler keeps pods off it by that taint", async () => {
    running.push(await startSimulatedCluster({ kubeconfig: { kubeconfigText: server.kubeconfig }, nodes: 0, controllers: ['nodelifecycle'], clock: acceleratedClock(100) }));
    // node-1000 registered with the same taint, which the controller takes away once it sees the node Ready.
    const nodes = await until(Node, undefined, (all) => (all.get('node-1024')?.spec?.taints ?? []).length === 2 && all.get('node-1000')?.spec?.taints === undefined);
    assert.deepEqual(
      nodes.get('node-1024')!.spec!.taints!.map((t) => [t.key, t.effect, Boolean(t.timeAdded)]),
      [
        ['node.kubernetes.io/not-ready', 'NoSchedule', false],
        ['node.kubernetes.io/not-ready', 'NoExecute', true],
      ],
    );
    assert.equal(nodes.get('node-1000')!.spec?.taints, undefined, 'the Ready node has none');
    await client.create(Pod, { metadata: { name: 'placed', namespace: 'default' }, spec: { containers: [{ name: 'app', image: 'nginx' }] } });
    const pods = await until(Pod, 'default', (all) => !!all.get('placed')?.spec?.nodeName);
    assert.equal(pods.get('placed')!.spec!.nodeName, 'node-1000');
  });
});

/**
 * The node lifecycle controller's NoExecute tainting at kube's rate
 * (--node-eviction-rate, 0.1 node/s in a normal zone) and its full-disruption
 * mode, against the embedded API server on a clock ten times the wall's: the
 * 10 s between two taints pass in 1 s. Nodes that no simulated kubelet runs
 * report Ready False as the test writes it, stamped in cluster time.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client, Node, type Kind, type KubeObject } from '@operant/runtime';
import { acceleratedClock, rfc3339, timeOf } from '../clock.js';
import { heartbeatsPausedAnnotation } from '../kubelet/knobs.js';
import type { NodeObject } from '../objects.js';
import { useTestCluster } from '../testdata/test-cluster.js';
import { watchUntil } from '../testdata/watch-until.js';

const clock = acceleratedClock(10);
let client: Client;
useTestCluster({ nodes: 3, clock }, (env) => {
  client = env.client;
});

function until<T extends KubeObject>(kind: Kind<T>, check: (objects: Map<string, T>) => boolean, timeoutMs = 20_000): Promise<Map<string, T>> {
  return watchUntil(client, kind, undefined, check, undefined, timeoutMs);
}

const noExecute = (n: NodeObject | undefined) => (n?.spec?.taints ?? []).filter((t) => t.effect === 'NoExecute');
const readyOf = (n: NodeObject | undefined) => n?.status?.conditions?.find((c) => c.type === 'Ready')?.status;

/**
 * A node no kubelet runs, registered reporting Ready False now (cluster time), its status with it as a
 * kubelet registers (a Node created bare would lose the not-ready taint the API server gives it to the
 * controller's NoSchedule pass, racing a status write after it).
 */
async function notReadyNode(name: string): Promise<void> {
  const now = rfc3339(clock.now());
  await client.create(Node, {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name },
    status: { conditions: [{ type: 'Ready', status: 'False', reason: 'KubeletNotReady', message: 'network is not ready', lastHeartbeatTime: now, lastTransitionTime: now }] },
  } as NodeObject);
}

describe('NoExecute tainting at kube\'s rate', () => {
  it('two nodes not Ready at once in a normal zone get their not-ready NoExecute taints 10 s apart (0.1 node/s, burst 1)', async () => {
    await until(Node, (nodes) => ['node-1', 'node-2', 'node-3'].every((n) => readyOf(nodes.get(n)) === 'True'));
    await Promise.all([notReadyNode('dark-1'), notReadyNode('dark-2')]);
    const tainted = await until(Node, (nodes) => ['dark-1', 'dark-2'].every((n) => noExecute(nodes.get(n)).some((t) => t.key === 'node.kubernetes.io/not-ready')));
    const added = ['dark-1', 'dark-2'].map((n) => timeOf(noExecute(tainted.get(n)).find((t) => t.key === 'node.kubernetes.io/not-ready')!.timeAdded)!).sort((a, b) => a - b);
    assert.ok(added[1]! - added[0]! >= 10_000, `the second taint came ${(added[1]! - added[0]!) / 1000} s after the first`);
    // Both NoSchedule taints came at once: only NoExecute is rate limited.
    for (const n of ['dark-1', 'dark-2']) assert.ok(tainted.get(n)!.spec!.taints!.some((t) => t.key === 'node.kubernetes.io/not-ready' && t.effect === 'NoSchedule'));
    await client.delete(Node, 'dark-1');
    await client.delete(Node, 'dark-2');
  });

  it('with every node not Ready (full disruption) no node keeps or gets a NoExecute taint; once a node is Ready again, tainting resumes', async (t) => {
    const names = ['node-1', 'node-2', 'node-3'];
    const pause = (on: boolean) => Promise.all(names.map((n) => client.patch(Node, n, { metadata: { annotations: { [heartbeatsPausedAnnotation]: on ? 'true' : null } } })));
    t.after(() => pause(false));
    await until(Node, (nodes) => !nodes.has('dark-1') && !nodes.has('dark-2'));
    await pause(true);
    // All Unknown and tainted NoSchedule, and no NoExecute taint left on any (the first ones, added while the zone was
    // still partly Ready, are taken off when the last node goes).
    await until(Node, (nodes) => names.every((n) => readyOf(nodes.get(n)) === 'Unknown' && nodes.get(n)!.spec?.taints?.some((x) => x.key === 'node.kubernetes.io/unreachable' && x.effect === 'NoSchedule') && noExecute(nodes.get(n)).length === 0));

    // node-1 comes back: the zone is no longer fully disrupted, and the others get their unreachable NoExecute taints.
    await client.patch(Node, 'node-1', { metadata: { annotations: { [heartbeatsPausedAnnotation]: null } } });
    await until(Node, (nodes) => readyOf(nodes.get('node-1')) === 'True' && ['node-2', 'node-3'].every((n) => noExecute(nodes.get(n)).some((x) => x.key === 'node.kubernetes.io/unreachable')), 30_000);
    await pause(false);
    await until(Node, (nodes) => names.every((n) => readyOf(nodes.get(n)) === 'True' && noExecute(nodes.get(n)).length === 0));
  });
});

/**
 * The node lifecycle controller's cordon taint and its marking of pods not
 * Ready on a node whose Ready is False, against the embedded API server on
 * the wall clock (nothing here waits for the 40 s grace period or the 300 s
 * tolerations). Every wait is a watch until a condition holds.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client, CoreEvent, DaemonSet, Namespace, Node, Pod, type Kind, type KubeObject } from '@operant/runtime';
import type { NodeObject, PodObject } from '../objects.js';
import { bindPod } from '../scheduler/bind.js';
import { useTestCluster } from '../testdata/test-cluster.js';
import { watchUntil } from '../testdata/watch-until.js';

let client: Client;
useTestCluster({ nodes: 2 }, (env) => {
  client = env.client;
});

function until<T extends KubeObject>(kind: Kind<T>, namespace: string | undefined, check: (objects: Map<string, T>) => boolean, timeoutMs = 15_000): Promise<Map<string, T>> {
  return watchUntil(client, kind, namespace, check, undefined, timeoutMs);
}

const taintsOf = (n: NodeObject | undefined): string[] => (n?.spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`);
const ready = (p: PodObject | undefined): string | undefined => p?.status?.conditions?.find((c) => c.type === 'Ready')?.status;

describe('node lifecycle: cordon and not-Ready nodes', () => {
  it('a cordoned node gets the node.kubernetes.io/unschedulable NoSchedule taint, a DaemonSet pod still lands there, and uncordoning removes it', async () => {
    const ns = 'cordon';
    await client.create(Namespace, { metadata: { name: ns } });
    await client.patch(Node, 'node-1', { spec: { unschedulable: true } });
    const tainted = await until(Node, undefined, (nodes) => taintsOf(nodes.get('node-1')).includes('node.kubernetes.io/unschedulable:NoSchedule'));
    assert.deepEqual(taintsOf(tainted.get('node-1')), ['node.kubernetes.io/unschedulable:NoSchedule']);
    assert.deepEqual(taintsOf(tainted.get('node-2')), [], 'a node not cordoned has no such taint');

    // kube's DaemonSet pods tolerate the cordon (node.kubernetes.io/unschedulable, Exists, NoSchedule).
    await client.create(DaemonSet, {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent', namespace: ns },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: { metadata: { labels: { app: 'agent' } }, spec: { nodeSelector: { 'kubernetes.io/hostname': 'node-1' }, containers: [{ name: 'a', image: 'nginx:1.27' }] } },
      },
    } as KubeObject);
    const pods = await until(Pod, ns, (ps) => [...ps.values()].some((p) => p.spec?.nodeName === 'node-1' && ready(p) === 'True'));
    const daemonPod = [...pods.values()].find((p) => p.spec?.nodeName === 'node-1')!;
    assert.ok(
      daemonPod.spec?.tolerations?.some((t) => t.key === 'node.kubernetes.io/unschedulable' && t.operator === 'Exists' && t.effect === 'NoSchedule'),
      JSON.stringify(daemonPod.spec?.tolerations),
    );
    await client.delete(DaemonSet, 'agent', { namespace: ns });

    await client.patch(Node, 'node-1', { spec: { unschedulable: null } });
    await until(Node, undefined, (nodes) => taintsOf(nodes.get('node-1')).length === 0);
  });

  it('a node registered NotReady carries the not-ready NoSchedule taint from its creation (TaintNodesAtCreation) until it turns Ready', async () => {
    const stamp = (): string => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const condition = (status: string, reason: string, message: string) => ({ type: 'Ready', status, reason, message, lastHeartbeatTime: stamp(), lastTransitionTime: stamp() });
    // Registered as a kubelet without a network registers, its status with it.
    const created = await client.create(Node, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'joining' },
      spec: { taints: [{ key: 'example.com/dedicated', value: 'infra', effect: 'NoSchedule' }] },
      status: { conditions: [condition('False', 'KubeletNotReady', 'network is not ready')] },
    } as NodeObject);
    // The API server adds it, after the node's own, before any controller could see the node.
    assert.deepEqual(taintsOf(created as NodeObject), ['example.com/dedicated:NoSchedule', 'node.kubernetes.io/not-ready:NoSchedule']);
    // The node lifecycle controller keeps it while Ready is False (and adds the NoExecute one).
    await until(Node, undefined, (nodes) => taintsOf(nodes.get('joining')).includes('node.kubernetes.io/not-ready:NoExecute'));
    assert.ok(taintsOf(await client.get(Node, 'joining')).includes('node.kubernetes.io/not-ready:NoSchedule'));

    const joining = await client.get(Node, 'joining');
    await client.updateStatus(Node, { ...joining, status: { conditions: [condition('True', 'KubeletReady', 'kubelet is posting ready status')] } } as NodeObject);
    const ready = await until(Node, undefined, (nodes) => taintsOf(nodes.get('joining')).length === 1);
    assert.deepEqual(taintsOf(ready.get('joining')), ['example.com/dedicated:NoSchedule'], "the node's own taint stays");

    // A Node that already has the taint is not given a second one.
    const tainted = await client.create(Node, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'pretainted' }, spec: { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] } } as NodeObject);
    assert.deepEqual(taintsOf(tainted as NodeObject), ['node.kubernetes.io/not-ready:NoSchedule']);
    await client.delete(Node, 'joining');
    await client.delete(Node, 'pretainted');
  });

  it('a pod bound to a node whose kubelet reports Ready False gets its Ready condition set False, with a NodeNotReady event', async () => {
    const ns = 'notready';
    await client.create(Namespace, { metadata: { name: ns } });
    // A node no simulated kubelet runs, reporting Ready False as a kubelet without a network would.
    // Registered with its status, as a kubelet registers (a Node with no conditions would lose its
    // not-ready taint to the controller's NoSchedule pass, which wants none for it, then get it back).
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    await client.create(Node, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'dark' },
      status: { conditions: [{ type: 'Ready', status: 'False', reason: 'KubeletNotReady', message: 'network is not ready', lastHeartbeatTime: now, lastTransitionTime: now }] },
    } as NodeObject);
    // The controller saw it: kube's not-ready taints.
    await until(Node, undefined, (nodes) => taintsOf(nodes.get('dark')).includes('node.kubernetes.io/not-ready:NoSchedule'));

    // A pod that reports Ready True (no scheduler serves its schedulerName), then bound to the node.
    await client.create(Pod, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'stray', namespace: ns },
      spec: { schedulerName: 'nobody', containers: [{ name: 'app', image: 'nginx:1.27' }] },
    } as PodObject);
    const pod = (await client.get(Pod, 'stray', { namespace: ns })) as PodObject;
    await client.updateStatus(Pod, { ...pod, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }] } } as PodObject);
    await bindPod(client, pod, 'dark');

    const marked = await until(Pod, ns, (ps) => ready(ps.get('stray')) === 'False');
    const condition = marked.get('stray')!.status!.conditions!.find((c) => c.type === 'Ready')!;
    assert.equal(condition.reason, undefined, 'only the status (and its transition time) changes');
    await until(CoreEvent, ns, (events) => [...events.values()].some((e) => e.type === 'Warning' && e.reason === 'NodeNotReady' && e.message === 'Node is not ready' && e.involvedObject?.name === 'stray'));
  });
});

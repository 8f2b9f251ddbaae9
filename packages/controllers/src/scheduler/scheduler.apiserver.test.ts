/**
 * The scheduler's pod-to-pod filters on the embedded server, on the wall
 * clock (so that the five-minute retry of an unschedulable pod cannot be
 * what places it): a pod whose affinity names pods not placed yet is placed
 * as soon as one is bound, and a placed pod's anti-affinity term with a
 * namespaceSelector repels by the labels of the incoming pod's namespace.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApiServer, type RunningApiServer } from '@operant/apiserver';
import { Client, loadKubeConfig, Namespace, Pod, type Kind, type KubeObject } from '@operant/runtime';
import { startSimulatedCluster, type SimulatedCluster } from '../cluster.js';
import type { PodObject } from '../objects.js';
import { watchUntil } from '../testdata/watch-until.js';

let server: RunningApiServer;
let cluster: SimulatedCluster;
let client: Client;

before(async () => {
  server = await startApiServer({ port: 0 });
  cluster = await startSimulatedCluster({ kubeconfig: { kubeconfigText: server.kubeconfig }, nodes: 2 });
  client = Client.fromConfig(await loadKubeConfig({ kubeconfigText: server.kubeconfig }), { qps: Infinity });
});

after(async () => {
  client?.close();
  await cluster?.stop();
  await server?.stop();
});

const until = <T extends KubeObject>(kind: Kind<T>, namespace: string | undefined, check: (objects: Map<string, T>) => boolean) =>
  watchUntil(client, kind, namespace, check, undefined, 20_000);

const unschedulable = (p: PodObject | undefined, message: string): boolean => {
  const c = p?.status?.conditions?.find((x) => x.type === 'PodScheduled');
  return !p?.spec?.nodeName && c?.status === 'False' && c.reason === 'Unschedulable' && c.message === message;
};

function pod(name: string, namespace: string, labels: Record<string, string>, spec: Record<string, unknown> = {}): PodObject {
  return { metadata: { name, namespace, labels }, spec: { containers: [{ name: 'app', image: 'nginx' }], ...spec } } as PodObject;
}

describe('scheduler: pod affinity on the embedded server (wall clock)', () => {
  it('a pod whose required affinity names no placed pod waits, and is placed beside the first such pod as soon as it is bound', async () => {
    await client.create(Namespace, { metadata: { name: 'follow' } });
    const affinity = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'kubernetes.io/hostname' }] } };
    await client.create(Pod, pod('cache', 'follow', { app: 'cache' }, { affinity }));
    const message =
      "0/2 nodes are available: 2 node(s) didn't match pod affinity rules. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling..";
    await until(Pod, 'follow', (pods) => unschedulable(pods.get('cache'), message));
    // node-2 by its hostname: the score alone would send the next pod to either node.
    await client.create(Pod, pod('db', 'follow', { app: 'db' }, { nodeSelector: { 'kubernetes.io/hostname': 'node-2' } }));
    // Well before the five-minute retry: the binding of db is what tries cache again.
    const pods = await until(Pod, 'follow', (all) => !!all.get('cache')?.spec?.nodeName);
    assert.equal(pods.get('cache')!.spec!.nodeName, 'node-2');
  });

  it("a placed pod's anti-affinity term with a namespaceSelector repels pods of the namespaces it selects, by their labels", async () => {
    await client.create(Namespace, { metadata: { name: 'guarded' } });
    await client.create(Namespace, { metadata: { name: 'team-x', labels: { team: 'x' } } });
    await client.create(Namespace, { metadata: { name: 'team-y', labels: { team: 'y' } } });
    const antiAffinity = {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          { labelSelector: { matchLabels: { app: 'noisy' } }, namespaceSelector: { matchLabels: { team: 'x' } }, topologyKey: 'kubernetes.io/hostname' },
        ],
      },
    };
    const onNode1 = { nodeSelector: { 'kubernetes.io/hostname': 'node-1' } };
    await client.create(Pod, pod('guard', 'guarded', { app: 'guard' }, { ...onNode1, affinity: antiAffinity }));
    await until(Pod, 'guarded', (pods) => pods.get('guard')?.spec?.nodeName === 'node-1');
    await client.create(Pod, pod('noisy', 'team-x', { app: 'noisy' }, onNode1));
    await client.create(Pod, pod('noisy', 'team-y', { app: 'noisy' }, onNode1));
    const message =
      "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) didn't satisfy existing pods anti-affinity rules. " +
      'preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling..';
    await until(Pod, 'team-x', (pods) => unschedulable(pods.get('noisy'), message));
    const y = await until(Pod, 'team-y', (pods) => !!pods.get('noisy')?.spec?.nodeName);
    assert.equal(y.get('noisy')!.spec!.nodeName, 'node-1');
  });
});

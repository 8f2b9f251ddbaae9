/**
 * The simulated cluster against the embedded API server, over HTTPS, on a
 * clock a hundred times faster than the wall's: readiness delays,
 * minReadySeconds and grace periods pass in milliseconds. Every wait is a
 * watch until a condition holds (with a deadline), never a sleep.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApiServer, type RunningApiServer } from '@operant/apiserver';
import { Client, CoreEvent, Deployment, Lease, loadKubeConfig, Namespace, Node, Pod, type Kind, type KubeObject } from '@operant/runtime';
import { acceleratedClock } from './clock.js';
import { startSimulatedCluster, type SimulatedCluster } from './cluster.js';
import type { DeploymentObject, NodeObject, PodObject } from './objects.js';
import { watchUntil } from './testdata/watch-until.js';

const speed = 100;
let server: RunningApiServer;
let cluster: SimulatedCluster;
let client: Client;
const clock = acceleratedClock(speed);

before(async () => {
  server = await startApiServer({ port: 0 });
  // Containers that use all of their grace period, to see it honoured.
  cluster = await startSimulatedCluster({ kubeconfig: { kubeconfigText: server.kubeconfig }, nodes: 3, clock, timing: { stopSeconds: 3600, restartSeconds: 2 } });
  client = Client.fromConfig(await loadKubeConfig({ kubeconfigText: server.kubeconfig }), { qps: Infinity });
});

after(async () => {
  client?.close();
  await cluster?.stop();
  await server?.stop();
});

/** {@link watchUntil} on this file's client. */
function until<T extends KubeObject>(
  kind: Kind<T>,
  namespace: string | undefined,
  check: (objects: Map<string, T>) => boolean,
  onEvent?: (type: string, obj: T, objects: Map<string, T>) => void,
  timeoutMs?: number,
): Promise<Map<string, T>> {
  return watchUntil(client, kind, namespace, check, onEvent, timeoutMs);
}

async function namespace(name: string): Promise<string> {
  await client.create(Namespace, { metadata: { name } });
  return name;
}

function deployment(name: string, ns: string, spec: Record<string, unknown> = {}, container: Record<string, unknown> = {}): DeploymentObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: ns },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'nginx:1.27', ...container }] } },
      ...spec,
    },
  } as DeploymentObject;
}

const complete = (name: string, replicas: number) => (ds: Map<string, DeploymentObject>) => {
  const d = ds.get(name);
  const s = d?.status;
  return (
    !!s &&
    s.observedGeneration === d!.metadata.generation &&
    s.updatedReplicas === replicas &&
    (s.replicas ?? 0) === replicas &&
    s.availableReplicas === replicas &&
    s.conditions?.find((c) => c.type === 'Progressing')?.reason === 'NewReplicaSetAvailable'
  );
};

const ready = (p: PodObject): boolean => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

describe('simulated cluster (in process, clock x100)', () => {
  it('registers nodes with the server\'s version, capacity and conditions, and renews their Leases', async () => {
    const nodes = (await client.list(Node)).items as NodeObject[];
    assert.deepEqual(nodes.map((n) => n.metadata.name).sort(), ['node-1', 'node-2', 'node-3']);
    for (const n of nodes) {
      assert.equal(n.status?.nodeInfo?.kubeletVersion, 'v1.32.0');
      assert.equal(n.status?.allocatable?.cpu, '32');
      assert.equal(n.status?.allocatable?.pods, '110');
      assert.equal(n.status?.conditions?.find((c) => c.type === 'Ready')?.reason, 'KubeletReady');
      assert.equal(n.metadata.labels?.['kubernetes.io/hostname'], n.metadata.name);
      // Each registered with the not-ready taint (TaintNodesAtCreation); the start waited until the node
      // lifecycle controller saw them Ready and took it off, so the first pods may go to any node.
      assert.equal(n.spec?.taints, undefined, `${n.metadata.name}: ${JSON.stringify(n.spec?.taints)}`);
    }
    const first = new Map<string, string>();
    // Each Lease is renewed every 10 s of cluster time: watch for a second renewal of each.
    await until(Lease, 'kube-node-lease', (leases) =>
      ['node-1', 'node-2', 'node-3'].every((n) => {
        const l = leases.get(n);
        if (!l?.spec?.renewTime) return false;
        if (!first.has(n)) first.set(n, l.spec.renewTime);
        return l.spec.holderIdentity === n && l.spec.leaseDurationSeconds === 40 && l.spec.renewTime !== first.get(n);
      }),
    );
  });

  it('a Deployment with a readiness delay and minReadySeconds rolls out in cluster time', async () => {
    const ns = await namespace('ready');
    const started = Date.now();
    await client.create(Deployment, deployment('web', ns, { minReadySeconds: 5 }, { readinessProbe: { initialDelaySeconds: 20, httpGet: { path: '/', port: 80 } } }));
    const ds = await until(Deployment, ns, complete('web', 3));
    // 25 s of cluster time at least; far less of the wall's.
    assert.ok(Date.now() - started < 20_000 / speed + 3000);
    const d = ds.get('web')!;
    assert.equal(d.metadata.annotations?.['deployment.kubernetes.io/revision'], '1');
    assert.equal(d.status?.conditions?.find((c) => c.type === 'Available')?.status, 'True');
    const pods = ((await client.list(Pod, { namespace: ns })).items as PodObject[]).filter((p) => !p.metadata.deletionTimestamp);
    assert.equal(pods.length, 3);
    assert.deepEqual(new Set(pods.map((p) => p.spec?.nodeName)), new Set(['node-1', 'node-2', 'node-3']), 'spread over the nodes');
    for (const p of pods) {
      const hash = p.metadata.labels?.['pod-template-hash'];
      assert.match(p.metadata.name!, new RegExp(`^web-${hash}-[bcdfghjklmnpqrstvwxz2456789]{5}$`));
      const owner = p.metadata.ownerReferences?.[0];
      assert.deepEqual([owner?.kind, owner?.name, owner?.controller, owner?.blockOwnerDeletion], ['ReplicaSet', `web-${hash}`, true, true]);
      const c = p.status!.containerStatuses![0]!;
      const readyAt = Date.parse(p.status!.conditions!.find((x) => x.type === 'Ready')!.lastTransitionTime!);
      assert.ok(readyAt - Date.parse(c.state!.running!.startedAt!) >= 20_000, 'ready after initialDelaySeconds');
      assert.match(p.status!.podIP!, /^10\.244\.[123]\.\d+$/);
    }
  });

  it('Recreate: the new pods come only once every old pod is gone', async () => {
    const ns = await namespace('recreate');
    await client.create(Deployment, deployment('db', ns, { replicas: 2, strategy: { type: 'Recreate' } }));
    await until(Deployment, ns, complete('db', 2));
    const oldHash = ((await client.list(Pod, { namespace: ns })).items as PodObject[])[0]!.metadata.labels!['pod-template-hash'];
    let overlap = false;
    let sawNew = false;
    const watching = until(
      Pod,
      ns,
      (pods) => sawNew && [...pods.values()].filter((p) => ready(p)).length === 2,
      (type, pod, pods) => {
        if (type !== 'ADDED' || pod.metadata.labels?.['pod-template-hash'] === oldHash) return;
        sawNew = true;
        if ([...pods.values()].some((p) => p.metadata.labels?.['pod-template-hash'] === oldHash)) overlap = true;
      },
    );
    await client.patch(Deployment, 'db', { spec: { template: { spec: { containers: [{ name: 'app', image: 'postgres:16' }] } } } }, { namespace: ns, patchType: 'strategic' });
    await watching;
    assert.equal(overlap, false);
    await until(Deployment, ns, complete('db', 2));
  });

  it('graceful deletion: containers that ignore SIGTERM go at the end of the grace period', async () => {
    const ns = await namespace('grace');
    for (const [name, grace] of [['slow', 30], ['quick', 5]] as const) {
      await client.create(Pod, { metadata: { name, namespace: ns }, spec: { terminationGracePeriodSeconds: grace, containers: [{ name: 'app', image: 'busybox' }] } });
    }
    await until(Pod, ns, (pods) => pods.size === 2 && [...pods.values()].every(ready));
    const deletedAt = clock.now();
    const gone = new Map<string, number>();
    const watching = until(Pod, ns, (pods) => pods.size === 0, (type, pod) => {
      if (type === 'DELETED') gone.set(pod.metadata.name!, clock.now() - deletedAt);
    });
    await client.delete(Pod, 'slow', { namespace: ns });
    await client.delete(Pod, 'quick', { namespace: ns });
    const marked = await client.get(Pod, 'slow', { namespace: ns });
    assert.equal(marked.metadata.deletionGracePeriodSeconds, 30);
    await watching;
    // Order, not an upper bound: at 100x a loaded machine may deliver the deletion late in cluster time.
    assert.ok(gone.get('quick')! >= 5000, `quick went after ${gone.get('quick')} ms`);
    assert.ok(gone.get('slow')! >= 30_000, `slow went after ${gone.get('slow')} ms`);
    assert.ok(gone.get('quick')! < gone.get('slow')!, `quick (${gone.get('quick')} ms) went before slow (${gone.get('slow')} ms)`);
  });

  it('an image changed in place restarts the container: old image until then, then the new imageID, restartCount 1, same pod', async () => {
    const ns = await namespace('inplace');
    await client.create(Pod, { metadata: { name: 'app', namespace: ns }, spec: { containers: [{ name: 'main', image: 'nginx:1.27' }, { name: 'sidecar', image: 'envoy:1' }] } });
    const before = (await until(Pod, ns, (pods) => !!pods.get('app') && ready(pods.get('app')!))).get('app')!;
    const sidecar = (p: PodObject) => p.status!.containerStatuses!.find((c) => c.name === 'sidecar')!;
    const imagesBeforeRestart = new Set<string>();
    const watching = until(
      Pod,
      ns,
      (pods) => sidecar(pods.get('app')!).restartCount === 1,
      (_type, pod) => {
        if (sidecar(pod).restartCount === 0) imagesBeforeRestart.add(sidecar(pod).image!);
      },
    );
    // What Kruise's in-place update sends: a JSON patch of one container's image.
    await client.patch(Pod, 'app', [{ op: 'replace', path: '/spec/containers/1/image', value: 'envoy:2' }], { namespace: ns, patchType: 'json' });
    const after = (await watching).get('app')!;
    assert.deepEqual([...imagesBeforeRestart], ['docker.io/library/envoy:1'], 'the old image until the restart');
    assert.equal(after.metadata.uid, before.metadata.uid);
    assert.equal(sidecar(after).image, 'docker.io/library/envoy:2');
    assert.notEqual(sidecar(after).imageID, sidecar(before).imageID);
    assert.notEqual(sidecar(after).containerID, sidecar(before).containerID);
    assert.equal(sidecar(after).lastState?.terminated?.containerID, sidecar(before).containerID);
    const main = after.status!.containerStatuses!.find((c) => c.name === 'main')!;
    assert.equal(main.restartCount, 0, 'the other container ran on');
    // Events are written asynchronously (the recorder's queue): watched for, not listed once.
    const killing = 'Killing Container sidecar definition changed, will be restarted';
    const events = await until(CoreEvent, ns, (all) => [...all.values()].some((e) => `${e.reason} ${e.message}` === killing));
    assert.ok([...events.values()].some((e) => `${e.reason} ${e.message}` === killing));
  });

  it('init containers run to completion before the app containers start', async () => {
    const ns = await namespace('init');
    const phases: string[] = [];
    const watching = until(
      Pod,
      ns,
      (pods) => pods.get('job')?.status?.phase === 'Running',
      (_type, pod) => phases.push(`${pod.status?.phase}/${pod.status?.initContainerStatuses?.map((c) => Object.keys(c.state ?? {})[0]).join(',')}`),
    );
    await client.create(Pod, {
      metadata: { name: 'job', namespace: ns },
      spec: { initContainers: [{ name: 'migrate', image: 'tool:1' }, { name: 'seed', image: 'tool:1' }], containers: [{ name: 'app', image: 'app:1' }] },
    });
    const pod = (await watching).get('job')!;
    assert.ok(phases.includes('Pending/running,waiting'), phases.join(' '));
    const [migrate, seed] = pod.status!.initContainerStatuses!;
    assert.equal(migrate!.state?.terminated?.reason, 'Completed');
    assert.ok(Date.parse(seed!.state!.terminated!.startedAt!) >= Date.parse(migrate!.state!.terminated!.finishedAt!));
    assert.ok(Date.parse(pod.status!.containerStatuses![0]!.state!.running!.startedAt!) >= Date.parse(seed!.state!.terminated!.finishedAt!));
  });

  it('a pod that fits no node waits Unschedulable, and is placed once a node fits', async () => {
    const ns = await namespace('unschedulable');
    await client.create(Pod, { metadata: { name: 'picky', namespace: ns }, spec: { nodeSelector: { disk: 'ssd' }, containers: [{ name: 'app', image: 'nginx' }] } });
    const message =
      "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling..";
    await until(Pod, ns, (pods) => {
      const c = pods.get('picky')?.status?.conditions?.find((x) => x.type === 'PodScheduled');
      return c?.status === 'False' && c.reason === 'Unschedulable' && c.message === message;
    });
    await client.patch(Node, 'node-2', { metadata: { labels: { disk: 'ssd' } } });
    const placed = (await until(Pod, ns, (pods) => ready(pods.get('picky')!))).get('picky')!;
    assert.equal(placed.spec?.nodeName, 'node-2');
    const events = (await client.list(CoreEvent, { namespace: ns })).items.map((e) => `${e.type} ${e.reason} ${e.message}`);
    assert.ok(events.includes(`Warning FailedScheduling ${message}`), events.join('\n'));
    assert.ok(events.includes(`Normal Scheduled Successfully assigned ${ns}/picky to node-2`), events.join('\n'));
    await client.patch(Node, 'node-2', { metadata: { labels: { disk: null } } });
  });

  it('required pod anti-affinity on the hostname: one replica per node, and a 4th waits with FailedScheduling', async () => {
    const ns = await namespace('anti-affinity');
    const antiAffinity = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'ha' } }, topologyKey: 'kubernetes.io/hostname' }] } };
    const d = deployment('ha', ns);
    (d.spec!.template.spec as { affinity?: unknown }).affinity = antiAffinity;
    await client.create(Deployment, d);
    await until(Deployment, ns, complete('ha', 3));
    const nodesOf = (pods: Map<string, PodObject>) => [...pods.values()].map((p) => p.spec?.nodeName).filter(Boolean).sort();
    assert.deepEqual(nodesOf((await until(Pod, ns, (pods) => pods.size === 3))), ['node-1', 'node-2', 'node-3']);
    const scale = await client.getScale(Deployment, 'ha', { namespace: ns });
    await client.updateScale(Deployment, { ...scale, spec: { replicas: 4 } }, { namespace: ns });
    const message =
      "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod..";
    const pods = await until(Pod, ns, (all) =>
      [...all.values()].some((p) => {
        const c = p.status?.conditions?.find((x) => x.type === 'PodScheduled');
        return !p.spec?.nodeName && c?.status === 'False' && c.reason === 'Unschedulable' && c.message === message;
      }),
    );
    assert.deepEqual(nodesOf(pods), ['node-1', 'node-2', 'node-3'], 'the 4th is not placed');
    const waiting = [...pods.values()].find((p) => !p.spec?.nodeName)!;
    const events = (await client.list(CoreEvent, { namespace: ns })).items.filter((e) => e.involvedObject.name === waiting.metadata.name).map((e) => `${e.type} ${e.reason} ${e.message}`);
    assert.ok(events.includes(`Warning FailedScheduling ${message}`), events.join('\n'));
    // Back to 3: the deployment frees nothing else, and the namespace is left for the next tests to ignore.
    await client.updateScale(Deployment, { ...(await client.getScale(Deployment, 'ha', { namespace: ns })), spec: { replicas: 3 } }, { namespace: ns });
  });

  it('topology spread maxSkew 1 over the hostname: 6 pods 2/2/2, even with one node busy with other work', async () => {
    const ns = await namespace('spread');
    // A pod that takes most of node-1's cpu: by score alone the replicas would all go to node-2 and node-3.
    await client.create(Pod, {
      metadata: { name: 'batch', namespace: ns, labels: { app: 'batch' } },
      spec: { nodeSelector: { 'kubernetes.io/hostname': 'node-1' }, containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '24' } } }] },
    });
    await until(Pod, ns, (pods) => pods.get('batch')?.spec?.nodeName === 'node-1');
    const d = deployment('spread', ns, { replicas: 6 });
    (d.spec!.template.spec as { topologySpreadConstraints?: unknown }).topologySpreadConstraints = [
      { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'spread' } } },
    ];
    await client.create(Deployment, d);
    await until(Deployment, ns, complete('spread', 6));
    const pods = (await client.list(Pod, { namespace: ns, labelSelector: 'app=spread' })).items;
    const perNode = new Map<string, number>();
    for (const p of pods) perNode.set(p.spec!.nodeName!, (perNode.get(p.spec!.nodeName!) ?? 0) + 1);
    assert.deepEqual([...perNode].sort(), [['node-1', 2], ['node-2', 2], ['node-3', 2]]);
    await client.delete(Pod, 'batch', { namespace: ns });
  });

  it('preferred pod anti-affinity on the hostname: one replica per node though node-1 has the most room, and a 4th is placed all the same', async () => {
    const ns = await namespace('soft-anti-affinity');
    // node-2 and node-3 busy with other work: by room alone every replica would go to node-1.
    for (const node of ['node-2', 'node-3']) {
      await client.create(Pod, {
        metadata: { name: `batch-${node}`, namespace: ns, labels: { app: 'batch' } },
        spec: { nodeSelector: { 'kubernetes.io/hostname': node }, containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '24' } } }] },
      });
    }
    await until(Pod, ns, (pods) => !!pods.get('batch-node-2')?.spec?.nodeName && !!pods.get('batch-node-3')?.spec?.nodeName);
    const d = deployment('soft', ns);
    (d.spec!.template.spec as { affinity?: unknown }).affinity = {
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { app: 'soft' } }, topologyKey: 'kubernetes.io/hostname' } }],
      },
    };
    await client.create(Deployment, d);
    await until(Deployment, ns, complete('soft', 3));
    const nodesOf = async () => (await client.list(Pod, { namespace: ns, labelSelector: 'app=soft' })).items.map((p) => p.spec?.nodeName ?? '').sort();
    assert.deepEqual(await nodesOf(), ['node-1', 'node-2', 'node-3']);
    const scale = await client.getScale(Deployment, 'soft', { namespace: ns });
    await client.updateScale(Deployment, { ...scale, spec: { replicas: 4 } }, { namespace: ns });
    await until(Deployment, ns, complete('soft', 4));
    const four = await nodesOf();
    assert.equal(four.length, 4);
    assert.ok(four.every((n) => /^node-[123]$/.test(n)), four.join(','));
    for (const node of ['node-2', 'node-3']) await client.delete(Pod, `batch-${node}`, { namespace: ns });
    await client.updateScale(Deployment, { ...(await client.getScale(Deployment, 'soft', { namespace: ns })), spec: { replicas: 0 } }, { namespace: ns });
  });

  it('scaling through the scale subresource, down to one pod and up again', async () => {
    const ns = await namespace('scale');
    await client.create(Deployment, deployment('api', ns, { replicas: 2 }));
    await until(Deployment, ns, complete('api', 2));
    const scale = await client.getScale(Deployment, 'api', { namespace: ns });
    await client.updateScale(Deployment, { ...scale, spec: { replicas: 5 } }, { namespace: ns });
    await until(Deployment, ns, complete('api', 5));
    const again = await client.getScale(Deployment, 'api', { namespace: ns });
    await client.updateScale(Deployment, { ...again, spec: { replicas: 1 } }, { namespace: ns });
    await until(Deployment, ns, complete('api', 1));
    await until(Pod, ns, (pods) => pods.size === 1);
  });
});

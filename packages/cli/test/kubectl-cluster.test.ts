/**
 * `operant server --nodes 3` judged by the real kubectl: a Deployment gets
 * its ReplicaSet and pods, which run and become ready on the simulated
 * nodes; `rollout status`, `set image`, `scale`, `rollout undo|pause|resume|restart`
 * and `describe` behave as on a cluster. The rolling update is watched (with the runtime's client) at
 * every pod and ReplicaSet event, to see that it never goes below the
 * availability maxUnavailable allows.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { Client, loadKubeConfig, Node, Pod, ReplicaSet, type KubeObject } from '@operant/runtime';
import { hasKubectl, kubectlOk, startServer, type ServerProcess } from './harness.js';
import { kit, tableRows } from './kubectl-support.js';

let server: ServerProcess;
let client: Client;

before(async () => {
  if (!hasKubectl) return;
  server = await startServer({ extraArgs: ['--nodes', '3'] });
  client = Client.fromConfig(await loadKubeConfig({ path: server.kubeconfig }), { qps: Infinity });
});
after(async () => {
  client?.close();
  await server?.stop();
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const json = async (args: string[], on: ServerProcess = server): Promise<Json> => JSON.parse(await kubectlOk(on, [...args, '-o', 'json'])) as Json;
const isReady = (p: Json): boolean => (p.status?.conditions ?? []).some((c: Json) => c.type === 'Ready' && c.status === 'True');

/** Watches `kind` in `default`, calling `onChange` with every object (by name) after each event, until `signal` aborts. */
async function watchAll(kind: typeof Pod | typeof ReplicaSet, signal: AbortSignal, onChange: (objects: Map<string, KubeObject>) => void): Promise<void> {
  const list = await client.list(kind as typeof Pod, { namespace: 'default' });
  const objects = new Map<string, KubeObject>(list.items.map((o) => [o.metadata.name!, o]));
  onChange(objects);
  for await (const e of client.watch(kind as typeof Pod, { namespace: 'default', resourceVersion: list.metadata.resourceVersion, signal })) {
    if (e.type === 'ADDED' || e.type === 'MODIFIED') objects.set(e.object.metadata.name!, e.object);
    else if (e.type === 'DELETED') objects.delete(e.object.metadata.name!);
    else continue;
    onChange(objects);
  }
}

describe('operant server --nodes 3', () => {
  kit('registers three Ready nodes that report the server\'s version', async () => {
    const rows = tableRows(await kubectlOk(server, ['get', 'nodes']));
    assert.deepEqual(rows[0], ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
    assert.deepEqual(
      rows.slice(1).map((r) => [r[0], r[1], r[4]]),
      [
        ['node-1', 'Ready', 'v1.32.0'],
        ['node-2', 'Ready', 'v1.32.0'],
        ['node-3', 'Ready', 'v1.32.0'],
      ],
    );
  });

  kit("kubectl describe node shows what the node's kubelet told as it started, and the node controller's RegisteredNode", async () => {
    // Events are written after the fact (the recorder's queue): wait for the last of them, then read them all.
    const told = [
      /Normal\s+Starting\s+.*kubelet\s+Starting kubelet\./,
      /Normal\s+NodeHasSufficientMemory\s+.*kubelet\s+Node node-2 status is now: NodeHasSufficientMemory/,
      /Normal\s+NodeHasNoDiskPressure\s+.*kubelet\s+Node node-2 status is now: NodeHasNoDiskPressure/,
      /Normal\s+NodeHasSufficientPID\s+.*kubelet\s+Node node-2 status is now: NodeHasSufficientPID/,
      /Normal\s+NodeAllocatableEnforced\s+.*kubelet\s+Updated Node Allocatable limit across pods/,
      /Normal\s+NodeReady\s+.*kubelet\s+Node node-2 status is now: NodeReady/,
      /Normal\s+RegisteredNode\s+.*node-controller\s+Node node-2 event: Registered Node node-2 in Controller/,
    ];
    const deadline = Date.now() + 20_000;
    let described = '';
    while (Date.now() < deadline) {
      described = await kubectlOk(server, ['describe', 'node', 'node-2']);
      if (told.every((line) => line.test(described))) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    for (const line of told) assert.match(described, line);
    assert.doesNotMatch(described, /Events:\s+<none>/);
  });

  kit('a node that registers NotReady has the not-ready NoSchedule taint from its creation; kubectl describe node shows it until the node is Ready', async () => {
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const ready = (status: string, reason: string) => ({ type: 'Ready', status, reason, message: reason, lastHeartbeatTime: now, lastTransitionTime: now });
    // Registered with its status, as a kubelet registers: Ready False (its network is not up yet).
    const manifest = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'joining' }, status: { conditions: [ready('False', 'KubeletNotReady')] } };
    try {
      // The object the create answered with: the API server's admission (TaintNodesAtCreation) tainted it, before any controller saw it.
      const created = JSON.parse(await kubectlOk(server, ['create', '-f', '-', '-o', 'json'], { input: JSON.stringify(manifest) })) as Json;
      assert.deepEqual(created.spec.taints, [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }]);
      // The node lifecycle controller keeps it (and adds the NoExecute one, which kubectl lists first, at its own pace).
      assert.match(await kubectlOk(server, ['describe', 'node', 'joining']), /Taints:\s+(node\.kubernetes\.io\/not-ready:NoExecute\n\s+)?node\.kubernetes\.io\/not-ready:NoSchedule\n/);
      assert.deepEqual(tableRows(await kubectlOk(server, ['get', 'node', 'joining']))[1]!.slice(0, 2), ['joining', 'NotReady']);

      await kubectlOk(server, ['patch', 'node', 'joining', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { conditions: [ready('True', 'KubeletReady')] } })]);
      // The node lifecycle controller takes the taints away once it sees the node Ready.
      for await (const e of client.watch(Node, { fieldSelector: 'metadata.name=joining', signal: AbortSignal.timeout(20_000) })) {
        if (e.type === 'ADDED' || e.type === 'MODIFIED') if (!e.object.spec?.taints) break;
      }
      assert.match(await kubectlOk(server, ['describe', 'node', 'joining']), /Taints:\s+<none>\n/);
    } finally {
      await kubectlOk(server, ['delete', 'node', 'joining', '--ignore-not-found']);
    }
  });

  kit('kubectl create deployment: three pods Running and Ready on the nodes, and rollout status returns', async () => {
    await kubectlOk(server, ['create', 'deployment', 'web', '--image=nginx', '--replicas=3']);
    const status = await kubectlOk(server, ['rollout', 'status', 'deployment/web', '--timeout=20s']);
    assert.match(status, /deployment "web" successfully rolled out/);
    const pods = (await json(['get', 'pods', '-l', 'app=web'])).items as Json[];
    assert.equal(pods.length, 3);
    for (const p of pods) {
      assert.equal(p.status.phase, 'Running');
      assert.ok(isReady(p));
      assert.match(p.spec.nodeName, /^node-[123]$/);
      assert.match(p.status.podIP, /^10\.244\.[123]\.\d+$/);
      assert.equal(p.status.containerStatuses[0].image, 'docker.io/library/nginx:latest');
      assert.match(p.status.containerStatuses[0].imageID, /^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
      assert.match(p.status.containerStatuses[0].containerID, /^containerd:\/\/[0-9a-f]{64}$/);
    }
    assert.equal(new Set(pods.map((p) => p.spec.nodeName)).size, 3, 'one pod per node');
    const rows = tableRows(await kubectlOk(server, ['get', 'deployment', 'web']));
    assert.deepEqual(rows[1]!.slice(0, 4), ['web', '3/3', '3', '3']);
    const rs = (await json(['get', 'rs', '-l', 'app=web'])).items as Json[];
    assert.equal(rs.length, 1);
    assert.equal(rs[0]!.metadata.annotations['deployment.kubernetes.io/revision'], '1');
    assert.equal(rs[0]!.metadata.name, `web-${rs[0]!.metadata.labels['pod-template-hash']}`);
  });

  kit('kubectl set image: a rolling update that never drops below the available pods maxUnavailable allows', async () => {
    // 3 replicas at 25%: maxUnavailable rounds down to 0, maxSurge up to 1.
    const desired = 3;
    const maxUnavailable = 0;
    const maxSurge = 1;
    const violations: string[] = [];
    let podEvents = 0;
    let rsEvents = 0;
    const stop = new AbortController();
    const pods = watchAll(Pod, stop.signal, (objects) => {
      podEvents++;
      const web = [...objects.values()].filter((p) => p.metadata.labels?.app === 'web');
      const available = web.filter((p) => !p.metadata.deletionTimestamp && isReady(p)).length;
      if (available < desired - maxUnavailable) violations.push(`pods: ${available} available at event ${podEvents}`);
    });
    const replicaSets = watchAll(ReplicaSet, stop.signal, (objects) => {
      rsEvents++;
      const web = [...objects.values()].filter((rs) => rs.metadata.labels?.app === 'web') as Json[];
      const size = web.reduce((n, rs) => n + (rs.spec.replicas ?? 0), 0);
      const available = web.reduce((n, rs) => n + (rs.status?.availableReplicas ?? 0), 0);
      if (size > desired + maxSurge) violations.push(`replica sets: ${size} replicas at event ${rsEvents}`);
      if (available < desired - maxUnavailable) violations.push(`replica sets: ${available} available at event ${rsEvents}`);
    });
    try {
      await kubectlOk(server, ['set', 'image', 'deployment/web', 'nginx=nginx:1.27']);
      const status = await kubectlOk(server, ['rollout', 'status', 'deployment/web', '--timeout=30s']);
      assert.match(status, /successfully rolled out/);
    } finally {
      stop.abort();
      await Promise.all([pods, replicaSets]);
    }
    assert.deepEqual(violations, []);
    assert.ok(podEvents > 10 && rsEvents > 5, `watched ${podEvents} pod and ${rsEvents} ReplicaSet events`);
    const running = ((await json(['get', 'pods', '-l', 'app=web'])).items as Json[]).filter((p) => !p.metadata.deletionTimestamp);
    assert.equal(running.length, 3);
    for (const p of running) {
      assert.equal(p.spec.containers[0].image, 'nginx:1.27');
      assert.equal(p.status.containerStatuses[0].image, 'docker.io/library/nginx:1.27');
    }
    const history = await kubectlOk(server, ['rollout', 'history', 'deployment/web']);
    assert.match(history, /^1\s/m);
    assert.match(history, /^2\s/m);
    const d = await json(['get', 'deployment', 'web']);
    assert.equal(d.metadata.annotations['deployment.kubernetes.io/revision'], '2');
    const events = await kubectlOk(server, ['describe', 'deployment', 'web']);
    assert.match(events, /ScalingReplicaSet\s+.*deployment-controller\s+Scaled up replica set web-\w+ to 1\n/);
    assert.match(events, /ScalingReplicaSet\s+.*deployment-controller\s+Scaled down replica set web-\w+ to 2 from 3\n/);
  });

  kit('kubectl scale deployment to 5', async () => {
    await kubectlOk(server, ['scale', 'deployment', 'web', '--replicas=5']);
    await kubectlOk(server, ['rollout', 'status', 'deployment/web', '--timeout=20s']);
    const pods = ((await json(['get', 'pods', '-l', 'app=web'])).items as Json[]).filter((p) => !p.metadata.deletionTimestamp);
    assert.equal(pods.length, 5);
    assert.ok(pods.every(isReady));
    const rows = tableRows(await kubectlOk(server, ['get', 'deployment', 'web']));
    assert.deepEqual(rows[1]!.slice(0, 4), ['web', '5/5', '5', '5']);
  });

  kit('kubectl set image on a pod restarts its container in place: restartCount 1, the new imageID, the same pod', async () => {
    const pod = ((await json(['get', 'pods', '-l', 'app=web'])).items as Json[]).find((p) => !p.metadata.deletionTimestamp)!;
    const name = pod.metadata.name as string;
    const before = pod.status.containerStatuses[0];
    await kubectlOk(server, ['set', 'image', `pod/${name}`, 'nginx=nginx:1.28']);
    await kubectlOk(server, ['wait', `pod/${name}`, '--for=jsonpath={.status.containerStatuses[0].restartCount}=1', '--timeout=20s']);
    const after = await json(['get', 'pod', name]);
    const c = after.status.containerStatuses[0];
    assert.equal(after.metadata.uid, pod.metadata.uid);
    assert.equal(c.restartCount, 1);
    assert.equal(c.image, 'docker.io/library/nginx:1.28');
    assert.notEqual(c.imageID, before.imageID);
    assert.match(c.imageID, /^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
    assert.equal(c.lastState.terminated.containerID, before.containerID);
    assert.ok(c.ready);
    const described = await kubectlOk(server, ['describe', 'pod', name]);
    assert.match(described, /Killing\s+.*kubelet\s+Container nginx definition changed, will be restarted/);
  });

  kit('kubectl rollout undo, pause, resume and restart', async () => {
    const live = async (): Promise<Json[]> => ((await json(['get', 'pods', '-l', 'app=roll'])).items as Json[]).filter((p) => !p.metadata.deletionTimestamp);
    const replicaSets = async (): Promise<Json[]> => (await json(['get', 'rs', '-l', 'app=roll'])).items as Json[];
    const revision = (o: Json): string | undefined => o.metadata.annotations?.['deployment.kubernetes.io/revision'];
    await kubectlOk(server, ['create', 'deployment', 'roll', '--image=nginx:1.26', '--replicas=2']);
    await kubectlOk(server, ['rollout', 'status', 'deployment/roll', '--timeout=30s']);
    await kubectlOk(server, ['set', 'image', 'deployment/roll', 'nginx=nginx:1.27']);
    await kubectlOk(server, ['rollout', 'status', 'deployment/roll', '--timeout=30s']);
    const first = (await replicaSets()).find((rs) => rs.spec.template.spec.containers[0].image === 'nginx:1.26')!;
    assert.equal(revision(first), '1');

    // undo: back to revision 1's template, which its ReplicaSet runs again as revision 3.
    assert.match(await kubectlOk(server, ['rollout', 'undo', 'deployment/roll']), /^deployment\.apps\/roll rolled back$/m);
    await kubectlOk(server, ['rollout', 'status', 'deployment/roll', '--timeout=30s']);
    const undone = await live();
    assert.equal(undone.length, 2);
    for (const p of undone) {
      assert.equal(p.metadata.labels['pod-template-hash'], first.metadata.labels['pod-template-hash']);
      assert.equal(p.status.containerStatuses[0].image, 'docker.io/library/nginx:1.26');
    }
    const again = (await replicaSets()).find((rs) => rs.metadata.name === first.metadata.name)!;
    assert.equal(again.metadata.uid, first.metadata.uid, 'the same ReplicaSet, not a new one');
    assert.equal(revision(again), '3');
    assert.equal(again.metadata.annotations['deployment.kubernetes.io/revision-history'], '1');
    assert.equal(revision(await json(['get', 'deployment', 'roll'])), '3');
    const history = await kubectlOk(server, ['rollout', 'history', 'deployment/roll']);
    assert.deepEqual(tableRows(history).slice(2).map((r) => r[0]), ['2', '3']);

    // pause: a template change is seen (observedGeneration) but rolls nothing out.
    assert.match(await kubectlOk(server, ['rollout', 'pause', 'deployment/roll']), /^deployment\.apps\/roll paused$/m);
    await kubectlOk(server, ['set', 'image', 'deployment/roll', 'nginx=nginx:1.28']);
    const generation = (await json(['get', 'deployment', 'roll'])).metadata.generation as number;
    await kubectlOk(server, ['wait', 'deployment/roll', `--for=jsonpath={.status.observedGeneration}=${generation}`, '--timeout=30s']);
    const paused = await json(['get', 'deployment', 'roll']);
    const progressing = (paused.status.conditions as Json[]).find((c) => c.type === 'Progressing')!;
    assert.deepEqual([progressing.status, progressing.reason, progressing.message], ['Unknown', 'DeploymentPaused', 'Deployment is paused']);
    assert.equal((await replicaSets()).length, 2, 'no ReplicaSet for the paused template');
    assert.ok((await live()).every((p) => p.spec.containers[0].image === 'nginx:1.26'));

    // resume: the change rolls out.
    assert.match(await kubectlOk(server, ['rollout', 'resume', 'deployment/roll']), /^deployment\.apps\/roll resumed$/m);
    await kubectlOk(server, ['rollout', 'status', 'deployment/roll', '--timeout=30s']);
    const resumed = await live();
    assert.equal(resumed.length, 2);
    assert.ok(resumed.every((p) => p.status.containerStatuses[0].image === 'docker.io/library/nginx:1.28'));
    assert.equal(revision(await json(['get', 'deployment', 'roll'])), '4');

    // restart: new pods of the same template, with kubectl's restartedAt annotation.
    assert.match(await kubectlOk(server, ['rollout', 'restart', 'deployment/roll']), /^deployment\.apps\/roll restarted$/m);
    await kubectlOk(server, ['rollout', 'status', 'deployment/roll', '--timeout=30s']);
    const restarted = await live();
    assert.equal(restarted.length, 2);
    const before = new Set(resumed.map((p) => p.metadata.name));
    for (const p of restarted) {
      assert.ok(!before.has(p.metadata.name), `${p.metadata.name} is a new pod`);
      assert.match(p.metadata.annotations['kubectl.kubernetes.io/restartedAt'], /^\d{4}-\d\d-\d\dT/);
      assert.equal(p.spec.containers[0].image, 'nginx:1.28');
    }
    assert.equal(revision(await json(['get', 'deployment', 'roll'])), '5');
    await kubectlOk(server, ['delete', 'deployment', 'roll', '--wait']);
  }, { timeout: 150_000 });

  kit('the start-seconds knob: kubectl get shows the pod ContainerCreating, then Running', async () => {
    await kubectlOk(server, ['apply', '-f', '-'], {
      input: 'apiVersion: v1\nkind: Pod\nmetadata: {name: slow, annotations: {sim.operant.dev/start-seconds: "3"}}\nspec:\n  containers:\n  - {name: app, image: nginx}\n',
    });
    await kubectlOk(server, ['wait', 'pod/slow', '--for=jsonpath={.status.containerStatuses[0].state.waiting.reason}=ContainerCreating', '--timeout=20s']);
    assert.equal(tableRows(await kubectlOk(server, ['get', 'pod', 'slow']))[1]![2], 'ContainerCreating');
    await kubectlOk(server, ['wait', 'pod/slow', '--for=condition=Ready', '--timeout=20s']);
    assert.equal(tableRows(await kubectlOk(server, ['get', 'pod', 'slow']))[1]![2], 'Running');
    await kubectlOk(server, ['delete', 'pod', 'slow']);
  });

  kit('a pod that fits nowhere shows FailedScheduling in kubectl describe', async () => {
    await kubectlOk(server, ['apply', '-f', '-'], {
      input: 'apiVersion: v1\nkind: Pod\nmetadata: {name: big}\nspec:\n  containers:\n  - {name: app, image: nginx, resources: {requests: {cpu: "64"}}}\n',
    });
    await kubectlOk(server, ['wait', 'pod/big', '--for=condition=PodScheduled=false', '--timeout=20s']);
    const described = await kubectlOk(server, ['describe', 'pod', 'big']);
    assert.match(described, /Status:\s+Pending/);
    assert.match(
      described,
      /Warning\s+FailedScheduling\s+.*default-scheduler\s+0\/3 nodes are available: 3 Insufficient cpu\. preemption: 0\/3 nodes are available: 3 No preemption victims found for incoming pod\.\./,
    );
    await kubectlOk(server, ['delete', 'pod', 'big']);
  });

  kit('kubectl delete deployment: its pods go, after their containers stop', async () => {
    await kubectlOk(server, ['delete', 'deployment', 'web']);
    await kubectlOk(server, ['wait', 'pods', '-l', 'app=web', '--for=delete', '--timeout=20s']);
    const left = await kubectlOk(server, ['get', 'pods,rs', '-l', 'app=web']);
    assert.equal(left.trim(), '');
  });
});

describe('operant server without --nodes', () => {
  kit('stays bare: no nodes, and a Deployment gets no ReplicaSet', async () => {
    const bare = await startServer();
    try {
      assert.equal((await kubectlOk(bare, ['get', 'nodes', '-o', 'name'])).trim(), '');
      await kubectlOk(bare, ['create', 'deployment', 'idle', '--image=nginx']);
      assert.equal((await kubectlOk(bare, ['get', 'rs', '-o', 'name'])).trim(), '');
      assert.deepEqual((await json(['get', 'deployment', 'idle'], bare)).status, {});
    } finally {
      await bare.stop();
    }
  });
});

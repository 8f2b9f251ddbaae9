/**
 * Simulated nodes judged by the real kubectl: the kubelet's test knobs as
 * `kubectl describe` and `kubectl logs` show them, and a node that runs in
 * a process of its own (`operant nodes`) killed with SIGKILL: `kubectl get
 * nodes` shows it NotReady and its pods are replaced on the other nodes.
 * The server and the node process share cluster time (`--time-scale 50
 * --time-anchor`), so the 40 s grace period and the 300 s tolerations pass
 * in about a second and six.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe } from 'node:test';
import { Client, loadKubeConfig, Node, Pod, type KubeObject } from '@operant/runtime';
import { eventually } from '@operant/testing';
import { hasKubectl, kubectl, kubectlOk, startServer, type ServerProcess } from './harness.js';
import { kit, tableRows } from './kubectl-support.js';

const cliMain = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'main.js');
const anchor = String(Date.now());
const scale = '50';
let server: ServerProcess;
let client: Client;
let nodeProcess: ChildProcess | undefined;

/** `operant nodes`: node-3, in a process of its own; resolves once it is registered. */
async function startNodeProcess(): Promise<ChildProcess> {
  const child = spawn(process.execPath, [cliMain, 'nodes', '--kubeconfig', server.kubeconfig, '--count', '1', '--first-index', '3', '--time-scale', scale, '--time-anchor', anchor], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (/^ready node-3$/m.test(out)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`operant nodes exited with ${code} before ready: ${stderr}`)));
  });
  return child;
}

before(async () => {
  if (!hasKubectl) return;
  server = await startServer({ extraArgs: ['--nodes', '2', '--time-scale', scale, '--time-anchor', anchor] });
  client = Client.fromConfig(await loadKubeConfig({ path: server.kubeconfig }), { qps: Infinity });
  nodeProcess = await startNodeProcess();
});
after(async () => {
  if (nodeProcess && nodeProcess.exitCode === null && nodeProcess.signalCode === null) nodeProcess.kill('SIGKILL');
  client?.close();
  await server?.stop();
});

const wait = (args: string[]) => kubectlOk(server, ['wait', '--timeout=40s', ...args]);
const podYaml = (name: string, annotations: Record<string, string>, extra = '') => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  annotations:
${Object.entries(annotations).map(([k, v]) => `    ${k}: "${v}"`).join('\n')}
spec:
${extra}  containers:
  - name: app
    image: nginx:1.27
`;

/** Watches the pods of `default` until `check` holds for them. */
async function podsUntil(check: (pods: KubeObject[]) => boolean, timeoutMs = 45_000): Promise<KubeObject[]> {
  const list = await client.list(Pod, { namespace: 'default' });
  const pods = new Map(list.items.map((p) => [p.metadata.name!, p as KubeObject]));
  if (check([...pods.values()])) return [...pods.values()];
  for await (const e of client.watch(Pod, { namespace: 'default', resourceVersion: list.metadata.resourceVersion, signal: AbortSignal.timeout(timeoutMs) })) {
    if (e.type === 'ADDED' || e.type === 'MODIFIED') pods.set(e.object.metadata.name!, e.object);
    else if (e.type === 'DELETED') pods.delete(e.object.metadata.name!);
    else continue;
    if (check([...pods.values()])) return [...pods.values()];
  }
  throw new Error('timed out');
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const ready = (p: Json): boolean => (p.status?.conditions ?? []).some((c: Json) => c.type === 'Ready' && c.status === 'True');

describe('simulated nodes with kubectl', () => {
  kit('a crash-looping pod: kubectl describe shows CrashLoopBackOff and the BackOff events; kubectl logs shows the simulated log, --previous the run that crashed', async () => {
    await kubectlOk(server, ['apply', '-f', '-'], { input: podYaml('crasher', { 'sim.operant.dev/crash-loop': 'true' }) });
    await wait(['--for=jsonpath={.status.containerStatuses[0].state.waiting.reason}=CrashLoopBackOff', 'pod/crasher']);
    // The kubelet's events are recorded after the status it writes: describe until the BackOff shows.
    await eventually(async () => {
      const described = await kubectlOk(server, ['describe', 'pod', 'crasher']);
      assert.match(described, /State:\s+Waiting\n\s+Reason:\s+CrashLoopBackOff/);
      assert.match(described, /Last State:\s+Terminated\n\s+Reason:\s+Error\n\s+Exit Code:\s+1/);
      assert.match(described, /Warning\s+BackOff\s+\S+\s+kubelet\s+Back-off restarting failed container app in pod crasher_default\(/);
    }, { timeout: 15_000, interval: 200, message: 'kubectl describe shows the crash loop and its BackOff event' });

    // Waiting to restart, the kubelet shows the run that ended; --previous names it too. At 50 times the
    // wall clock the first back-offs last 200-800 ms, so the pod may be running again (its log then shows
    // the new run, started and not ended) by the time kubectl asks: ask until it is waiting; the back-off
    // doubles at each crash.
    await eventually(
      async () => {
        const log = await kubectlOk(server, ['logs', 'crasher']);
        assert.match(log, /^\[simulated\] node node-\d runs no real containers/m);
        assert.match(log, /^\[simulated\] container app started \(image docker\.io\/library\/nginx:1\.27, containerd:\/\/[0-9a-f]{64}\)$/m);
        assert.match(log, /^\[simulated\] container app exited with code 1 \(Error\)$/m);
      },
      { timeout: 15_000, interval: 50, message: 'kubectl logs shows the run that crashed while the pod backs off' },
    );
    assert.match(await kubectlOk(server, ['logs', 'crasher', '--previous']), /container app exited with code 1 \(Error\)/);
    // -f ends by itself (the simulated container writes nothing more); -c names the container.
    assert.match(await kubectlOk(server, ['logs', '-f', 'crasher', '-c', 'app', '--timestamps']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z \[simulated\]/m);
  });

  kit('kubectl logs: kube\'s errors for a container that is not there, one whose image cannot be pulled, and no previous run', async () => {
    await kubectlOk(server, ['apply', '-f', '-'], { input: podYaml('puller', { 'sim.operant.dev/image-pull-failure': 'true' }) });
    await wait(['--for=jsonpath={.status.containerStatuses[0].state.waiting.reason}=ImagePullBackOff', 'pod/puller']);
    // At 50 times the wall clock the kubelet's 10 s back-off is 200 ms: by the time kubectl asks, the pod
    // may be pulling again (ErrImagePull, kube's "image can't be pulled"), so ask until it is backing off.
    await eventually(
      async () => {
        const pulling = await kubectl(server, ['logs', 'puller']);
        assert.notEqual(pulling.code, 0);
        assert.match(pulling.stderr, /Error from server \(BadRequest\): container "app" in pod "puller" is waiting to start: (trying and failing to pull image|image can't be pulled)\n/);
        assert.match(pulling.stderr, /trying and failing to pull image/);
      },
      { timeout: 15_000, interval: 50, message: 'kubectl logs names the image pull back-off' },
    );
    await eventually(async () => assert.match(await kubectlOk(server, ['describe', 'pod', 'puller']), /Normal\s+BackOff\s+\S+\s+kubelet\s+Back-off pulling image "nginx:1\.27"/), {
      timeout: 15_000,
      interval: 200,
      message: 'kubectl describe shows the image pull BackOff event',
    });
    const wrong = await kubectl(server, ['logs', 'puller', '-c', 'nope']);
    assert.match(wrong.stderr, /container nope is not valid for pod puller/);

    await kubectlOk(server, ['run', 'steady', '--image=nginx:1.27']);
    await wait(['--for=condition=Ready', 'pod/steady']);
    const previous = await kubectl(server, ['logs', 'steady', '--previous']);
    assert.match(previous.stderr, /Error from server \(BadRequest\): previous terminated container "steady" in pod "steady" not found/);
  });

  kit('kubectl cordon: the node shows SchedulingDisabled and gets the node.kubernetes.io/unschedulable NoSchedule taint; kubectl uncordon takes both away', async () => {
    await kubectlOk(server, ['cordon', 'node-2']);
    await wait(['--for=jsonpath={.spec.taints[0].key}=node.kubernetes.io/unschedulable', 'node/node-2']);
    const rows = tableRows(await kubectlOk(server, ['get', 'nodes']));
    assert.deepEqual(rows.find((r) => r[0] === 'node-2')?.slice(0, 2), ['node-2', 'Ready,SchedulingDisabled']);
    const described = await kubectlOk(server, ['describe', 'node', 'node-2']);
    assert.match(described, /Taints:\s+node\.kubernetes\.io\/unschedulable:NoSchedule\n/);
    assert.match(described, /Unschedulable:\s+true\n/);

    await kubectlOk(server, ['uncordon', 'node-2']);
    await eventually(async () => ((await client.get(Node, 'node-2')).spec?.taints ?? []).length === 0, { timeout: 20_000 });
    assert.match(await kubectlOk(server, ['describe', 'node', 'node-2']), /Taints:\s+<none>\n/);
  });

  kit('a node killed with SIGKILL goes NotReady in kubectl get nodes, and its pods are replaced on the other nodes', async () => {
    await wait(['--for=condition=Ready', 'node/node-3']);
    await kubectlOk(server, ['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=6']);
    const placed = await podsUntil((pods) => pods.filter((p) => p.metadata.labels?.app === 'web' && ready(p)).length === 6);
    const onNode3 = placed.filter((p) => p.metadata.labels?.app === 'web' && (p as Json).spec.nodeName === 'node-3').map((p) => p.metadata.name!);
    assert.ok(onNode3.length > 0, 'some pods run on node-3');

    nodeProcess!.kill('SIGKILL');
    await once(nodeProcess!, 'exit');
    await wait(['--for=condition=Ready=Unknown', 'node/node-3']);
    const rows = tableRows(await kubectlOk(server, ['get', 'nodes']));
    assert.deepEqual(rows.find((r) => r[0] === 'node-3')?.slice(0, 2), ['node-3', 'NotReady']);
    const described = await kubectlOk(server, ['describe', 'node', 'node-3']);
    assert.match(described, /Taints:\s+node\.kubernetes\.io\/unreachable:NoExecute\n\s+node\.kubernetes\.io\/unreachable:NoSchedule/);
    assert.match(described, /Ready\s+Unknown\s.*NodeStatusUnknown\s+Kubelet stopped posting node status\./);

    // After the pods' 300 s tolerations (6 s here) they are evicted, and the ReplicaSet replaces them on node-1 and node-2.
    await podsUntil((pods) => {
      const web = pods.filter((p) => p.metadata.labels?.app === 'web');
      const live = web.filter((p) => !p.metadata.deletionTimestamp);
      return live.length === 6 && live.every((p) => (p as Json).spec.nodeName !== 'node-3' && ready(p)) && onNode3.every((n) => web.find((p) => p.metadata.name === n)?.metadata.deletionTimestamp);
    });
    await kubectlOk(server, ['rollout', 'status', 'deployment/web', '--timeout=30s']);
  }, { timeout: 90_000 });
});

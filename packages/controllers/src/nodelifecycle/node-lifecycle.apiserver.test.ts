/**
 * The kubelet's test knobs, node lifecycle, taint eviction and pod GC,
 * against the embedded API server on a clock a hundred times faster than the
 * wall's: the 40 s grace period passes in 0.4 s, the 300 s default
 * tolerations in 3 s. Every wait is a watch until a condition holds.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client, CoreEvent, Deployment, Namespace, Node, Pod, type Kind, type KubeObject } from '@operant/runtime';
import { acceleratedClock } from '../clock.js';
import { crashLoopAnnotation, heartbeatsPausedAnnotation, imagePullFailureAnnotation } from '../kubelet/knobs.js';
import type { DeploymentObject, NodeObject, PodObject } from '../objects.js';
import { useTestCluster } from '../testdata/test-cluster.js';
import { watchUntil, watchUntilAfterList } from '../testdata/watch-until.js';

let client: Client;
useTestCluster({ nodes: 3, clock: acceleratedClock(100) }, (env) => {
  client = env.client;
});

function until<T extends KubeObject>(kind: Kind<T>, namespace: string | undefined, check: (objects: Map<string, T>) => boolean, timeoutMs = 20_000): Promise<Map<string, T>> {
  return watchUntil(client, kind, namespace, check, undefined, timeoutMs);
}

async function namespace(name: string): Promise<string> {
  await client.create(Namespace, { metadata: { name } });
  return name;
}

function pod(name: string, ns: string, annotations: Record<string, string> = {}, nodeName?: string): PodObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, annotations },
    spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'app', image: 'nginx:1.27' }] },
  } as PodObject;
}

function deployment(name: string, ns: string, replicas: number): DeploymentObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: ns },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } } },
  } as DeploymentObject;
}

const ready = (p: PodObject): boolean => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
const app = (p: PodObject | undefined) => p?.status?.containerStatuses?.[0];

async function eventsOf(ns: string, check: (lines: string[]) => boolean): Promise<string[]> {
  const found = await until(CoreEvent, ns, (events) => check([...events.values()].map((e) => `${e.type} ${e.reason} ${e.message}`)));
  return [...found.values()].map((e) => `${e.type} ${e.reason} ${e.message}`);
}

describe('kubelet test knobs', () => {
  it('crash-loop: restarts, CrashLoopBackOff with the back-off in its message, kube\'s BackOff event', async () => {
    const ns = await namespace('crash');
    // Watching before the create: the first back-off is 100 ms of wall time on this clock, so a look
    // that starts after the create may meet the second crash already.
    const firstBackOff = await watchUntilAfterList(client, Pod, ns, (ps) => app(ps.get('crasher'))?.state?.waiting?.reason === 'CrashLoopBackOff', undefined, 20_000);
    const created = await client.create(Pod, pod('crasher', ns, { [crashLoopAnnotation]: 'true' }));
    const pods = await firstBackOff.done;
    const cs = app(pods.get('crasher'))!;
    assert.equal(cs.restartCount, 1);
    assert.equal(cs.lastState?.terminated?.exitCode, 1);
    assert.equal(cs.lastState?.terminated?.reason, 'Error');
    assert.equal(cs.state?.waiting?.message, `back-off 10s restarting failed container=app pod=crasher_${ns}(${created.metadata.uid})`);
    assert.equal(pods.get('crasher')!.status?.phase, 'Running');
    assert.equal(ready(pods.get('crasher')!), false);
    await eventsOf(ns, (lines) => lines.includes(`Warning BackOff Back-off restarting failed container app in pod crasher_${ns}(${created.metadata.uid})`));
    // Each back-off ends (10 s, 20 s ... of cluster time), it runs and crashes again, and the next back-off doubles up to 5 min.
    const later = await until(Pod, ns, (ps) => (app(ps.get('crasher'))?.restartCount ?? 0) >= 3 && app(ps.get('crasher'))?.state?.waiting?.reason === 'CrashLoopBackOff');
    const restarts = app(later.get('crasher'))!.restartCount!;
    const seconds = Math.min(300, 10 * 2 ** (restarts - 1));
    const go = seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m${seconds % 60}s`;
    assert.match(app(later.get('crasher'))!.state!.waiting!.message!, new RegExp(`^back-off ${go} restarting failed container=app `));
  });

  it('image-pull-failure on a node: ErrImagePull, ImagePullBackOff and kube\'s events; the pod starts once the knob goes', async (t) => {
    const ns = await namespace('pulls');
    await client.patch(Node, 'node-3', { metadata: { annotations: { [imagePullFailureAnnotation]: 'true' } } });
    t.after(() => client.patch(Node, 'node-3', { metadata: { annotations: { [imagePullFailureAnnotation]: null } } }));
    const seen = new Set<string>();
    // Watching before the create, so that the short-lived ErrImagePull state is seen however late this test looks.
    const backOff = await watchUntilAfterList(
      client,
      Pod,
      ns,
      (ps) => app(ps.get('puller'))?.state?.waiting?.reason === 'ImagePullBackOff',
      (_t, p) => {
        const reason = app(p)?.state?.waiting?.reason;
        if (reason) seen.add(reason);
      },
      20_000,
    );
    await client.create(Pod, pod('puller', ns, {}, 'node-3'));
    await backOff.done;
    assert.ok(seen.has('ErrImagePull'), [...seen].join(', '));
    const lines = await eventsOf(ns, (l) => l.includes('Warning Failed Error: ImagePullBackOff'));
    assert.ok(lines.includes('Normal Pulling Pulling image "nginx:1.27"'), lines.join('\n'));
    assert.ok(lines.some((l) => l.startsWith('Warning Failed Failed to pull image "nginx:1.27": rpc error: code = NotFound')), lines.join('\n'));
    assert.ok(lines.includes('Warning Failed Error: ErrImagePull'), lines.join('\n'));
    assert.ok(lines.includes('Normal BackOff Back-off pulling image "nginx:1.27"'), lines.join('\n'));
    assert.ok(lines.includes('Warning Failed Error: ImagePullBackOff'), lines.join('\n'));
    await client.patch(Node, 'node-3', { metadata: { annotations: { [imagePullFailureAnnotation]: null } } });
    await until(Pod, ns, (ps) => ready(ps.get('puller')!));
  });
});

describe('node lifecycle', () => {
  it('a node whose kubelet stops goes Unknown and tainted, its pods not Ready, then evicted after their 300 s tolerations and replaced elsewhere; it comes back Ready', async () => {
    const ns = await namespace('lifecycle');
    await client.create(Deployment, deployment('web', ns, 6));
    const running = await until(Pod, ns, (ps) => ps.size === 6 && [...ps.values()].every(ready));
    const onNode1 = [...running.values()].filter((p) => p.spec?.nodeName === 'node-1').map((p) => p.metadata.name!);
    assert.ok(onNode1.length > 0, 'the scheduler spread the pods');
    // DefaultTolerationSeconds admission gave every pod 300 s on an unreachable node.
    assert.ok(running.values().next().value!.spec?.tolerations?.some((t) => t.key === 'node.kubernetes.io/unreachable' && t.tolerationSeconds === 300), 'the default tolerations');

    await client.patch(Node, 'node-1', { metadata: { annotations: { [heartbeatsPausedAnnotation]: 'true' } } });
    const nodes = await until(Node, undefined, (ns_) => ns_.get('node-1')?.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'Unknown');
    const node = nodes.get('node-1') as NodeObject;
    for (const type of ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure']) {
      const c = node.status?.conditions?.find((x) => x.type === type);
      assert.deepEqual([c?.status, c?.reason, c?.message], ['Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.'], type);
    }
    const tainted = await until(Node, undefined, (ns_) => (ns_.get('node-1')?.spec?.taints ?? []).length === 2);
    assert.deepEqual(
      tainted.get('node-1')!.spec!.taints!.map((t) => [t.key, t.effect, Boolean(t.timeAdded)]),
      [
        ['node.kubernetes.io/unreachable', 'NoSchedule', false],
        ['node.kubernetes.io/unreachable', 'NoExecute', true],
      ],
    );
    await until(Pod, ns, (ps) => onNode1.every((n) => ps.get(n) && !ready(ps.get(n)!)));
    // kube's MarkPodsNotReady tells each pod why.
    await until(CoreEvent, ns, (events) =>
      onNode1.every((n) => [...events.values()].some((e) => e.involvedObject?.name === n && e.type === 'Warning' && e.reason === 'NodeNotReady' && e.message === 'Node is not ready')),
    );

    // 300 s later (3 s here) the taint eviction controller deletes them; the ReplicaSet replaces them on the other nodes.
    const replaced = await until(Pod, ns, (ps) => {
      const live = [...ps.values()].filter((p) => !p.metadata.deletionTimestamp);
      return onNode1.every((n) => ps.get(n)?.metadata.deletionTimestamp) && live.length === 6 && live.every((p) => p.spec?.nodeName !== 'node-1' && ready(p));
    });
    const evicted = replaced.get(onNode1[0]!)!;
    assert.equal(evicted.status?.conditions?.find((c) => c.type === 'DisruptionTarget')?.reason, 'DeletionByTaintManager');
    await eventsOf(ns, (lines) => lines.includes(`Normal TaintManagerEviction Marking for deletion Pod ${ns}/${onNode1[0]}`));

    // The kubelet comes back: the node is Ready, untainted, and finishes deleting the evicted pods.
    await client.patch(Node, 'node-1', { metadata: { annotations: { [heartbeatsPausedAnnotation]: null } } });
    await until(Node, undefined, (ns_) => {
      const n = ns_.get('node-1');
      return n?.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True' && (n.spec?.taints ?? []).length === 0;
    });
    await until(Pod, ns, (ps) => ps.size === 6 && onNode1.every((n) => !ps.has(n)));
  });

  it('pod GC: the pods of a deleted node are deleted after the quarantine', async () => {
    const ns = await namespace('podgc');
    // A pod bound to a node no simulated kubelet runs, as if its node had gone.
    await client.create(Node, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'gone' } } as NodeObject);
    await client.create(Pod, pod('orphan', ns, {}, 'gone'));
    await client.delete(Node, 'gone');
    await until(Pod, ns, (ps) => !ps.has('orphan'));
  });
});

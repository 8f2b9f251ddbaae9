/**
 * The cluster faults that act through the simulated kubelet's knobs, on a
 * cluster whose clock runs a hundred times faster than the wall (40 s of
 * grace are 0.4 s, 300 s of tolerations 3 s): `crash-container` puts a pod
 * in CrashLoopBackOff for its window, `node-not-ready` stops a node's kubelet
 * so the node goes NotReady, `image-pull-failure` fails the pulls on a node;
 * each takes its knob back when its window closes. A seeded schedule of them
 * starts each fault at its offset, the same for the same seed, and
 * examples/sample-controller converges under it: every Foo has its
 * Deployment, whose pods are all available again, and `availableReplicas`
 * in the Foo's status follows it.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { acceleratedClock } from '@operant/controllers';
import { crashLoopAnnotation, heartbeatsPausedAnnotation, imagePullFailureAnnotation } from '@operant/controllers/knobs';
import { ApiError, Deployment, Lease, Node, Pod, createLogger, type Typed } from '@operant/runtime';
import type * as appsv1 from 'kubernetes-types/apps/v1.js';
import { FooKind, type Foo } from '@operant/sample-controller/src/foo.js';
import { chaos, eventually, TestEnv, type ChaosReport } from '../src/index.js';
import { problems, runSampleController } from './testdata/sample-controller.js';

const sampleController = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'examples', 'sample-controller');
const env = await TestEnv.start({ crds: join(sampleController, 'artifacts', 'examples', 'crd.yaml'), cluster: { nodes: 3, clock: acceleratedClock(100) } });
after(() => env.stop());

function deployment(namespace: string, replicas: number): Typed<appsv1.Deployment> {
  const labels = { app: 'web' };
  return {
    metadata: { name: 'web', namespace },
    spec: { replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
  };
}

const ready = (p: { status?: { conditions?: { type: string; status: string }[] } }): boolean => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** The hit of a fault, once it is in the timeline. */
function hitOf(proxy: { records: readonly { type: string; faultId: number; request?: string; detail?: string }[] }, id: number) {
  return eventually(() => {
    const found = proxy.records.find((r) => r.type === 'hit' && r.faultId === id);
    assert.ok(found, 'the fault struck');
    return found;
  });
}

async function available(namespace: string, replicas: number): Promise<void> {
  await env.converges(
    async () => {
      const d = await env.client.get(Deployment, 'web', { namespace });
      assert.equal(d.status?.availableReplicas, replicas);
    },
    { namespace, within: 20_000, quiet: 200 },
  );
}

describe('cluster faults through the simulated kubelet', () => {
  test('crash-container: the pod crash-loops for the window, and runs again once the knob is taken back', async (t) => {
    const ns = await env.namespace(t);
    await env.client.create(Deployment, deployment(ns.name, 2));
    await available(ns.name, 2);
    const proxy = await env.faultProxy(t);
    const fault = proxy.inject({ kind: 'crash-container', namespaces: [ns.name], labelSelector: 'app=web' });
    const hit = await hitOf(proxy, fault.id);
    const victim = /^patch pods [^/]+\/(.+)$/.exec(hit.request ?? '')?.[1];
    assert.ok(victim, hit.request);
    assert.equal(hit.detail, "crashed the pod's containers");
    await eventually(async () => {
      const p = await env.client.get(Pod, victim, { namespace: ns.name });
      assert.equal(p.metadata.annotations?.[crashLoopAnnotation], 'true');
      assert.ok((p.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1, 'it restarted');
      assert.equal(p.status?.containerStatuses?.[0]?.state?.waiting?.reason, 'CrashLoopBackOff');
    }, { timeout: 10_000 });
    fault.remove();
    await eventually(async () => {
      const p = await env.client.get(Pod, victim, { namespace: ns.name });
      assert.equal(p.metadata.annotations?.[crashLoopAnnotation], undefined, 'the knob is taken back');
      assert.ok(ready(p), 'it runs again after its back-off');
    }, { timeout: 15_000 });
  });

  test('node-not-ready: the node goes NotReady while its kubelet is stopped, and Ready again after', async (t) => {
    const proxy = await env.faultProxy(t);
    const fault = proxy.inject({ kind: 'node-not-ready' });
    const hit = await hitOf(proxy, fault.id);
    const node = /^patch nodes (.+)$/.exec(hit.request ?? '')?.[1];
    assert.ok(node && env.cluster!.nodes.includes(node), hit.request);
    await eventually(async () => {
      const n = await env.client.get(Node, node);
      assert.equal(n.metadata.annotations?.[heartbeatsPausedAnnotation], 'true');
      const c = n.status?.conditions?.find((x) => x.type === 'Ready');
      assert.deepEqual([c?.status, c?.reason], ['Unknown', 'NodeStatusUnknown']);
    }, { timeout: 10_000 });
    fault.remove();
    await eventually(async () => {
      const n = await env.client.get(Node, node);
      assert.equal(n.status?.conditions?.find((x) => x.type === 'Ready')?.status, 'True');
      assert.deepEqual(n.spec?.taints ?? [], []);
    }, { timeout: 10_000 });
  });

  test('image-pull-failure: pods started on the node cannot pull their image until the window closes', async (t) => {
    const ns = await env.namespace(t);
    const proxy = await env.faultProxy(t);
    const fault = proxy.inject({ kind: 'image-pull-failure' });
    const node = /^patch nodes (.+)$/.exec((await hitOf(proxy, fault.id)).request ?? '')?.[1];
    assert.ok(node, 'a node was struck');
    await eventually(async () => assert.equal((await env.client.get(Node, node)).metadata.annotations?.[imagePullFailureAnnotation], 'true'));
    await env.client.create(Pod, { metadata: { name: 'pinned', namespace: ns.name }, spec: { nodeName: node, containers: [{ name: 'app', image: 'nginx:1.27' }] } });
    await eventually(async () => {
      const reason = (await env.client.get(Pod, 'pinned', { namespace: ns.name })).status?.containerStatuses?.[0]?.state?.waiting?.reason;
      assert.ok(reason === 'ErrImagePull' || reason === 'ImagePullBackOff', String(reason));
    }, { timeout: 10_000 });
    fault.remove();
    // (Every assert here has a message: without one, node's assert parses the test's source on each failed try, which is slow enough to stall the test.)
    await eventually(async () => assert.ok(ready(await env.client.get(Pod, 'pinned', { namespace: ns.name })), 'the pod runs'), { timeout: 15_000 });
  });

  test('a seeded schedule of cluster faults: each starts at its offset, the same for the same seed; the sample-controller converges, availableReplicas following its Deployments', async (t) => {
    const ns = await env.namespace(t, { prefix: 'foos' });
    const proxy = await env.faultProxy(t);
    const stop = new AbortController();
    const stopped = await runSampleController(proxy, stop.signal, createLogger({ level: process.env.OPERANT_LOG_LEVEL ?? 'silent' }));
    t.after(async () => {
      stop.abort();
      await stopped();
    });
    const foo = (i: number, replicas: number): Foo => ({ metadata: { name: `foo-${i}`, namespace: ns.name }, spec: { deploymentName: `foo-${i}-web`, replicas } });
    for (let i = 0; i < 4; i++) await env.client.create(FooKind, foo(i, 2 + (i % 2)));
    const options = { seed: 7070, duration: 8000, meanGapMs: 900, faults: ['crash-container', 'node-not-ready', 'image-pull-failure', 'delete-pod'] as const, scope: { namespaces: [ns.name] } };
    const schedule = chaos({ ...options, faults: [...options.faults] });
    assert.deepEqual(chaos({ ...options, faults: [...options.faults] }).entries, schedule.entries, 'the same seed gives the same schedule');
    const kinds = new Set(schedule.entries.map((e) => e.fault.kind));
    assert.ok(kinds.size >= 3, schedule.describe());
    const report: ChaosReport = await proxy.play(schedule, { log: (line) => t.diagnostic(line) });
    for (const line of `${schedule.describe()}\n${report.summary()}`.split('\n')) t.diagnostic(line);
    const starts = report.records.filter((r) => r.type === 'start');
    assert.deepEqual(starts.map((r) => r.fault), schedule.entries.map((e) => e.fault));
    // Never before its offset, and in the schedule's order; how late a timer fires is the machine's load, not the schedule's.
    starts.forEach((r, i) => assert.ok(r.at >= schedule.entries[i]!.at - 5, `fault ${i} planned at ${schedule.entries[i]!.at} ms, started at ${r.at} ms`));
    for (let i = 1; i < starts.length; i++) assert.ok(starts[i]!.at >= starts[i - 1]!.at, `fault ${i} started at ${starts[i]!.at} ms, before fault ${i - 1} (${starts[i - 1]!.at} ms)`);
    assert.ok(report.records.some((r) => r.type === 'hit' && r.fault.kind !== 'delete-pod'), report.timeline());

    // Once the faults are over, every knob is gone and every Foo converges on Deployments whose pods all run again.
    await env.converges(
      async () => {
        const found = await problems(env.client, ns.name, { namedAsAsked: true });
        assert.deepEqual(found, [], found.join('\n'));
        const foos = (await env.client.list(FooKind, { namespace: ns.name })).items;
        for (const f of foos) assert.equal(f.status?.availableReplicas, f.spec?.replicas, `${f.metadata.name} available`);
        const nodes = (await env.client.list(Node)).items;
        assert.ok(nodes.every((n) => !n.metadata.annotations?.[heartbeatsPausedAnnotation] && !n.metadata.annotations?.[imagePullFailureAnnotation]), 'the knobs were taken back');
      },
      { namespace: ns.name, within: 45_000, quiet: 1000 },
    );
  });
});

describe('a knob is taken back even when the server is down as its window closes', () => {
  test('crash-container ends while restart-server has the server down: the knob goes once the server is back', async (t) => {
    const durable = await TestEnv.start({ durable: true, cluster: { nodes: 1, clock: acceleratedClock(100) } });
    t.after(() => durable.stop());
    const ns = await durable.namespace(t);
    await durable.client.create(Deployment, deployment(ns.name, 1));
    await durable.converges(async () => assert.equal((await durable.client.get(Deployment, 'web', { namespace: ns.name })).status?.availableReplicas, 1), { namespace: ns.name, within: 20_000, quiet: 200 });
    const proxy = await durable.faultProxy(t);
    const crash = proxy.inject({ kind: 'crash-container', namespaces: [ns.name] });
    const victim = /^patch pods [^/]+\/(.+)$/.exec((await hitOf(proxy, crash.id)).request ?? '')?.[1];
    assert.ok(victim);
    const outage = proxy.inject({ kind: 'restart-server' });
    // The server is down once a request to it cannot connect.
    await eventually(() => durable.client.get(Pod, victim, { namespace: ns.name }).then(() => false, (err: unknown) => !(err instanceof ApiError)), { message: 'the server is down', timeout: 10_000 });
    crash.remove();
    await new Promise((resolve) => setTimeout(resolve, 300));
    outage.remove();
    await proxy.settled();
    assert.deepEqual(proxy.records.filter((r) => r.type === 'miss').map((r) => r.detail), []);
    assert.equal((await durable.client.get(Pod, victim, { namespace: ns.name })).metadata.annotations?.[crashLoopAnnotation], undefined, 'the knob is taken back');
  });
});

describe('the simulated kubelets outlast an API server outage', () => {
  test('after 16 s down (400 s of cluster time), every kubelet renews its Lease within the 40 s grace period of the server coming back (more only as far as this process was measurably stalled), and no node goes NotReady', async (t) => {
    // 25x, not the 100x of the other tests: the 40 s grace period is then 1.6 s of wall time, which a loaded machine's
    // restart of the server (and the relists of every informer after it) does not use up; at 100x it was 0.4 s, and
    // loaded runs took 0.7-0.9 s to renew with a fix that renews at once. The outage is as long in cluster time.
    const factor = 25;
    const clock = acceleratedClock(factor);
    const durable = await TestEnv.start({ durable: true, cluster: { nodes: 3, clock } });
    t.after(() => durable.stop());
    const nodeLeases = { namespace: 'kube-node-lease' };
    await eventually(async () => assert.equal((await durable.client.list(Lease, nodeLeases)).items.length, 3), { message: 'the nodes hold their Leases', timeout: 20_000 });
    const before = await durable.client.list(Lease, nodeLeases);
    // How late this process's event loop ran from the server's return to the last first renewal: the kubelets, their
    // timers and the server all run on it, so a stall of it delays a renewal by as much, times the clock's factor.
    const stalls = monitorEventLoopDelay({ resolution: 5 });
    await durable.restartServer({ downMs: 400_000 / factor });
    const back = clock.now();
    stalls.enable();
    // The renewals since, in order, from the server's history: each kubelet's first one after the server came back.
    const firstRenewal = new Map<string, number>();
    const deadline = performance.now() + 20_000;
    const watching = new AbortController();
    const giveUp = setTimeout(() => watching.abort(), 20_000);
    try {
      while (firstRenewal.size < 3 && performance.now() < deadline) {
        try {
          for await (const { type, object } of durable.client.watch(Lease, { ...nodeLeases, resourceVersion: before.metadata.resourceVersion, signal: watching.signal })) {
            const renewed = Date.parse(object.spec?.renewTime ?? '');
            if (type === 'MODIFIED' && renewed > back && !firstRenewal.has(object.metadata.name!)) firstRenewal.set(object.metadata.name!, renewed);
            if (firstRenewal.size === 3) break;
          }
        } catch (err) {
          // The client may not reach the restarted server at once: watch again from the same revision.
          if (watching.signal.aborted) throw err;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    } finally {
      clearTimeout(giveUp);
      watching.abort();
      stalls.disable();
    }
    // The kubelet's lease controller retries a failed renewal at most 7 s apart (cluster time); a backoff that grew through
    // the outage (5 ms doubling per failure: some 300 s by its end) kept the nodes silent that long again after it
    // (+123 to +176 s). The bound is the 40 s grace period, unless this process stalled: a renewal is a timer, the Node's
    // GET and the Lease's update, each of which waits out a stall of the loop, so then it is the 7 s cap plus three of
    // the longest stall, in cluster time (a 100 ms stall is 2.5 s of it). Idle, the longest stall is some 10-30 ms.
    const longestStallMs = stalls.max / 1e6;
    const bound = Math.max(40_000, 7_000 + 3 * longestStallMs * factor);
    const late = [...firstRenewal].map(([name, at]) => `${name} +${((at - back) / 1000).toFixed(1)} s`);
    t.diagnostic(`first renewals after the server came back (cluster time): ${late.join(', ')}; longest stall of the loop ${longestStallMs.toFixed(0)} ms, bound +${(bound / 1000).toFixed(1)} s`);
    assert.equal(firstRenewal.size, 3, `renewed: ${late.join(', ')}`);
    assert.ok([...firstRenewal.values()].every((at) => at - back < bound), `each kubelet renews within +${(bound / 1000).toFixed(1)} s (longest stall ${longestStallMs.toFixed(0)} ms): ${late.join(', ')}`);
    const notReady = (await durable.client.list(Node)).items.filter((n) => n.status?.conditions?.find((c) => c.type === 'Ready')?.status !== 'True');
    assert.deepEqual(notReady.map((n) => n.metadata.name), [], 'every node is Ready');
  });
});

/**
 * The rolling in-place upgrade under a seeded chaos schedule: the operator
 * (as its ServiceAccount) talks to the API server through @operant/testing's
 * fault proxy, which adds latency, answers 5xx and 429, resets connections,
 * cuts watches mid-event, expires resumes and drops bookmarks, while a new
 * sidecar image rolls through a 10-pod Deployment on 3 simulated nodes.
 * Once the schedule has played, the counts converge to exactly
 * MATCHED 10 / UPDATED 10 / READY 10, every pod runs the newest image, in
 * place, with one sidecar.
 *
 * Replay a run with CHAOS_SEED=<seed> (the seed is printed as a diagnostic).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startSimulatedCluster, type SimulatedCluster } from '@operant/controllers';
import { Deployment, Namespace, Pod, type Manager } from '@operant/runtime';
import { chaos, FaultProxy } from '@operant/testing';
import { SidecarSet } from '../src/api/v1alpha1/zz_generated.kinds.js';
import { startTestEnv, type TestEnv } from './support.js';

const seed = Number(process.env.CHAOS_SEED ?? 20261202);
const namespace = 'chaos';

describe('the in-place upgrade under a seeded chaos schedule', () => {
  let env: TestEnv;
  let cluster: SimulatedCluster;
  let proxy: FaultProxy;
  let manager: { mgr: Manager; stop(): Promise<void> };
  before(async () => {
    env = await startTestEnv();
    cluster = await startSimulatedCluster({ kubeconfig: env.adminConfig, nodes: 3, timing: { restartSeconds: 0.5 } });
    proxy = await FaultProxy.start({ upstream: env.adminConfig });
    // The operator's identity goes through the proxy with its requests.
    const throughProxy = { ...(await proxy.clientConfig()), impersonate: env.operatorConfig.impersonate };
    manager = await env.startOperator({ kubeconfig: throughProxy });
    await env.client.create(Namespace, { metadata: { name: namespace } });
  });
  after(async () => {
    await manager?.stop();
    await proxy?.stop();
    await cluster?.stop();
    await env?.stop();
  });

  it('converges to exact counts, every pod on the newest image in place', { timeout: 120_000 }, async (t) => {
    t.diagnostic(`seed ${seed} (CHAOS_SEED=${seed} replays it)`);
    await env.client.create(SidecarSet, {
      metadata: { name: 'mesh' },
      spec: { selector: { matchLabels: { app: 'shop' } }, namespace, containers: [{ name: 'proxy', image: 'envoyproxy/envoy:v1.30.0' }], updateStrategy: { maxUnavailable: 2 } },
    });
    await env.client.create(Deployment, {
      metadata: { name: 'shop', namespace },
      spec: { replicas: 10, selector: { matchLabels: { app: 'shop' } }, template: { metadata: { labels: { app: 'shop' } }, spec: { containers: [{ name: 'shop', image: 'nginx:1.27' }] } } },
    });
    await env.waitFor(SidecarSet, 'mesh', (s) => s.status?.updatedReadyPods === 10, { timeoutMs: 30_000 });
    const uids = (await env.client.list(Pod, { namespace })).items.map((p) => p.metadata.uid).sort();

    const setImage = (image: string) => env.client.patch(SidecarSet, 'mesh', [{ op: 'replace', path: '/spec/containers/0/image', value: image }], { patchType: 'json' });
    // Two image changes while faults are in force: the second lands in the middle of the first's roll.
    const play = proxy.play(chaos({ seed, duration: 6_000, meanGapMs: 300 }), { log: (line) => t.diagnostic(line) });
    await setImage('envoyproxy/envoy:v1.31.0');
    await env.waitFor(SidecarSet, 'mesh', (s) => (s.status?.updatedPods ?? 0) >= 4, { timeoutMs: 30_000 });
    await setImage('envoyproxy/envoy:v1.32.0');
    const report = await play;
    for (const line of report.summary().split('\n')) t.diagnostic(line);
    assert.ok(report.records.some((r) => r.type === 'hit'), 'the faults hit the operator\'s requests');

    const set = await env.waitFor(SidecarSet, 'mesh', (s) => s.status?.observedGeneration === 3 && s.status.updatedReadyPods === 10, { timeoutMs: 60_000 });
    assert.deepEqual([set.status!.matchedPods, set.status!.updatedPods, set.status!.readyPods, set.status!.updatedReadyPods], [10, 10, 10, 10]);
    const pods = (await env.client.list(Pod, { namespace })).items;
    assert.deepEqual(pods.map((p) => p.metadata.uid).sort(), uids, 'the same pods: upgraded in place');
    for (const pod of pods) {
      assert.deepEqual(pod.spec!.containers.map((c) => c.name), ['proxy', 'shop'], `${pod.metadata.name}: one sidecar`);
      const status = pod.status!.containerStatuses!.find((c) => c.name === 'proxy')!;
      assert.equal(pod.spec!.containers[0]!.image, 'envoyproxy/envoy:v1.32.0');
      assert.equal(status.image, 'docker.io/envoyproxy/envoy:v1.32.0');
    }
  });
});

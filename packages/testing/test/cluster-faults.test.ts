/**
 * Cluster faults with the simulated cluster: `TestEnv.start({ cluster })`
 * runs Deployments to ready pods on simulated nodes; a `delete-pod` fault
 * deletes one of the pods in its scope, drawn by its seed, and the
 * ReplicaSet replaces it; a seeded schedule of them is the same for the same
 * seed, and the Deployment converges once it ends. The cluster reaches the
 * server on its private socket, the new one after a restart.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Deployment, Pod, type Typed } from '@operant/runtime';
import type * as appsv1 from 'kubernetes-types/apps/v1.js';
import { chaos, clusterFaultKinds, eventually, faultKinds, TestEnv } from '../src/index.js';

const env = await TestEnv.start({ cluster: { nodes: 2 } });
after(() => env.stop());

function deployment(namespace: string, replicas: number): Typed<appsv1.Deployment> {
  const labels = { app: 'web' };
  return {
    metadata: { name: 'web', namespace },
    spec: { replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
  };
}

/** Resolves once `web` in `namespace` has `replicas` available pods and no others (none terminating), quiet for a moment. */
async function settled(namespace: string, replicas: number): Promise<string[]> {
  return env.converges(
    async () => {
      const d = await env.client.get(Deployment, 'web', { namespace });
      assert.equal(d.status?.availableReplicas, replicas, `available: ${d.status?.availableReplicas}`);
      const pods = (await env.client.list(Pod, { namespace, labelSelector: 'app=web' })).items;
      assert.deepEqual(
        pods.map((p) => [p.status?.phase, Boolean(p.metadata.deletionTimestamp)]),
        Array.from({ length: replicas }, () => ['Running', false]),
      );
      return pods.map((p) => p.metadata.name!).sort();
    },
    { namespace, within: 20_000, quiet: 300 },
  );
}

describe('cluster faults', () => {
  test('the environment runs a Deployment to ready pods on its simulated nodes', async (t) => {
    assert.deepEqual(env.cluster?.nodes, ['node-1', 'node-2']);
    const ns = await env.namespace(t);
    await env.client.create(Deployment, deployment(ns.name, 3));
    const pods = await settled(ns.name, 3);
    const placed = (await env.client.list(Pod, { namespace: ns.name })).items.map((p) => p.spec?.nodeName);
    assert.ok(placed.every((n) => n === 'node-1' || n === 'node-2'), placed.join(', '));
    assert.equal(pods.length, 3);
  });

  test('delete-pod deletes one pod in its scope, and the ReplicaSet replaces it', async (t) => {
    const ns = await env.namespace(t);
    const bystanders = await env.namespace(t);
    await env.client.create(Deployment, deployment(ns.name, 3));
    await env.client.create(Deployment, deployment(bystanders.name, 1));
    const before = await settled(ns.name, 3);
    const untouched = await settled(bystanders.name, 1);
    const proxy = await env.faultProxy(t);

    const fault = proxy.inject({ kind: 'delete-pod', namespaces: [ns.name], labelSelector: 'app=web' });
    // The hit is recorded once the delete has been answered.
    const hit = await eventually(() => {
      const found = proxy.records.find((r) => r.type === 'hit' && r.faultId === fault.id);
      assert.ok(found, 'the deletion is in the timeline');
      return found;
    });
    fault.remove();
    assert.equal(fault.hits, 1);
    const victim = /^delete pods [^/]+\/(.+)$/.exec(hit?.request ?? '')?.[1];
    assert.ok(victim && before.includes(victim), `the victim is one of the pods: ${hit?.request}`);
    assert.equal(hit?.detail, 'deleted the pod');

    const after = await settled(ns.name, 3);
    assert.equal(after.includes(victim), false, 'the deleted pod is gone');
    assert.deepEqual(after.filter((p) => before.includes(p)).length, 2, 'the other two pods were left alone');
    assert.deepEqual(await settled(bystanders.name, 1), untouched, 'pods outside the scope were left alone');
  });

  test('with nothing in scope, delete-pod deletes nothing', async (t) => {
    const ns = await env.namespace(t);
    const proxy = await env.faultProxy(t);
    using fault = proxy.inject({ kind: 'delete-pod', namespaces: [ns.name] });
    // The fault looks once, when it starts, and records that it found nothing.
    await eventually(() => assert.ok(proxy.records.some((r) => r.type === 'miss' && r.faultId === fault.id && r.detail === 'no pod to delete')));
    assert.equal(fault.hits, 0);
    await env.client.create(Deployment, deployment(ns.name, 1));
    await settled(ns.name, 1);
    assert.equal(fault.hits, 0, 'a pod made after the fault started is not deleted');
  });

  test('a seeded schedule of pod deletions: the same seed gives the same schedule; the Deployment converges afterwards', async (t) => {
    const ns = await env.namespace(t);
    await env.client.create(Deployment, deployment(ns.name, 2));
    await settled(ns.name, 2);
    const proxy = await env.faultProxy(t);
    const options = { seed: 424242, duration: 2500, faults: ['delete-pod' as const], scope: { namespaces: [ns.name] }, meanGapMs: 600 };
    const schedule = chaos(options);
    assert.deepEqual(chaos(options).entries, schedule.entries, 'the same seed gives the same schedule');
    assert.ok(schedule.entries.length >= 2, schedule.describe());
    assert.match(schedule.describe(), new RegExp(`delete a pod in ${ns.name}`));

    const report = await proxy.play(schedule, { log: (line) => t.diagnostic(line) });
    const deletions = report.records.filter((r) => r.type === 'hit' && r.fault.kind === 'delete-pod');
    assert.ok(deletions.length >= 1, report.timeline());
    assert.ok(deletions.every((r) => r.request?.startsWith(`delete pods ${ns.name}/web-`)), report.timeline());
    assert.match(report.summary(), /delete-pod\s+\d+ windows\s+\d+ hits/);
    await settled(ns.name, 2);
  });

  test('cluster faults are in a schedule only when asked', () => {
    const kinds = new Set(chaos({ seed: 1, duration: 60_000 }).entries.map((e) => e.fault.kind));
    assert.deepEqual([...kinds].filter((k) => (clusterFaultKinds as readonly string[]).includes(k)), []);
    assert.ok([...kinds].every((k) => (faultKinds as readonly string[]).includes(k)));
    const asked = chaos({ seed: 1, duration: 60_000, faults: [...faultKinds, ...clusterFaultKinds] });
    assert.ok(asked.entries.some((e) => e.fault.kind === 'delete-pod'));
  });
});

describe('the simulated cluster beside the server', () => {
  test('reaches the server on its private socket, while the kubeconfig and client the environment hands out stay HTTPS', () => {
    const clusterConfig = env.cluster!.manager.apiReader.config;
    assert.equal(typeof clusterConfig.socketPath, 'function');
    assert.equal((clusterConfig.socketPath as () => string)(), env.server.socketPath);
    assert.equal(clusterConfig.server, env.kubeconfig.config.server, 'the same server, named by the same URL');
    assert.equal(env.kubeconfig.config.socketPath, undefined);
    assert.equal(env.client.config.socketPath, undefined);
    assert.match(env.kubeconfig.config.server, /^https:\/\//);
  });

  test('after a durable environment\'s server restarts, it reaches the new one (on a new socket): a Deployment made afterwards gets its pods', async (t) => {
    const durable = await TestEnv.start({ durable: true, cluster: { nodes: 1 } });
    t.after(() => durable.stop());
    const ns = await durable.namespace(t);
    const before = durable.server.socketPath;
    await durable.restartServer();
    assert.notEqual(durable.server.socketPath, before, 'a new socket for the new server');
    await durable.client.create(Deployment, deployment(ns.name, 2));
    await durable.converges(
      async () => {
        const d = await durable.client.get(Deployment, 'web', { namespace: ns.name });
        assert.equal(d.status?.availableReplicas, 2, `available: ${d.status?.availableReplicas}`);
      },
      { namespace: ns.name, within: 30_000, quiet: 200 },
    );
  });
});

/**
 * The quota count monitor on the real clock, where the resourcequota
 * controller's periodic recount is five minutes away: the deletion of a
 * custom resource, or of an unwatched built-in, a quota counts by listing is
 * credited within seconds, so the room is there again at once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client, Lease, Namespace, type KubeObject } from '@operant/runtime';
import { ResourceQuota } from '../kinds.js';
import { installCustomResource } from '../testdata/custom-resource.js';
import { useTestCluster } from '../testdata/test-cluster.js';
import { watchUntil } from '../testdata/watch-until.js';

let client: Client;
const env = useTestCluster({ nodes: 0, controllers: ['resourcequota'] }, (started) => {
  client = started.client;
});

/** The resourcequota controller's reconciles so far, queue depth and busy workers, from the cluster manager's metrics. */
async function quotaControllerWork(): Promise<{ reconciles: number; busy: number }> {
  const text = await env.cluster.manager.metrics.text();
  const sum = (pattern: RegExp): number => [...text.matchAll(pattern)].reduce((n, m) => n + Number(m[1]), 0);
  return {
    reconciles: sum(/^controller_runtime_reconcile_total\{[^}]*controller="resourcequota"[^}]*\} (\d+)$/gm),
    busy: sum(/^workqueue_depth\{[^}]*name="resourcequota"[^}]*\} (\d+)$/gm) + sum(/^controller_runtime_active_workers\{[^}]*controller="resourcequota"[^}]*\} (\d+)$/gm),
  };
}

/** Resolves once the controller has nothing queued or running and has reconciled nothing more for `quietMs`. */
async function controllerIdle(quietMs = 300, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = await quotaControllerWork();
  let since = Date.now();
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = await quotaControllerWork();
    if (now.busy > 0 || now.reconciles !== last.reconciles) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) return;
  }
  throw new Error(`the resourcequota controller never went idle: ${JSON.stringify(last)}`);
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const used = (quotas: Map<string, KubeObject>): Json | undefined => (quotas.get('objects') as Json | undefined)?.status?.used;

describe('quota count monitor', () => {
  it('credits a deleted custom resource and Lease long before the five-minute recount', async () => {
    const ns = 'monitored';
    await client.create(Namespace, { metadata: { name: ns } });
    const Widget = await installCustomResource(client, { group: 'example.com', plural: 'widgets', kind: 'Widget' });
    const hard = { 'count/widgets.example.com': '1', 'count/leases.coordination.k8s.io': '1' };
    await client.create(ResourceQuota, { metadata: { name: 'objects', namespace: ns }, spec: { hard } } as never);
    await watchUntil(client, ResourceQuota, ns, (q) => used(q)?.['count/widgets.example.com'] === '0' && used(q)?.['count/leases.coordination.k8s.io'] === '0');

    await client.create(Widget, { metadata: { name: 'a', namespace: ns } } as never);
    await client.create(Lease, { metadata: { name: 'a', namespace: ns } } as never);
    await assert.rejects(client.create(Widget, { metadata: { name: 'b', namespace: ns } } as never), /exceeded quota: objects/);
    // The charges above re-queued the quota; what the deletions trigger must come after that work.
    await controllerIdle();
    const before = (await quotaControllerWork()).reconciles;
    await client.delete(Widget, 'a', { namespace: ns });
    await client.delete(Lease, 'a', { namespace: ns });
    // Without the monitor nothing recounts for five minutes and this wait times out.
    await watchUntil(client, ResourceQuota, ns, (q) => used(q)?.['count/widgets.example.com'] === '0' && used(q)?.['count/leases.coordination.k8s.io'] === '0', undefined, 20_000);
    await controllerIdle();
    assert.ok((await quotaControllerWork()).reconciles > before, 'the deletions re-queued the quota');
    await client.create(Widget, { metadata: { name: 'b', namespace: ns } } as never);
    await client.create(Lease, { metadata: { name: 'b', namespace: ns } } as never);
  });
});

/**
 * kube's priority-and-fairness bootstrap configuration over the wire: the
 * mandatory and suggested FlowSchemas and PriorityLevelConfigurations are
 * there at start, ensured again at each start as kube's ensurer does (spec put
 * back while `apf.kubernetes.io/autoupdate-spec` is "true", a deleted one made
 * again), and each FlowSchema's Dangling condition follows its priority level.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { TestApi, type Json, type WatchStream } from './support/api-client.js';

const flowcontrol = '/apis/flowcontrol.apiserver.k8s.io/v1';
const merge = { 'Content-Type': 'application/merge-patch+json' };

const names = async (api: TestApi, resource: string): Promise<string[]> => (await api.ok('GET', `${flowcontrol}/${resource}`)).items.map((i: Json) => i.metadata.name);
const dangling = (fs: Json): Json | undefined => fs.status?.conditions?.find((c: Json) => c.type === 'Dangling');

async function awaitDangling(watch: WatchStream, name: string, status: string): Promise<Json> {
  const events = await watch.until((e) => e.object?.metadata?.name === name && dangling(e.object)?.status === status);
  return dangling(events[events.length - 1].object)!;
}

it('the bootstrap configuration is there at start, as kube declares it', async () => {
  const api = await TestApi.start();
  try {
    assert.deepEqual(await names(api, 'prioritylevelconfigurations'), ['catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low']);
    assert.deepEqual(await names(api, 'flowschemas'), [
      'catch-all', 'endpoint-controller', 'exempt', 'global-default', 'kube-controller-manager', 'kube-scheduler', 'kube-system-service-accounts',
      'probes', 'service-accounts', 'system-leader-election', 'system-node-high', 'system-nodes', 'workload-leader-election',
    ]);
    const system = await api.ok('GET', `${flowcontrol}/prioritylevelconfigurations/system`);
    assert.deepEqual(system.metadata.annotations, { 'apf.kubernetes.io/autoupdate-spec': 'true' });
    assert.deepEqual(system.spec, {
      type: 'Limited',
      limited: { nominalConcurrencyShares: 30, lendablePercent: 33, limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 6, queueLengthLimit: 50 } } },
    });
    const nodes = await api.ok('GET', `${flowcontrol}/flowschemas/system-nodes`);
    assert.deepEqual(nodes.spec.rules[0].subjects, [{ kind: 'Group', group: { name: 'system:nodes' } }]);
    assert.equal(nodes.spec.matchingPrecedence, 500);

    const watch = await api.watch(`${flowcontrol}/flowschemas?watch=true`);
    try {
      assert.deepEqual({ ...(await awaitDangling(watch, 'exempt', 'False')), lastTransitionTime: undefined }, {
        type: 'Dangling',
        status: 'False',
        reason: 'Found',
        message: 'This FlowSchema references the PriorityLevelConfiguration object named "exempt" and it exists',
        lastTransitionTime: undefined,
      });
      await api.ok('DELETE', `${flowcontrol}/prioritylevelconfigurations/workload-low`);
      const missing = await awaitDangling(watch, 'service-accounts', 'True');
      assert.equal(missing.reason, 'NotFound');
      assert.equal(missing.message, 'This FlowSchema references the PriorityLevelConfiguration object named "workload-low" but there is no such object');
    } finally {
      watch.close();
    }
  } finally {
    await api.stop();
  }
});

it('at each start the auto-updated objects get their spec back, a deleted one returns, an opted-out one is left alone', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'flowcontrol-'));
  try {
    let api = await TestApi.start({ dataDir });
    await api.ok('PATCH', `${flowcontrol}/flowschemas/global-default`, { spec: { matchingPrecedence: 9000 } }, 200, merge);
    await api.ok('PATCH', `${flowcontrol}/flowschemas/service-accounts`, { metadata: { annotations: { 'apf.kubernetes.io/autoupdate-spec': 'false' } }, spec: { matchingPrecedence: 8000 } }, 200, merge);
    await api.ok('DELETE', `${flowcontrol}/prioritylevelconfigurations/node-high`);
    await api.stop();

    api = await TestApi.start({ dataDir });
    try {
      assert.equal((await api.ok('GET', `${flowcontrol}/flowschemas/global-default`)).spec.matchingPrecedence, 9900);
      assert.equal((await api.ok('GET', `${flowcontrol}/flowschemas/service-accounts`)).spec.matchingPrecedence, 8000);
      assert.equal((await api.ok('GET', `${flowcontrol}/prioritylevelconfigurations/node-high`)).spec.limited.nominalConcurrencyShares, 40);
    } finally {
      await api.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

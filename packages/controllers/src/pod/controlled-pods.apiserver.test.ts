/**
 * A controller's pods from the controller-uid index of the manager's cache,
 * and live (by the owner's selector, then the owner reference) when the
 * client reads from the server, as the manager's does when its cache has not
 * shown its own writes in time: the server has no such field to select on.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApiServer, type RunningApiServer } from '@operant/apiserver';
import { Manager, Pod, ReplicaSet } from '@operant/runtime';
import type { PodObject, ReplicaSetObject } from '../objects.js';
import { indexPodsByController, podsControlledBy } from './controlled-pods.js';

let server: RunningApiServer;
let mgr: Manager;
const stopping = new AbortController();
let running: Promise<void>;

before(async () => {
  server = await startApiServer({ port: 0 });
  mgr = await Manager.create({ kubeconfig: { kubeconfigText: server.kubeconfig }, client: { readYourWrites: true, qps: Infinity } });
  indexPodsByController(mgr);
  indexPodsByController(mgr); // a second controller asking adds nothing
  running = mgr.start(stopping.signal);
  await mgr.elected();
});
after(async () => {
  stopping.abort();
  await running;
  await server?.stop();
});

const pod = (name: string, labels: Record<string, string>, owner?: ReplicaSetObject): PodObject => ({
  metadata: {
    name,
    namespace: 'default',
    labels,
    ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: owner.metadata.name!, uid: owner.metadata.uid!, controller: true }] } : {}),
  },
  spec: { containers: [{ name: 'app', image: 'nginx' }] },
});

describe('pods by controller', () => {
  it('are the pods the owner controls, whether the cache or the server answers', async () => {
    const rs = (await mgr.apiReader.create(ReplicaSet, {
      metadata: { name: 'web', namespace: 'default' },
      spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } } },
    })) as ReplicaSetObject;
    const other = (await mgr.apiReader.create(ReplicaSet, {
      metadata: { name: 'other', namespace: 'default' },
      spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } } },
    })) as ReplicaSetObject;
    for (const p of [pod('mine-1', { app: 'web' }, rs), pod('mine-2', { app: 'web' }, rs), pod('orphan', { app: 'web' }), pod('theirs', { app: 'web' }, other)]) await mgr.client.create(Pod, p);
    const names = async (client: typeof mgr.client) => (await podsControlledBy(client, rs, rs.spec?.selector)).map((p) => p.metadata.name).sort();
    // Live, as the manager's client reads when its cache lags: the server answers the selector, the owner reference decides.
    assert.deepEqual(await names(mgr.apiReader), ['mine-1', 'mine-2']);
    const informer = mgr.cache.informerOf(Pod, false);
    await new Promise<void>((resolve) => informer.addEventHandler({ add: () => informer.store.list().length === 4 && resolve() }));
    // From the cache's index.
    assert.deepEqual(await names(mgr.client), ['mine-1', 'mine-2']);
  });
});

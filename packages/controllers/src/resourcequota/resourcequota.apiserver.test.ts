/**
 * The resourcequota controller with the server's quota admission, over the
 * wire, on an accelerated clock: the status it writes (hard, and used
 * recounted from the namespace), a Deployment that meets the quota (its
 * ReplicaSet's FailedCreate carries kube's message) and the usage freed when
 * pods go, which makes room again.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client, ConfigMap, CoreEvent, Deployment, Namespace, Pod, Service, ServiceAccount, type Kind, type KubeObject } from '@operant/runtime';
import { acceleratedClock } from '../clock.js';
import { ResourceQuota } from '../kinds.js';
import { resourceQuotaSyncPeriodMs } from './controller.js';
import { installCustomResource } from '../testdata/custom-resource.js';
import { useTestCluster } from '../testdata/test-cluster.js';
import { watchUntil } from '../testdata/watch-until.js';

let client: Client;
useTestCluster({ nodes: 1, clock: acceleratedClock(100) }, (env) => {
  client = env.client;
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const until = <T extends KubeObject>(kind: Kind<T>, ns: string | undefined, check: (o: Map<string, T>) => boolean, timeoutMs?: number) => watchUntil(client, kind, ns, check, undefined, timeoutMs);
const usedOf = (o: Map<string, KubeObject>, name: string): Json | undefined => (o.get(name) as Json | undefined)?.status?.used;

describe('resourcequota controller', () => {
  it('writes status.hard and recounts status.used; a Deployment stops at the quota; pods that go make room again', async () => {
    const ns = 'team-a';
    await client.create(Namespace, { metadata: { name: ns } });
    await client.create(ConfigMap, { metadata: { name: 'settings', namespace: ns }, data: { a: '1' } } as never);
    // The root CA publisher gives the namespace kube-root-ca.crt, which counts as it does on a cluster.
    await until(ConfigMap, ns, (o) => o.has('kube-root-ca.crt'));
    const hard = { pods: '2', 'requests.cpu': '1', 'requests.memory': '1Gi', 'limits.cpu': '2', 'limits.memory': '2Gi', services: '1', configmaps: '5', 'count/deployments.apps': '1' };
    await client.create(ResourceQuota, { metadata: { name: 'compute', namespace: ns }, spec: { hard } } as never);
    const counted = await until(ResourceQuota, ns, (o) => usedOf(o, 'compute') !== undefined);
    const status = (counted.get('compute') as Json).status;
    assert.deepEqual(status.hard, hard);
    const configMaps = (await client.list(ConfigMap, { namespace: ns })).items.length;
    assert.equal(configMaps, 2);
    assert.deepEqual(status.used, {
      pods: '0',
      'requests.cpu': '0',
      'requests.memory': '0',
      'limits.cpu': '0',
      'limits.memory': '0',
      services: '0',
      configmaps: String(configMaps),
      'count/deployments.apps': '0',
    });

    await client.create(Deployment, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: ns },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { cpu: '500m', memory: '512Mi' } } }] },
        },
      },
    } as never);
    const refused = await until(CoreEvent, ns, (o) => [...o.values()].some((e) => e.reason === 'FailedCreate'));
    const failure = [...refused.values()].find((e) => e.reason === 'FailedCreate')!;
    assert.match(failure.message ?? '', /^Error creating: pods "web-[a-z0-9]+-[a-z0-9]{5}" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=2, limited: pods=2$/);
    const full = await until(ResourceQuota, ns, (o) => usedOf(o, 'compute')?.['count/deployments.apps'] === '1' && usedOf(o, 'compute')?.pods === '2');
    assert.deepEqual(usedOf(full, 'compute'), {
      pods: '2',
      'requests.cpu': '500m',
      'requests.memory': '512Mi',
      'limits.cpu': '1',
      'limits.memory': '1Gi',
      services: '0',
      configmaps: String(configMaps),
      'count/deployments.apps': '1',
    });
    assert.equal((await client.list(Pod, { namespace: ns })).items.length, 2);

    // Pods that go free their share (the controller recounts), and the room is there again.
    await client.patch(Deployment, 'web', { spec: { replicas: 1 } }, { namespace: ns, patchType: 'merge' });
    await until(ResourceQuota, ns, (o) => usedOf(o, 'compute')?.pods === '1', 20_000);
    await until(Pod, ns, (o) => o.size === 1);
    await client.patch(Deployment, 'web', { spec: { replicas: 2 } }, { namespace: ns, patchType: 'merge' });
    await until(Pod, ns, (o) => o.size === 2);

    await client.create(Service, { metadata: { name: 'one', namespace: ns }, spec: { ports: [{ port: 80 }] } } as never);
    await assert.rejects(client.create(Service, { metadata: { name: 'two', namespace: ns }, spec: { ports: [{ port: 80 }] } } as never), (err: Error) => {
      assert.equal(err.message, 'services "two" is forbidden: exceeded quota: compute, requested: services=1, used: services=1, limited: services=1');
      return true;
    });
  });

  it('count/ of a custom resource or an unwatched built-in: charged at admission, refused past the limit, credited by the controller once one is deleted', async () => {
    const ns = 'team-b';
    await client.create(Namespace, { metadata: { name: ns } });
    const Widget = await installCustomResource(client, { group: 'example.com', plural: 'widgets', kind: 'Widget' });
    await client.create(ResourceQuota, { metadata: { name: 'objects', namespace: ns }, spec: { hard: { 'count/widgets.example.com': '1', 'count/serviceaccounts': '5' } } } as never);
    // Service accounts are not watched either: listed at each sync (the namespace's default one, and this one).
    await until(ServiceAccount, ns, (o) => o.has('default'));
    await client.create(ServiceAccount, { metadata: { name: 'builder', namespace: ns } } as never);
    await until(ResourceQuota, ns, (o) => usedOf(o, 'objects')?.['count/widgets.example.com'] === '0' && usedOf(o, 'objects')?.['count/serviceaccounts'] === '2');
    await client.create(Widget, { metadata: { name: 'a', namespace: ns } } as never);
    assert.equal(usedOf(new Map([['objects', await client.get(ResourceQuota, 'objects', { namespace: ns })]]), 'objects')?.['count/widgets.example.com'], '1', 'charged at admission');
    await assert.rejects(client.create(Widget, { metadata: { name: 'b', namespace: ns } } as never), (err: Error) => {
      assert.equal(err.message, 'widgets.example.com "b" is forbidden: exceeded quota: objects, requested: count/widgets.example.com=1, used: count/widgets.example.com=1, limited: count/widgets.example.com=1');
      return true;
    });
    await client.delete(Widget, 'a', { namespace: ns });
    // The quota count monitor re-queues the quota (count-monitor.apiserver.test.ts proves it on the real clock).
    await until(ResourceQuota, ns, (o) => usedOf(o, 'objects')?.['count/widgets.example.com'] === '0', resourceQuotaSyncPeriodMs / 100 + 10_000);
    await client.create(Widget, { metadata: { name: 'b', namespace: ns } } as never);
  });
});

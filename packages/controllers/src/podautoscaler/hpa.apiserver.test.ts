/**
 * The horizontal pod autoscaler on a Deployment, against the embedded server
 * on a clock a hundred times faster than the wall's (a 15 s sync is 150 ms,
 * the 300 s scale-down stabilization 3 s). CPU usage is set by annotation on
 * the HPA, which every target pod then reports. Waits are watches, never sleeps.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client, CoreEvent, Deployment, Namespace, Pod, type Kind, type KubeObject } from '@operant/runtime';
import { acceleratedClock } from '../clock.js';
import { HorizontalPodAutoscaler } from '../kinds.js';
import { installCustomResource } from '../testdata/custom-resource.js';
import { useTestCluster } from '../testdata/test-cluster.js';
import { watchUntil } from '../testdata/watch-until.js';
import { cpuUsageAnnotation, customMetricAnnotationPrefix } from './metrics.js';
import { downscaleStabilizationMs } from './normalize.js';

let client: Client;
useTestCluster({ nodes: 2, clock: acceleratedClock(100) }, (env) => {
  client = env.client;
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const until = <T extends KubeObject>(kind: Kind<T>, ns: string | undefined, check: (o: Map<string, T>) => boolean, onEvent?: (type: string, obj: T) => void, timeoutMs = 20_000) =>
  watchUntil(client, kind, ns, check, onEvent, timeoutMs);
const condition = (hpa: Json | undefined, type: string): Json | undefined => hpa?.status?.conditions?.find((c: Json) => c.type === type);

/** minReadySeconds 20: an available pod has been ready longer than the 15 s metric window that keeps a fresh pod's CPU out of the count. */
function deployment(ns: string, replicas: number): Json {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: ns },
    spec: {
      replicas,
      minReadySeconds: 20,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '200m' } } }] } },
    },
  };
}

/** The SuccessfulRescale messages of `ns`, once there are at least `count`. */
async function rescalesOnceSeen(ns: string, count: number): Promise<string[]> {
  const rescales = (o: Map<string, KubeObject>): string[] => [...o.values()].filter((e) => (e as Json).reason === 'SuccessfulRescale').map((e) => (e as Json).message);
  return rescales(await until(CoreEvent, ns, (o) => rescales(o).length >= count));
}

const annotate = (ns: string, name: string, annotations: Record<string, string>) => client.patch(HorizontalPodAutoscaler, name, { metadata: { annotations } }, { namespace: ns, patchType: 'merge' });

describe('horizontal pod autoscaler', () => {
  it('without metrics: ScalingActive False with kube\'s message, and nothing scales', async () => {
    const ns = 'hpa-nometrics';
    await client.create(Namespace, { metadata: { name: ns } });
    await client.create(Deployment, deployment(ns, 1) as never);
    await client.create(HorizontalPodAutoscaler, {
      metadata: { name: 'web', namespace: ns },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 3 },
    } as never);
    const seen = await until(HorizontalPodAutoscaler, ns, (o) => condition(o.get('web'), 'ScalingActive')?.status === 'False');
    const active = condition(seen.get('web'), 'ScalingActive')!;
    assert.equal(active.reason, 'FailedGetResourceMetric');
    assert.equal(active.message, 'the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API');
    assert.equal(condition(seen.get('web'), 'AbleToScale')!.reason, 'SucceededGetScale');
    assert.deepEqual((seen.get('web') as Json).status.currentMetrics, [{ type: '' }]);
    const events = await until(CoreEvent, ns, (o) => [...o.values()].some((e) => e.reason === 'FailedComputeMetricsReplicas'));
    const failed = [...events.values()].find((e) => e.reason === 'FailedComputeMetricsReplicas')!;
    assert.equal(
      failed.message,
      'invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API',
    );
    assert.equal((await client.get(Deployment, 'web', { namespace: ns })).spec?.replicas, 1);
  });

  it('scales a Deployment up by kube\'s formula within the rate and max, and down only after the 300 s stabilization, to min', async () => {
    const ns = 'hpa-cpu';
    await client.create(Namespace, { metadata: { name: ns } });
    await client.create(Deployment, deployment(ns, 2) as never);
    await client.create(HorizontalPodAutoscaler, {
      metadata: { name: 'web', namespace: ns, annotations: { [cpuUsageAnnotation]: '100m' } },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        minReplicas: 2,
        maxReplicas: 5,
        metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }],
      },
    } as never);
    // 100m of 200m requested is 50%: on target, nothing to do.
    const steady = (await until(HorizontalPodAutoscaler, ns, (o) => condition(o.get('web'), 'ScalingActive')?.status === 'True')).get('web') as Json;
    assert.deepEqual(steady.status.currentMetrics, [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 50, averageValue: '100m' } } }]);
    assert.equal(steady.status.currentReplicas, 2);
    assert.equal(steady.status.desiredReplicas, 2);
    assert.equal(condition(steady, 'ScalingActive')!.message, 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)');
    assert.deepEqual([condition(steady, 'AbleToScale')!.reason, condition(steady, 'ScalingLimited')!.status, condition(steady, 'ScalingLimited')!.reason], ['ReadyForNewScale', 'False', 'DesiredWithinRange']);

    // 150%: ceil(3 x 2) = 6, first held to max(2 x 2, 4) = 4, then to maxReplicas 5 (the 2 new pods, unready, count as idle: ceil(1.5 x 4) = 6).
    await until(Deployment, ns, (o) => o.get('web')?.status?.availableReplicas === 2);
    await annotate(ns, 'web', { [cpuUsageAnnotation]: '300m' });
    const up = await until(
      HorizontalPodAutoscaler,
      ns,
      (o) => (o.get('web') as Json | undefined)?.status?.desiredReplicas === 5 && condition(o.get('web'), 'ScalingLimited')?.reason === 'TooManyReplicas',
    );
    const high = up.get('web') as Json;
    assert.equal(condition(high, 'ScalingLimited')!.status, 'True');
    assert.equal(condition(high, 'ScalingLimited')!.message, 'the desired replica count is more than the maximum replica count');
    assert.equal((await client.get(Deployment, 'web', { namespace: ns })).spec?.replicas, 5);
    assert.deepEqual(await rescalesOnceSeen(ns, 2), ['New size: 4; reason: cpu resource utilization (percentage of request) above target', 'New size: 5; reason: cpu resource utilization (percentage of request) above target']);
    const scaledUpAt = Date.parse(high.status.lastScaleTime);

    // 10%: the recommendation is 1, but the high recommendations of the last 300 s hold it; then minReplicas 2 bounds it.
    await annotate(ns, 'web', { [cpuUsageAnnotation]: '20m' });
    let stabilizedSeen = false;
    const down = await until(
      HorizontalPodAutoscaler,
      ns,
      (o) => (o.get('web') as Json | undefined)?.status?.desiredReplicas === 2,
      (_t, hpa) => {
        if (condition(hpa as Json, 'AbleToScale')?.reason === 'ScaleDownStabilized' && (hpa as Json).status.desiredReplicas === 5) stabilizedSeen = true;
      },
    );
    const low = down.get('web') as Json;
    assert.ok(stabilizedSeen, 'held at 5 by ScaleDownStabilized first');
    // lastScaleTime has second precision: the window is 300 s from the last high recommendation, made at the scale-up or later.
    assert.ok(Date.parse(low.status.lastScaleTime) - scaledUpAt >= downscaleStabilizationMs - 1000, `scaled down ${Date.parse(low.status.lastScaleTime) - scaledUpAt} ms after scaling up`);
    assert.deepEqual([condition(low, 'ScalingLimited')!.status, condition(low, 'ScalingLimited')!.reason], ['True', 'TooFewReplicas']);
    assert.equal((await client.get(Deployment, 'web', { namespace: ns })).spec?.replicas, 2);
  });

  it('ContainerResource: one container\'s usage against its own request; two HPAs over the same pods are ambiguous; a container the pods lack gives kube\'s error', async () => {
    const ns = 'hpa-container';
    await client.create(Namespace, { metadata: { name: ns } });
    const twoContainers = deployment(ns, 2);
    // The sidecar's large request would halve the utilization if the whole pod counted.
    twoContainers.spec.template.spec.containers.push({ name: 'sidecar', image: 'envoy', resources: { requests: { cpu: '800m' } } });
    await client.create(Deployment, twoContainers as never);
    const hpa = (name: string, container: string): Json => ({
      metadata: { name, namespace: ns, annotations: { [`${cpuUsageAnnotation}.app`]: '100m' } },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        minReplicas: 2,
        maxReplicas: 4,
        metrics: [{ type: 'ContainerResource', containerResource: { name: 'cpu', container, target: { type: 'Utilization', averageUtilization: 50 } } }],
      },
    });
    await client.create(HorizontalPodAutoscaler, hpa('web', 'app') as never);
    const steady = (await until(HorizontalPodAutoscaler, ns, (o) => condition(o.get('web'), 'ScalingActive')?.status === 'True')).get('web') as Json;
    assert.deepEqual(steady.status.currentMetrics, [{ type: 'ContainerResource', containerResource: { name: 'cpu', container: 'app', current: { averageUtilization: 50, averageValue: '100m' } } }]);
    assert.equal(condition(steady, 'ScalingActive')!.message, 'the HPA was able to successfully calculate a replica count from cpu container resource utilization (percentage of request)');

    // 200m of app's 200m is 100%: twice the target, 2 -> 4.
    await until(Deployment, ns, (o) => o.get('web')?.status?.availableReplicas === 2);
    await annotate(ns, 'web', { [`${cpuUsageAnnotation}.app`]: '200m' });
    await until(HorizontalPodAutoscaler, ns, (o) => (o.get('web') as Json | undefined)?.status?.desiredReplicas === 4);
    assert.deepEqual(await rescalesOnceSeen(ns, 1), ['New size: 4; reason: cpu container resource utilization (percentage of request) above target']);

    // Two HPAs over the same pods: neither scales, each says why.
    await client.create(HorizontalPodAutoscaler, hpa('other', 'nope') as never);
    const ambiguous = await until(HorizontalPodAutoscaler, ns, (o) => ['web', 'other'].every((n) => condition(o.get(n), 'ScalingActive')?.reason === 'AmbiguousSelector'));
    for (const n of ['web', 'other']) {
      assert.equal(condition(ambiguous.get(n), 'ScalingActive')!.message, 'pods by selector app=web are controlled by multiple HPAs: [hpa-container/other hpa-container/web]');
    }
    const events = (await client.list(CoreEvent, { namespace: ns })).items.filter((e) => e.reason === 'AmbiguousSelector');
    assert.ok(events.length >= 2, 'an AmbiguousSelector event for each HPA');

    // Once the first goes, the second reads its container, which the pods lack.
    await client.delete(HorizontalPodAutoscaler, 'web', { namespace: ns });
    const failed = await until(HorizontalPodAutoscaler, ns, (o) => condition(o.get('other'), 'ScalingActive')?.reason === 'FailedGetContainerResourceMetric');
    assert.match(
      condition(failed.get('other'), 'ScalingActive')!.message,
      /^the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: failed to get container metrics: container nope not present in metrics for pod hpa-container\/web-[a-z0-9]+-[a-z0-9]{5}$/,
    );
  });

  it("scales a custom resource through its scale subresource (the kind found by its CRD)", async () => {
    const ns = 'hpa-custom';
    await client.create(Namespace, { metadata: { name: ns } });
    const Worker = await installCustomResource(
      client,
      { group: 'example.com', plural: 'workers', kind: 'Worker' },
      { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
    );
    const worker = await client.create(Worker, { metadata: { name: 'queue', namespace: ns }, spec: { replicas: 1 } } as never);
    await client.updateStatus(Worker, { ...worker, status: { replicas: 1, selector: 'app=queue' } } as never);
    await client.create(Pod, { metadata: { name: 'queue-1', namespace: ns, labels: { app: 'queue' } }, spec: { containers: [{ name: 'w', image: 'busybox' }] } } as never);
    await client.create(HorizontalPodAutoscaler, {
      metadata: { name: 'queue', namespace: ns, annotations: { [customMetricAnnotationPrefix + 'jobs']: '30' } },
      spec: {
        scaleTargetRef: { apiVersion: 'example.com/v1', kind: 'Worker', name: 'queue' },
        maxReplicas: 5,
        metrics: [{ type: 'Pods', pods: { metric: { name: 'jobs' }, target: { type: 'AverageValue', averageValue: '10' } } }],
      },
    } as never);
    // 30 against 10 on the one pod the selector finds: ceil(3 x 1) = 3.
    const scaled = await until(Worker, ns, (o) => (o.get('queue') as Json | undefined)?.spec?.replicas === 3);
    assert.equal((scaled.get('queue') as Json).spec.replicas, 3);
    // The recorder posts its events on its own: wait for the event rather than list once.
    assert.deepEqual(await rescalesOnceSeen(ns, 1), ['New size: 3; reason: pods metric jobs above target']);
  });

  it('a pods metric with an AverageValue target; a behavior\'s Pods policy limits each step', async () => {
    const ns = 'hpa-pods';
    await client.create(Namespace, { metadata: { name: ns } });
    await client.create(Deployment, deployment(ns, 1) as never);
    const metric = 'requests-per-second';
    await client.create(HorizontalPodAutoscaler, {
      metadata: { name: 'web', namespace: ns, annotations: { [customMetricAnnotationPrefix + metric]: '45' } },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        maxReplicas: 10,
        metrics: [{ type: 'Pods', pods: { metric: { name: metric }, target: { type: 'AverageValue', averageValue: '10' } } }],
        behavior: { scaleUp: { policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } },
      },
    } as never);
    // 45 per pod against 10: ceil(4.5 x 1) = 5, but one pod per 60 s: 2, then 3 a period later.
    const scaledAt = new Map<number, number>();
    const done = await until(
      HorizontalPodAutoscaler,
      ns,
      (o) => (o.get('web') as Json | undefined)?.status?.desiredReplicas === 3,
      (_t, hpa) => {
        const st = (hpa as Json).status;
        if (st?.lastScaleTime && !scaledAt.has(st.desiredReplicas)) scaledAt.set(st.desiredReplicas, Date.parse(st.lastScaleTime));
      },
    );
    const hpa = done.get('web') as Json;
    assert.deepEqual([...scaledAt.keys()], [2, 3]);
    // About one 60 s period, not the next 15 s sync: lastScaleTime is cut to the second, and at 100x a loaded
    // machine's few ms between the controller's clock reading and its stamp are seconds of cluster time.
    assert.ok(scaledAt.get(3)! - scaledAt.get(2)! >= 50_000, `the second step came ${scaledAt.get(3)! - scaledAt.get(2)!} ms after the first`);
    assert.deepEqual(hpa.status.currentMetrics, [{ type: 'Pods', pods: { metric: { name: metric }, current: { averageValue: '45' } } }]);
    assert.deepEqual([condition(hpa, 'ScalingLimited')!.status, condition(hpa, 'ScalingLimited')!.reason], ['True', 'ScaleUpLimit']);
    assert.equal(condition(hpa, 'ScalingLimited')!.message, 'the desired replica count is increasing faster than the maximum scale rate');
  });
});

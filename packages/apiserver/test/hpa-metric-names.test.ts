/**
 * autoscaling/v2 validation of metric names and ContainerResource metrics,
 * in kube's words (pkg/apis/autoscaling/validation): a metric's name becomes
 * a path segment of the custom and external metrics APIs
 * (IsValidPathSegmentName), a ContainerResource metric names a resource a
 * container can request (ValidateContainerResourceName) and its container by
 * a DNS label.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { TestApi, type Json } from './support/api-client.js';

let api: TestApi;
const hpas = '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers';

before(async () => {
  api = await TestApi.start();
});
after(async () => {
  await api?.stop();
});

const hpa = (name: string, metrics: Json[]): Json => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name },
  spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 5, metrics },
});
const averageValue = { type: 'AverageValue', averageValue: '1' };

/** The causes of the 422 for these metrics, as [field, message]. */
async function causes(name: string, metrics: Json[]): Promise<[string, string][]> {
  const status = await api.ok('POST', hpas, hpa(name, metrics), 422);
  assert.equal(status.reason, 'Invalid');
  return (status.details.causes as Json[]).map((c) => [c.field, c.message]);
}

it('a metric name that cannot be a path segment is refused, for Pods, Object and External metrics', async () => {
  assert.deepEqual(await causes('slash', [{ type: 'Pods', pods: { metric: { name: 'requests/second' }, target: averageValue } }]), [
    ['spec.metrics[0].pods.metric.name', `Invalid value: "requests/second": may not contain '/'`],
  ]);
  const status = await api.ok('POST', hpas, hpa('dots', [{ type: 'External', external: { metric: { name: '..' }, target: averageValue } }]), 422);
  assert.equal(status.message, `HorizontalPodAutoscaler.autoscaling "dots" is invalid: spec.metrics[0].external.metric.name: Invalid value: "..": may not be '..'`);
  assert.deepEqual(
    await causes('percent', [{ type: 'Object', object: { describedObject: { apiVersion: 'v1', kind: 'Service', name: 'front' }, metric: { name: 'a%2Fb/c' }, target: { type: 'Value', value: '10' } } }]),
    [
      ['spec.metrics[0].object.metric.name', `Invalid value: "a%2Fb/c": may not contain '/'`],
      ['spec.metrics[0].object.metric.name', `Invalid value: "a%2Fb/c": may not contain '%'`],
    ],
  );
  // Names with dots, colons and capitals are fine path segments.
  await api.ok('POST', hpas, hpa('fine', [{ type: 'Pods', pods: { metric: { name: 'http_requests:Rate.5m' }, target: averageValue } }]), 201);
});

it('a ContainerResource metric names a container resource and its container by a DNS label', async () => {
  const metric = (name: string, container: string): Json => ({ type: 'ContainerResource', containerResource: { name, container, target: { type: 'Utilization', averageUtilization: 50 } } });
  assert.deepEqual(await causes('container-case', [metric('cpu', 'Web_App')]), [
    [
      'spec.metrics[0].containerResource.container',
      `Invalid value: "Web_App": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    ],
  ]);
  assert.deepEqual(await causes('not-for-containers', [metric('pods', 'app')]), [['spec.metrics[0].containerResource.name', 'Invalid value: "pods": must be a standard resource for containers']]);
  assert.deepEqual(await causes('unknown', [metric('gpu', 'app')]), [
    ['spec.metrics[0].containerResource.name', 'Invalid value: "gpu": must be a standard resource type or fully qualified'],
    ['spec.metrics[0].containerResource.name', 'Invalid value: "gpu": must be a standard resource for containers'],
  ]);
  assert.deepEqual(await causes('not-qualified', [metric('a b', 'app')]), [
    [
      'spec.metrics[0].containerResource.name',
      `Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ],
    ['spec.metrics[0].containerResource.name', 'Invalid value: "a b": must be a standard resource for containers'],
  ]);
  assert.deepEqual(await causes('no-container', [metric('memory', '')]), [['spec.metrics[0].containerResource.container', 'Required value: must specify a container']]);
  // Standard container resources, hugepages and extended resources are fine.
  for (const [name, resource] of [['cpu', 'cpu'], ['huge', 'hugepages-2Mi'], ['gpu', 'example.com/gpu'], ['native', 'kubernetes.io/something']]) {
    await api.ok('POST', hpas, hpa(`ok-${name}`, [metric(resource!, 'app')]), 201);
  }
});

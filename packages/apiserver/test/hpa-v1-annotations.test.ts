/**
 * An autoscaling/v1 HorizontalPodAutoscaler carries v2's other metrics, current
 * metrics, behavior and conditions in `autoscaling.alpha.kubernetes.io/*`
 * annotations. kube unmarshals each into its typed structs when it converts a
 * v1 write (pkg/apis/autoscaling/v1/conversion.go): unknown fields are dropped,
 * quantities decoded, and an annotation that does not decode (not JSON, or a
 * value of the wrong type) is ignored whole, without an error (kubernetes#89963).
 * The round-trip annotations themselves are never stored.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestApi, type Json } from './support/api-client.js';

let api: TestApi;
const ns = 'hpa-annotations';
const v1 = `/apis/autoscaling/v1/namespaces/${ns}/horizontalpodautoscalers`;
const v2 = `/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers`;
const metricsKey = 'autoscaling.alpha.kubernetes.io/metrics';
const currentKey = 'autoscaling.alpha.kubernetes.io/current-metrics';
const behaviorKey = 'autoscaling.alpha.kubernetes.io/behavior';
const conditionsKey = 'autoscaling.alpha.kubernetes.io/conditions';

before(async () => {
  api = await TestApi.start();
  await api.createNamespace(ns);
});
after(async () => {
  await api?.stop();
});

function hpaV1(name: string, annotations: Record<string, unknown>): Json {
  const texts = Object.fromEntries(Object.entries(annotations).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  return {
    apiVersion: 'autoscaling/v1',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name, annotations: { keep: 'me', ...texts } },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name }, maxReplicas: 5, targetCPUUtilizationPercentage: 50 },
  };
}

const cpu50 = { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } };

describe('autoscaling/v1 round-trip annotations, decoded as kube decodes them', () => {
  it('well-formed content is stored as v2 with unknown fields dropped and quantities canonical; a v2 PUT sending it back keeps it so', async () => {
    await api.ok(
      'POST',
      v1,
      hpaV1('clean', {
        [metricsKey]: [
          { type: 'Pods', pods: { metricName: 'qps', targetAverageValue: '1000m', selector: { matchLabels: { a: 'b' }, bogus: 1 }, extra: true }, stray: 'x' },
        ],
        [behaviorKey]: { scaleDown: { stabilizationWindowSeconds: 60, unknown: 'y' } },
      }),
      201,
    );
    const stored = await api.ok('GET', `${v2}/clean`);
    assert.deepEqual(stored.spec.metrics, [
      { type: 'Pods', pods: { metric: { name: 'qps', selector: { matchLabels: { a: 'b' } } }, target: { type: 'AverageValue', averageValue: '1' } } },
      cpu50,
    ]);
    assert.deepEqual(stored.spec.behavior, { scaleDown: { stabilizationWindowSeconds: 60 } });
    assert.deepEqual(stored.metadata.annotations, { keep: 'me' }, 'the round-trip annotations are not stored');
    // Sent back unchanged through v2: what was stored was decoded, so nothing undecoded can ride along.
    const put = await api.ok('PUT', `${v2}/clean`, stored, 200);
    assert.deepEqual(put.spec.metrics, stored.spec.metrics);
    assert.deepEqual((await api.ok('GET', `${v2}/clean`)).spec.metrics, stored.spec.metrics);
  });

  it('an annotation holding a value of the wrong type is ignored whole, with no error; the others are still taken', async () => {
    await api.ok(
      'POST',
      v1,
      hpaV1('badtypes', {
        [metricsKey]: [
          { type: 'Resource', resource: { name: 'memory', targetAverageValue: '1Gi' } },
          { type: 'Resource', resource: { name: 'memory', targetAverageUtilization: 'high' } },
        ],
        [behaviorKey]: { scaleDown: { stabilizationWindowSeconds: 30 } },
      }),
      201,
    );
    const stored = await api.ok('GET', `${v2}/badtypes`);
    assert.deepEqual(stored.spec.metrics, [cpu50], 'neither metric of the annotation is taken');
    assert.deepEqual(stored.spec.behavior, { scaleDown: { stabilizationWindowSeconds: 30 } });
    assert.deepEqual(stored.metadata.annotations, { keep: 'me' });

    for (const [name, annotations] of [
      ['badquantity', { [metricsKey]: [{ type: 'Pods', pods: { metricName: 'qps', targetAverageValue: 'lots' } }] }],
      ['notobject', { [metricsKey]: [{ type: 'Pods', pods: 'qps' }] }],
      ['notlist', { [metricsKey]: { type: 'Pods', pods: { metricName: 'qps', targetAverageValue: '1' } } }],
      ['badbehavior', { [behaviorKey]: { scaleDown: { stabilizationWindowSeconds: '30s' } } }],
      ['notjson', { [metricsKey]: 'abc', [behaviorKey]: '', [currentKey]: '[', [conditionsKey]: 'abc' }],
    ] as const) {
      await api.ok('POST', v1, hpaV1(name, annotations), 201);
      const got = await api.ok('GET', `${v2}/${name}`);
      assert.deepEqual(got.spec.metrics, [cpu50], `${name}: only the v1 CPU target`);
      assert.equal(got.spec.behavior, undefined, `${name}: no behavior`);
      assert.deepEqual(got.metadata.annotations, { keep: 'me' }, `${name}: the annotations are dropped`);
    }
  });

  it("kube's own behavior annotation, written from its internal type in Go's field names, is read back as encoding/json reads it", async () => {
    const goNames = { ScaleUp: null, ScaleDown: { StabilizationWindowSeconds: 120, SelectPolicy: 'Min', Policies: [{ Type: 'Pods', Value: 2, PeriodSeconds: 60 }] } };
    await api.ok('POST', v1, hpaV1('gonames', { [behaviorKey]: goNames }), 201);
    const stored = await api.ok('GET', `${v2}/gonames`);
    assert.deepEqual(stored.spec.behavior, { scaleDown: { stabilizationWindowSeconds: 120, selectPolicy: 'Min', policies: [{ type: 'Pods', value: 2, periodSeconds: 60 }] } });
    // A behavior that decodes to nothing is no behavior.
    await api.ok('POST', v1, hpaV1('emptybehavior', { [behaviorKey]: { ScaleUp: null, other: 1 } }), 201);
    assert.equal((await api.ok('GET', `${v2}/emptybehavior`)).spec.behavior, undefined);
  });
});

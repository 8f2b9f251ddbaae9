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
/** v2's default scale-up rules (GenerateHPAScaleUpRules). */
const defaultScaleUp = {
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [
    { type: 'Pods', value: 4, periodSeconds: 15 },
    { type: 'Percent', value: 100, periodSeconds: 15 },
  ],
};

describe('autoscaling/v1 round-trip annotations, decoded as kube decodes them', () => {
  it('well-formed content is stored as v2 with unknown fields dropped and quantities canonical; a v2 PUT sending it back keeps it so', async () => {
    await api.ok(
      'POST',
      v1,
      hpaV1('clean', {
        [metricsKey]: [
          { type: 'Pods', pods: { metricName: 'qps', targetAverageValue: '1000m', selector: { matchLabels: { a: 'b' }, bogus: 1 }, extra: true }, stray: 'x' },
        ],
        [behaviorKey]: { scaleDown: { stabilizationWindowSeconds: 60, policies: [{ type: 'Pods', value: 1, periodSeconds: 60, odd: 1 }], unknown: 'y' } },
      }),
      201,
    );
    const stored = await api.ok('GET', `${v2}/clean`);
    assert.deepEqual(stored.spec.metrics, [
      { type: 'Pods', pods: { metric: { name: 'qps', selector: { matchLabels: { a: 'b' } } }, target: { type: 'AverageValue', averageValue: '1' } } },
      cpu50,
    ]);
    assert.deepEqual(stored.spec.behavior, { scaleUp: defaultScaleUp, scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } });
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
        [behaviorKey]: { scaleDown: { stabilizationWindowSeconds: 30, policies: [{ type: 'Percent', value: 10, periodSeconds: 60 }] } },
      }),
      201,
    );
    const stored = await api.ok('GET', `${v2}/badtypes`);
    assert.deepEqual(stored.spec.metrics, [cpu50], 'neither metric of the annotation is taken');
    assert.deepEqual(stored.spec.behavior.scaleDown, { stabilizationWindowSeconds: 30, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 10, periodSeconds: 60 }] });
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
    assert.deepEqual(stored.spec.behavior, { scaleUp: defaultScaleUp, scaleDown: { stabilizationWindowSeconds: 120, selectPolicy: 'Min', policies: [{ type: 'Pods', value: 2, periodSeconds: 60 }] } });
    // A behavior that decodes to nothing is no behavior.
    await api.ok('POST', v1, hpaV1('emptybehavior', { [behaviorKey]: { ScaleUp: null, other: 1 } }), 201);
    assert.equal((await api.ok('GET', `${v2}/emptybehavior`)).spec.behavior, undefined);
  });
});

describe('autoscaling/v1 writes, validated and defaulted as kube does', () => {
  it("v2's checks run on the converted object: the annotations' metrics and behavior, and v1's CPU target, in kube's words and at v2's fields", async () => {
    const bad = await api.ok(
      'POST',
      v1,
      {
        ...hpaV1('invalid', {
          [metricsKey]: [{ type: 'Pods', pods: { targetAverageValue: '2' } }],
          [behaviorKey]: { ScaleDown: { StabilizationWindowSeconds: 4000, SelectPolicy: 'Most' }, ScaleUp: { Policies: [{ Type: 'Pods', Value: 0, PeriodSeconds: 2000 }] } },
        }),
        spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'invalid' }, maxReplicas: 5, targetCPUUtilizationPercentage: 0 },
      },
      422,
    );
    const causes = (bad.details.causes as Json[]).map((c) => `${c.field}: ${c.message}`);
    assert.deepEqual(causes, [
      'spec.metrics[0].pods.metric.name: Required value: must specify a metric name',
      'spec.metrics[1].resource.target.averageUtilization: Invalid value: 0: must be greater than 0',
      'spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero',
      'spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 2000: must be less than or equal to 1800',
      'spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: 4000: must be less than or equal to 3600',
      'spec.behavior.scaleDown.selectPolicy: Unsupported value: "Most": supported values: "Disabled", "Max", "Min"',
      'spec.behavior.scaleDown.policies: Required value: must specify at least one Policy',
    ]);
    // The defaults come after validation: a behavior without policies is refused, not filled in.
    const partial = await api.ok('POST', v1, hpaV1('partial', { [behaviorKey]: { scaleDown: { stabilizationWindowSeconds: 60 } } }), 422);
    assert.match(partial.message, /spec\.behavior\.scaleDown\.policies: Required value: must specify at least one Policy/);
    // Through v2 an empty list of policies is not nil: it is refused too, never defaulted.
    const empty = await api.ok(
      'POST',
      v2,
      { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'empty' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'x' }, maxReplicas: 2, behavior: { scaleUp: { policies: [] } } } },
      422,
    );
    assert.match(empty.message, /spec\.behavior\.scaleUp\.policies: Required value: must specify at least one Policy/);
  });

  it("a v1 write reads back with v2's defaults (the CPU target of 80%, the behavior filled in), and v1 shows the behavior as kube writes it: Go's field names", async () => {
    const hpa = hpaV1('defaults', { [behaviorKey]: { scaleDown: { selectPolicy: 'Min', policies: [{ type: 'Pods', value: 2, periodSeconds: 60 }] } } });
    delete (hpa.spec as Json).targetCPUUtilizationPercentage;
    await api.ok('POST', v1, hpa, 201);
    const stored = await api.ok('GET', `${v2}/defaults`);
    assert.deepEqual(stored.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
    assert.deepEqual(stored.spec.behavior, { scaleUp: defaultScaleUp, scaleDown: { selectPolicy: 'Min', policies: [{ type: 'Pods', value: 2, periodSeconds: 60 }] } });
    const served = await api.ok('GET', `${v1}/defaults`);
    assert.equal(served.spec.targetCPUUtilizationPercentage, 80);
    assert.equal(
      served.metadata.annotations[behaviorKey],
      '{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15},{"Type":"Percent","Value":100,"PeriodSeconds":15}]},' +
        '"ScaleDown":{"StabilizationWindowSeconds":null,"SelectPolicy":"Min","Policies":[{"Type":"Pods","Value":2,"PeriodSeconds":60}]}}',
    );
    // Sent back as it came, it means the same behavior.
    await api.ok('PUT', `${v1}/defaults`, served, 200);
    assert.deepEqual((await api.ok('GET', `${v2}/defaults`)).spec.behavior, stored.spec.behavior);
  });

  it('a v1 status write sets (and, left out, clears) the conditions and current metrics its annotations carry; a write through the resource or a create cannot', async () => {
    const condition = { type: 'AbleToScale', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'ReadyForNewScale', message: 'recommended size matches current size' };
    const created = await api.ok('POST', v1, hpaV1('status', { [conditionsKey]: [condition] }), 201);
    assert.equal((await api.ok('GET', `${v2}/status`)).status.conditions, undefined, 'a create keeps no status');

    const withConditions = {
      ...created,
      metadata: { ...created.metadata, annotations: { ...created.metadata.annotations, [conditionsKey]: JSON.stringify([condition]), [currentKey]: JSON.stringify([{ type: 'Resource', resource: { name: 'cpu', currentAverageUtilization: 40, currentAverageValue: '100m' } }]) } },
      status: { currentReplicas: 2, desiredReplicas: 3 },
    };
    const written = await api.ok('PUT', `${v1}/status/status`, withConditions, 200);
    assert.deepEqual(JSON.parse(written.metadata.annotations[conditionsKey]), [condition]);
    const got = await api.ok('GET', `${v2}/status`);
    assert.deepEqual(got.status.conditions, [condition]);
    assert.deepEqual(got.status.currentMetrics, [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 40, averageValue: '100m' } } }]);
    assert.equal(got.status.desiredReplicas, 3);

    // Through the resource, the status (and so its annotations) stays as stored.
    const served = await api.ok('GET', `${v1}/status`);
    served.metadata.annotations[conditionsKey] = JSON.stringify([{ ...condition, status: 'False' }]);
    await api.ok('PUT', `${v1}/status`, served, 200);
    assert.deepEqual((await api.ok('GET', `${v2}/status`)).status.conditions, [condition]);

    // A status write without the annotation clears them, as kube's conversion leaves no conditions.
    const again = await api.ok('GET', `${v1}/status`);
    delete again.metadata.annotations[conditionsKey];
    await api.ok('PUT', `${v1}/status/status`, again, 200);
    assert.equal((await api.ok('GET', `${v2}/status`)).status.conditions, undefined);

    const negative = await api.ok('PUT', `${v1}/status/status`, { ...(await api.ok('GET', `${v1}/status`)), status: { currentReplicas: -1, desiredReplicas: 1 } }, 422);
    assert.match(negative.message, /status\.currentReplicas: Invalid value: -1: must be greater than or equal to 0/);
  });
});

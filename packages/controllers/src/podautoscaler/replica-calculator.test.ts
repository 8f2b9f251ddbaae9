import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PodObject } from '../objects.js';
import type { PodMetric } from './metrics.js';
import { ReplicaNormalizer } from './normalize.js';
import { averageValueReplicas, MetricsError, resourceUtilizationReplicas } from './replica-calculator.js';

const now = Date.parse('2026-01-01T00:10:00Z');
const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** A pod started 10 min ago and ready since (past the CPU initialization period), unless `phase` says otherwise. */
function pod(name: string, cpuRequest = '100m', phase = 'Running'): PodObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { containers: [{ name: 'app', image: 'x', resources: { requests: { cpu: cpuRequest } } }] },
    status: { phase, startTime: iso(now - 600_000), conditions: [{ type: 'Ready', status: phase === 'Running' ? 'True' : 'False', lastTransitionTime: iso(now - 590_000) }] },
  } as PodObject;
}
const metrics = (entries: Record<string, number>): Map<string, PodMetric> => new Map(Object.entries(entries).map(([k, v]) => [k, { value: v, timestamp: now, window: 15_000 }]));

describe('replica calculator', () => {
  it('ceil(utilization / target x ready pods), the current count within the 0.1 tolerance', () => {
    const pods = [pod('a'), pod('b')];
    assert.deepEqual(resourceUtilizationReplicas(2, 50, 'cpu', pods, metrics({ a: 90, b: 90 }), now), { replicas: 4, utilization: 90, rawAverage: 90 });
    assert.equal(resourceUtilizationReplicas(2, 50, 'cpu', pods, metrics({ a: 54, b: 54 }), now).replicas, 2, '108% of target is within tolerance');
  });

  it('a missing pod counts as at target when scaling down, as idle when scaling up; a pending one as idle when scaling up', () => {
    const pods = [pod('a'), pod('b'), pod('c')];
    // a and b at 10% of a 50% target would give ceil(0.2 x 2) = 1; c assumed at 100% of its request: (10+10+100)/300 = 40% -> ceil(0.8 x 3) = 3.
    assert.equal(resourceUtilizationReplicas(3, 50, 'cpu', pods, metrics({ a: 10, b: 10 }), now).replicas, 3);
    // a and b at 200%: c counts as 0: 400/300 = 133% -> ceil(2.67 x 3) = 8.
    assert.equal(resourceUtilizationReplicas(3, 50, 'cpu', pods, metrics({ a: 200, b: 200 }), now).replicas, 8);
    const pending = [pod('a'), pod('b', '100m', 'Pending')];
    assert.equal(averageValueReplicas(2, 100, '', pending, metrics({ a: 300 }), now).replicas, 3, 'a 300 + b 0 over a target of 100 each: ceil(1.5 x 2)');
  });

  it("kube's errors: a container without a request, no samples", () => {
    const bare = pod('a');
    delete bare.spec!.containers[0]!.resources;
    assert.throws(() => resourceUtilizationReplicas(1, 50, 'cpu', [bare], metrics({ a: 1 }), now), (e: Error) => e instanceof MetricsError && e.message === 'missing request for cpu in container app of Pod a');
    assert.throws(
      () => averageValueReplicas(1, 10, '', [pod('a', '1', 'Pending')], metrics({ a: 1 }), now),
      (e: Error) => e instanceof MetricsError && e.message === 'did not receive metrics for targeted pods (pods might be unready)',
    );
  });
});

describe('replica normalizer', () => {
  it('without a behavior: the highest recommendation of the last 300 s holds a scale-down; a scale-up at most doubles (at least 4)', () => {
    let t = now;
    const n = new ReplicaNormalizer(() => t);
    n.recordInitial('k', 10);
    assert.equal(n.normalize('k', undefined, 10, 2, 1, 20).replicas, 10);
    assert.equal(n.normalize('k', undefined, 10, 2, 1, 20).ableToScale.reason, 'ScaleDownStabilized');
    t += 300_001;
    const after = n.normalize('k', undefined, 10, 2, 1, 20);
    assert.deepEqual([after.replicas, after.ableToScale.reason, after.scalingLimited.reason], [2, 'ReadyForNewScale', 'DesiredWithinRange']);
    const up = n.normalize('k', undefined, 2, 30, 1, 20);
    assert.deepEqual([up.replicas, up.scalingLimited.limited, up.scalingLimited.reason], [4, true, 'ScaleUpLimit']);
  });

  it("with a behavior: a Percent policy per period bounds a scale-down, counting the period's earlier steps", () => {
    let t = now;
    const n = new ReplicaNormalizer(() => t);
    const behavior = { scaleDown: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 50, periodSeconds: 60 }] } };
    n.recordInitial('k', 8);
    const first = n.normalize('k', behavior, 8, 1, 1, 10);
    assert.deepEqual([first.replicas, first.scalingLimited.reason], [4, 'ScaleDownLimit']);
    n.recordScale('k', behavior, 8, 4);
    t += 10_000;
    assert.equal(n.normalize('k', behavior, 4, 1, 1, 10).replicas, 4, 'the period started at 8: 50% of it is already gone');
    t += 60_000;
    assert.equal(n.normalize('k', behavior, 4, 1, 1, 10).replicas, 2);
  });
});

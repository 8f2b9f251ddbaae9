import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PodObject, ReplicaSetObject } from '../objects.js';
import { calculateStatus, slowStartBatch } from './controller.js';
import { podsToDelete } from './pods-to-delete.js';

const now = Date.parse('2024-05-01T10:00:00Z');

function pod(name: string, o: { node?: string; phase?: string; readySince?: string; restarts?: number; created?: string; labels?: Record<string, string> } = {}): PodObject {
  return {
    metadata: { name, namespace: 'default', creationTimestamp: o.created ?? '2024-05-01T09:00:00Z', labels: o.labels ?? { app: 'web', 'pod-template-hash': 'abc' } },
    spec: { nodeName: o.node, containers: [{ name: 'app', image: 'nginx' }] },
    status: {
      phase: o.phase ?? 'Running',
      conditions: o.readySince ? [{ type: 'Ready', status: 'True', lastTransitionTime: o.readySince }] : [{ type: 'Ready', status: 'False' }],
      containerStatuses: [{ name: 'app', image: 'nginx', imageID: '', ready: !!o.readySince, restartCount: o.restarts ?? 0 }],
    },
  } as PodObject;
}

const rs = (minReadySeconds = 0): ReplicaSetObject =>
  ({
    metadata: { name: 'web-abc', namespace: 'default', generation: 3 },
    spec: { replicas: 3, minReadySeconds, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web', 'pod-template-hash': 'abc' } } } },
    status: { replicas: 0 },
  }) as ReplicaSetObject;

describe('replicaset', () => {
  it('status counts ready, available (minReadySeconds) and fully labeled pods', () => {
    const pods = [
      pod('a', { readySince: '2024-05-01T09:59:00Z' }),
      pod('b', { readySince: '2024-05-01T09:59:55Z' }),
      pod('c', { labels: { app: 'web' } }),
    ];
    assert.deepEqual(calculateStatus(rs(10), pods, undefined, now), { replicas: 3, fullyLabeledReplicas: 2, readyReplicas: 2, availableReplicas: 1, observedGeneration: 3 });
    assert.deepEqual(calculateStatus(rs(0), [], undefined, now), { replicas: 0, observedGeneration: 3 });
    const failed = calculateStatus(rs(0), [], new Error('pods "web-abc-" is forbidden: exceeded quota'), now);
    assert.deepEqual(failed.conditions, [
      { type: 'ReplicaFailure', status: 'True', lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'FailedCreate', message: 'pods "web-abc-" is forbidden: exceeded quota' },
    ]);
    assert.equal(calculateStatus({ ...rs(0), status: failed }, [], undefined, now).conditions, undefined, 'cleared once pods can be made again');
  });

  it('deletes the cheapest pods first: unscheduled, pending, not ready, doubled up, recently ready, restarted, newest', () => {
    const pods = [
      pod('ready-old', { node: 'n1', readySince: '2024-05-01T09:00:00Z' }),
      pod('unscheduled', { phase: 'Pending' }),
      pod('pending', { node: 'n2', phase: 'Pending' }),
      pod('not-ready', { node: 'n3' }),
      pod('ready-new', { node: 'n4', readySince: '2024-05-01T09:50:00Z' }),
      pod('ready-doubled', { node: 'n1', readySince: '2024-05-01T09:00:00Z' }),
    ];
    // The two on n1 (doubled up) go before the one alone on n4, though it became ready later.
    assert.deepEqual(
      podsToDelete(pods, 5).map((p) => p.metadata.name),
      ['unscheduled', 'pending', 'not-ready', 'ready-old', 'ready-doubled'],
    );
    assert.deepEqual(podsToDelete(pods, 2).map((p) => p.metadata.name), ['unscheduled', 'pending']);
    const alone = [pod('older', { node: 'a', readySince: '2024-05-01T09:00:00Z' }), pod('newer', { node: 'b', readySince: '2024-05-01T09:30:00Z' })];
    assert.deepEqual(podsToDelete(alone, 1).map((p) => p.metadata.name), ['newer'], 'ready more recently goes first');
    const restarted = [pod('calm', { node: 'a', readySince: '2024-05-01T09:00:00Z' }), pod('flappy', { node: 'b', readySince: '2024-05-01T09:00:00Z', restarts: 4 })];
    assert.deepEqual(podsToDelete(restarted, 1).map((p) => p.metadata.name), ['flappy']);
  });

  it('creates in slow-start batches of 1, 2, 4..., stopping after a batch with a failure', async () => {
    let calls = 0;
    assert.equal(await slowStartBatch(7, async () => void calls++), 7);
    assert.equal(calls, 7);
    calls = 0;
    await assert.rejects(
      slowStartBatch(10, async () => {
        calls++;
        if (calls >= 2) throw new Error('quota');
      }),
      /quota/,
    );
    assert.equal(calls, 3, 'the batch of one, then the batch of two that failed');
  });
});

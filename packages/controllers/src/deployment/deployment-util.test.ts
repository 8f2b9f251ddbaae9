import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DeploymentObject, ReplicaSetObject } from '../objects.js';
import { calculateStatus, progressCheckDelay, rolloutStatus } from './status.js';
import { revisionAnnotation, setNewReplicaSetAnnotations } from './annotations.js';
import { deploymentTimedOut } from './conditions.js';
import { maxSurge, maxUnavailable } from './fenceposts.js';
import { findNewReplicaSet, findOldReplicaSets, newRSNewReplicas, proportion } from './replica-sets.js';

const template = (image: string, hash?: string) => ({
  metadata: { labels: { app: 'web', ...(hash ? { 'pod-template-hash': hash } : {}) } },
  spec: { containers: [{ name: 'nginx', image }] },
});

function deployment(replicas: number, strategy: Record<string, unknown> = { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } }): DeploymentObject {
  return {
    metadata: { name: 'web', namespace: 'default', uid: 'd-uid', generation: 2 },
    spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: template('nginx:1.27'), strategy, progressDeadlineSeconds: 600 },
    status: {},
  } as DeploymentObject;
}

function replicaSet(name: string, replicas: number, image: string, extra: { available?: number; created?: string; revision?: string; maxReplicas?: string } = {}): ReplicaSetObject {
  return {
    metadata: {
      name,
      namespace: 'default',
      uid: `${name}-uid`,
      creationTimestamp: extra.created ?? '2024-01-01T00:00:00Z',
      annotations: {
        ...(extra.revision ? { [revisionAnnotation]: extra.revision } : {}),
        ...(extra.maxReplicas ? { 'deployment.kubernetes.io/max-replicas': extra.maxReplicas } : {}),
      },
    },
    spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: template(image, name.split('-')[1]) },
    status: { replicas, availableReplicas: extra.available ?? replicas, readyReplicas: extra.available ?? replicas },
  } as ReplicaSetObject;
}

describe('deployment util', () => {
  it('finds the new ReplicaSet by template, ignoring the hash label; the rest are old', () => {
    const d = deployment(3);
    const old = replicaSet('web-old', 3, 'nginx:1.26');
    const current = replicaSet('web-new', 1, 'nginx:1.27');
    assert.equal(findNewReplicaSet(d, [old, current]), current);
    assert.deepEqual(findOldReplicaSets(d, [old, current]).all, [old]);
    assert.equal(findNewReplicaSet(d, [old]), undefined);
  });

  it('maxUnavailable never exceeds the replicas; Recreate has neither surge nor unavailability', () => {
    assert.equal(maxUnavailable(deployment(2, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 5 } })), 2);
    assert.equal(maxUnavailable(deployment(0)), 0);
    assert.equal(maxSurge(deployment(4, { type: 'Recreate' })), 0);
    assert.equal(maxUnavailable(deployment(4, { type: 'Recreate' })), 0);
  });

  it('the new ReplicaSet grows only as far as the surge allows', () => {
    const d = deployment(3); // surge 1
    const old = replicaSet('web-old', 3, 'nginx:1.26');
    const current = replicaSet('web-new', 0, 'nginx:1.27');
    assert.equal(newRSNewReplicas(d, [old, current], current), 1);
    const grown = replicaSet('web-new', 1, 'nginx:1.27');
    assert.equal(newRSNewReplicas(d, [old, grown], grown), 1, 'already at replicas + surge');
    const shrunk = replicaSet('web-old', 2, 'nginx:1.26');
    assert.equal(newRSNewReplicas(d, [shrunk, grown], grown), 2);
    assert.equal(newRSNewReplicas(deployment(3, { type: 'Recreate' }), [old, current], current), 3);
  });

  it('a resize is shared in proportion to max-replicas', () => {
    // 10 replicas with surge 3 (max 13) scaled to 20 (max 23): a 5-of-13 set gains round(5*23/13)-5 = 4.
    const d = deployment(20, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 3, maxUnavailable: 0 } });
    const rs = replicaSet('web-a', 5, 'nginx:1.26', { maxReplicas: '13' });
    assert.equal(proportion(rs, d, 12, 0), 4);
    assert.equal(proportion(rs, d, 12, 10), 2, 'never more than what is left to add');
  });

  it('the revision goes up, and a rolled-back ReplicaSet keeps its old revisions in revision-history', () => {
    const d = deployment(3);
    const rs = replicaSet('web-a', 0, 'nginx:1.27', { revision: '1' });
    assert.equal(setNewReplicaSetAnnotations(d, rs, '3', true), true);
    assert.equal(rs.metadata.annotations?.[revisionAnnotation], '3');
    assert.equal(rs.metadata.annotations?.['deployment.kubernetes.io/revision-history'], '1');
    setNewReplicaSetAnnotations(d, rs, '5', true);
    assert.equal(rs.metadata.annotations?.['deployment.kubernetes.io/revision-history'], '1,3');
    const fresh = replicaSet('web-b', 0, 'nginx:1.27');
    setNewReplicaSetAnnotations(d, fresh, '1', false);
    assert.deepEqual(fresh.metadata.annotations, {
      [revisionAnnotation]: '1',
      'deployment.kubernetes.io/desired-replicas': '3',
      'deployment.kubernetes.io/max-replicas': '4',
    });
  });
});

describe('deployment status', () => {
  const now = Date.parse('2024-05-01T10:00:00Z');

  it('counts replicas over all ReplicaSets and sets Available as kube words it', () => {
    const d = deployment(3);
    const old = replicaSet('web-old', 2, 'nginx:1.26');
    const current = replicaSet('web-new', 2, 'nginx:1.27', { available: 1 });
    const status = calculateStatus([old, current], current, d, now);
    assert.equal(status.replicas, 4);
    assert.equal(status.updatedReplicas, 2);
    assert.equal(status.availableReplicas, 3);
    assert.equal(status.unavailableReplicas, 1);
    assert.equal(status.observedGeneration, 2);
    assert.deepEqual(status.conditions, [
      {
        type: 'Available',
        status: 'True',
        reason: 'MinimumReplicasAvailable',
        message: 'Deployment has minimum availability.',
        lastUpdateTime: '2024-05-01T10:00:00Z',
        lastTransitionTime: '2024-05-01T10:00:00Z',
      },
    ]);
    const down = calculateStatus([replicaSet('web-new', 3, 'nginx:1.27', { available: 1 })], undefined, d, now);
    assert.equal(down.conditions?.[0]?.reason, 'MinimumReplicasUnavailable');
    assert.equal(down.conditions?.[0]?.message, 'Deployment does not have minimum availability.');
  });

  it('Progressing: progressing, then complete, with the ReplicaSet named', () => {
    const d = deployment(3);
    const current = replicaSet('web-new', 3, 'nginx:1.27', { available: 1 });
    const progressing = rolloutStatus([current], current, d, now);
    const p = progressing.conditions?.find((c) => c.type === 'Progressing');
    assert.equal(p?.reason, 'ReplicaSetUpdated');
    assert.equal(p?.message, 'ReplicaSet "web-new" is progressing.');
    const done = rolloutStatus([replicaSet('web-new', 3, 'nginx:1.27')], current, { ...d, status: progressing }, now + 5000);
    const c = done.conditions?.find((x) => x.type === 'Progressing');
    assert.equal(c?.reason, 'NewReplicaSetAvailable');
    assert.equal(c?.message, 'ReplicaSet "web-new" has successfully progressed.');
    assert.equal(c?.lastTransitionTime, p?.lastTransitionTime, 'still True: the transition time stays');
  });

  it('no progress for progressDeadlineSeconds times out; until then a requeue is asked for the deadline', () => {
    const d = deployment(3);
    const stuck = replicaSet('web-new', 3, 'nginx:1.27', { available: 0 });
    const since = '2024-05-01T09:55:00Z';
    d.status = {
      replicas: 3,
      updatedReplicas: 3,
      observedGeneration: 2,
      conditions: [{ type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', message: 'x', lastUpdateTime: since, lastTransitionTime: since }],
    };
    assert.equal(deploymentTimedOut(d, d.status, now), false);
    assert.equal(progressCheckDelay(d, d.status, now), 5 * 60_000 + 1000);
    const later = Date.parse('2024-05-01T10:05:01Z');
    const status = rolloutStatus([stuck], stuck, d, later);
    const c = status.conditions?.find((x) => x.type === 'Progressing');
    assert.equal(c?.status, 'False');
    assert.equal(c?.reason, 'ProgressDeadlineExceeded');
    assert.equal(c?.message, 'ReplicaSet "web-new" has timed out progressing.');
  });
});

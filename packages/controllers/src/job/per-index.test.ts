import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type * as batchv1 from 'kubernetes-types/batch/v1.js';
import type { PodObject } from '../objects.js';
import { failsItsIndex, failureCountAnnotations, lastFailedPodPerIndex } from './per-index.js';

function failedPod(name: string, index: number, annotations: Record<string, string>, exitCode: number, finishedAt: string): PodObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', annotations: { 'batch.kubernetes.io/job-completion-index': String(index), ...annotations } },
    status: {
      phase: 'Failed',
      containerStatuses: [{ name: 'main', image: 'busybox', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode, finishedAt } } }],
    },
  } as PodObject;
}

const spec = (extra: Partial<batchv1.JobSpec> = {}): batchv1.JobSpec => ({ template: {}, completionMode: 'Indexed', completions: 3, backoffLimitPerIndex: 1, ...extra });

describe('backoffLimitPerIndex', () => {
  it('a replacement counts one more failure, or one more ignored failure for a pod an Ignore rule let go', () => {
    assert.deepEqual(failureCountAnnotations(spec(), undefined), { 'batch.kubernetes.io/job-index-failure-count': '0' });
    const first = failedPod('a', 0, { 'batch.kubernetes.io/job-index-failure-count': '0' }, 1, '2024-05-01T10:00:00Z');
    assert.deepEqual(failureCountAnnotations(spec(), first), { 'batch.kubernetes.io/job-index-failure-count': '1' });
    const ignore = spec({ podFailurePolicy: { rules: [{ action: 'Ignore', onExitCodes: { operator: 'In', values: [1] } }] } });
    assert.deepEqual(failureCountAnnotations(ignore, first), {
      'batch.kubernetes.io/job-index-failure-count': '0',
      'batch.kubernetes.io/job-index-ignored-failure-count': '1',
    });
  });

  it('an index fails once a counted failure finds its limit used up, or at once on a FailIndex rule; never on an ignored one', () => {
    const withinLimit = failedPod('a', 0, { 'batch.kubernetes.io/job-index-failure-count': '0' }, 1, '2024-05-01T10:00:00Z');
    const pastLimit = failedPod('b', 0, { 'batch.kubernetes.io/job-index-failure-count': '1' }, 1, '2024-05-01T10:00:10Z');
    assert.equal(failsItsIndex(spec(), withinLimit), false);
    assert.equal(failsItsIndex(spec(), pastLimit), true);
    assert.equal(failsItsIndex(spec({ podFailurePolicy: { rules: [{ action: 'FailIndex', onExitCodes: { operator: 'In', values: [1] } }] } }), withinLimit), true);
    assert.equal(failsItsIndex(spec({ podFailurePolicy: { rules: [{ action: 'Ignore', onExitCodes: { operator: 'In', values: [1] } }] } }), pastLimit), false);
  });

  it('the pod a new one replaces is its index\'s last failed pod: the most failures, then the latest to finish', () => {
    const a = failedPod('a', 0, { 'batch.kubernetes.io/job-index-failure-count': '0' }, 1, '2024-05-01T10:00:00Z');
    const b = failedPod('b', 0, { 'batch.kubernetes.io/job-index-failure-count': '1' }, 1, '2024-05-01T09:00:00Z');
    const c = failedPod('c', 2, { 'batch.kubernetes.io/job-index-failure-count': '0' }, 1, '2024-05-01T10:00:00Z');
    const d = failedPod('d', 2, { 'batch.kubernetes.io/job-index-failure-count': '0' }, 1, '2024-05-01T10:00:05Z');
    const last = lastFailedPodPerIndex([a, b, c, d]);
    assert.equal(last.get(0)?.metadata.name, 'b');
    assert.equal(last.get(2)?.metadata.name, 'd');
    assert.equal(last.has(1), false);
  });
});

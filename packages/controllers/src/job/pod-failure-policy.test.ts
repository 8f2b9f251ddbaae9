/**
 * The matching of failed pods against a pod failure policy's rules, as
 * kube's pod_failure_policy_test.go checks it: order, operators, container
 * names, init containers, exit code 0, pod conditions.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type * as batchv1 from 'kubernetes-types/batch/v1.js';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import type { PodObject } from '../objects.js';
import { matchPodFailurePolicy } from './pod-failure-policy.js';

const exited = (name: string, exitCode: number): corev1.ContainerStatus => ({ name, image: 'busybox', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode } } });
const running = (name: string): corev1.ContainerStatus => ({ name, image: 'busybox', imageID: '', ready: true, restartCount: 0, state: { running: {} } });

function failedPod(status: Partial<corev1.PodStatus>): PodObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'job-abc', namespace: 'default' }, status: { phase: 'Failed', ...status } };
}

const onExit = (action: string, operator: string, values: number[], containerName?: string): batchv1.PodFailurePolicyRule => ({
  action,
  onExitCodes: { operator, values, ...(containerName ? { containerName } : {}) },
});

describe('matchPodFailurePolicy', () => {
  it('no policy, or no rule that matches: the failure counts', () => {
    const pod = failedPod({ containerStatuses: [exited('main', 1)] });
    assert.deepEqual(matchPodFailurePolicy(undefined, pod), { countFailed: true });
    assert.deepEqual(matchPodFailurePolicy({ rules: [onExit('FailJob', 'In', [2])] }, pod), { countFailed: true });
  });

  it('FailJob on an exit code names the container, the pod, the code and the rule index', () => {
    const pod = failedPod({ containerStatuses: [exited('main', 42)] });
    const verdict = matchPodFailurePolicy({ rules: [onExit('Ignore', 'In', [1]), onExit('FailJob', 'In', [42])] }, pod);
    assert.deepEqual(verdict, { countFailed: true, action: 'FailJob', failJobMessage: 'Container main for pod default/job-abc failed with exit code 42 matching FailJob rule at index 1' });
  });

  it('the first matching rule wins', () => {
    const pod = failedPod({ containerStatuses: [exited('main', 42)] });
    assert.deepEqual(matchPodFailurePolicy({ rules: [onExit('Ignore', 'NotIn', [1]), onExit('FailJob', 'In', [42])] }, pod), { countFailed: false, action: 'Ignore' });
    assert.deepEqual(matchPodFailurePolicy({ rules: [onExit('Count', 'In', [42]), onExit('FailJob', 'In', [42])] }, pod), { countFailed: true, action: 'Count' });
  });

  it('NotIn matches a failed container whose code is not listed; a container that exited 0 never matches', () => {
    const ok = failedPod({ containerStatuses: [exited('main', 0), exited('sidecar', 0)] });
    assert.deepEqual(matchPodFailurePolicy({ rules: [onExit('FailJob', 'NotIn', [1])] }, ok), { countFailed: true });
    const five = failedPod({ containerStatuses: [exited('main', 0), exited('sidecar', 5)] });
    assert.equal(matchPodFailurePolicy({ rules: [onExit('FailJob', 'NotIn', [1])] }, five).failJobMessage, 'Container sidecar for pod default/job-abc failed with exit code 5 matching FailJob rule at index 0');
  });

  it('containerName limits the rule to that container; running containers have no code to match', () => {
    const pod = failedPod({ containerStatuses: [exited('main', 3), running('sidecar')] });
    assert.deepEqual(matchPodFailurePolicy({ rules: [onExit('Ignore', 'In', [3], 'sidecar')] }, pod), { countFailed: true });
    assert.deepEqual(matchPodFailurePolicy({ rules: [onExit('Ignore', 'In', [3], 'main')] }, pod), { countFailed: false, action: 'Ignore' });
  });

  it('init containers are looked at after the app containers', () => {
    const pod = failedPod({ initContainerStatuses: [exited('setup', 7)], containerStatuses: [] });
    assert.equal(matchPodFailurePolicy({ rules: [onExit('FailJob', 'In', [7])] }, pod).failJobMessage, 'Container setup for pod default/job-abc failed with exit code 7 matching FailJob rule at index 0');
  });

  it('onPodConditions matches a condition of that type and status (DisruptionTarget=True)', () => {
    const pod = failedPod({ conditions: [{ type: 'Ready', status: 'False' }, { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI' }] });
    const ignore: batchv1.PodFailurePolicy = { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }] };
    assert.deepEqual(matchPodFailurePolicy(ignore, pod), { countFailed: false, action: 'Ignore' });
    const wrongStatus: batchv1.PodFailurePolicy = { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'False' }] }] };
    assert.deepEqual(matchPodFailurePolicy(wrongStatus, pod), { countFailed: true });
    const failJob: batchv1.PodFailurePolicy = { rules: [{ action: 'FailJob', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }] };
    assert.equal(matchPodFailurePolicy(failJob, pod).failJobMessage, 'Pod default/job-abc has condition DisruptionTarget matching FailJob rule at index 0');
  });

  it('FailIndex counts the failure (there is no per-index backoff to fail)', () => {
    const pod = failedPod({ containerStatuses: [exited('main', 9)] });
    assert.deepEqual(matchPodFailurePolicy({ rules: [onExit('FailIndex', 'In', [9])] }, pod), { countFailed: true, action: 'FailIndex' });
  });
});

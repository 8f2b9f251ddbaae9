/**
 * A Job's pod failure policy (kube's pkg/controller/job/pod_failure_policy.go
 * at 1.32): which rule a failed pod matches, and what that does to the Job.
 *
 * The rules are tried in order and the first that matches decides:
 * - `onExitCodes` looks at the terminated containers (the app containers
 *   first, then the init containers), optionally only the one named
 *   `containerName`; a container that exited with 0 never matches, whatever
 *   the operator (so `NotIn [1]` means "failed with anything but 1");
 * - `onPodConditions` matches a pod condition of that type and status (e.g.
 *   `DisruptionTarget=True`, which an eviction, the taint manager or the pod
 *   GC sets).
 * A pod that matches no rule counts as a failure, as without a policy.
 */
import type * as batchv1 from 'kubernetes-types/batch/v1.js';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import type { PodObject } from '../objects.js';

/** What a failed pod does to its Job. */
export interface PodFailureVerdict {
  /** Whether the failure counts towards backoffLimit (false for an Ignore rule). */
  countFailed: boolean;
  /** The action of the matching rule, if one matched. */
  action?: string;
  /** For a FailJob rule: the message of the Job's FailureTarget and Failed conditions. */
  failJobMessage?: string;
}

const noMatch: PodFailureVerdict = { countFailed: true };

/**
 * Matches a failed pod against the policy's rules (kube's matchPodFailurePolicy).
 *
 * @example
 * ```ts
 * import { matchPodFailurePolicy } from './pod-failure-policy.js';
 *
 * const verdict = matchPodFailurePolicy(
 *   { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } }] },
 *   {
 *     apiVersion: 'v1',
 *     kind: 'Pod',
 *     metadata: { name: 'pi-x7k2p', namespace: 'default' },
 *     status: { phase: 'Failed', containerStatuses: [{ name: 'main', image: 'busybox', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 42 } } }] },
 *   },
 * );
 * // verdict.failJobMessage: 'Container main for pod default/pi-x7k2p failed with exit code 42 matching FailJob rule at index 0'
 * ```
 */
export function matchPodFailurePolicy(policy: batchv1.PodFailurePolicy | undefined, pod: PodObject): PodFailureVerdict {
  if (!policy) return noMatch;
  const where = `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
  for (const [index, rule] of (policy.rules ?? []).entries()) {
    let failJobMessage: string | undefined;
    if (rule.onExitCodes) {
      const container = matchOnExitCodes(pod.status ?? {}, rule.onExitCodes);
      if (!container) continue;
      failJobMessage = `Container ${container.name} for pod ${where} failed with exit code ${container.state!.terminated!.exitCode} matching ${rule.action} rule at index ${index}`;
    } else if (rule.onPodConditions) {
      const condition = matchOnPodConditions(pod.status ?? {}, rule.onPodConditions);
      if (!condition) continue;
      failJobMessage = `Pod ${where} has condition ${condition.type} matching ${rule.action} rule at index ${index}`;
    } else {
      continue;
    }
    switch (rule.action) {
      case 'Ignore':
        return { countFailed: false, action: rule.action };
      case 'Count':
      case 'FailIndex':
        return { countFailed: true, action: rule.action };
      case 'FailJob':
        return { countFailed: true, action: rule.action, failJobMessage };
      // An action this version does not know (validation keeps them out) matches nothing: the next rule is tried.
    }
  }
  return noMatch;
}

/** The first terminated container (app containers, then init containers) that the requirement matches. */
function matchOnExitCodes(status: corev1.PodStatus, requirement: batchv1.PodFailurePolicyOnExitCodesRequirement): corev1.ContainerStatus | undefined {
  return firstMatching(status.containerStatuses, requirement) ?? firstMatching(status.initContainerStatuses, requirement);
}

function firstMatching(statuses: readonly corev1.ContainerStatus[] | undefined, requirement: batchv1.PodFailurePolicyOnExitCodesRequirement): corev1.ContainerStatus | undefined {
  for (const cs of statuses ?? []) {
    const exitCode = cs.state?.terminated?.exitCode;
    // A container still running (or terminating) has no exit code to match; one that succeeded never matches.
    if (exitCode === undefined || exitCode === 0) continue;
    if (requirement.containerName !== undefined && requirement.containerName !== cs.name) continue;
    if (exitCodeMatches(exitCode, requirement)) return cs;
  }
  return undefined;
}

function exitCodeMatches(exitCode: number, requirement: batchv1.PodFailurePolicyOnExitCodesRequirement): boolean {
  const listed = requirement.values.includes(exitCode);
  if (requirement.operator === 'In') return listed;
  if (requirement.operator === 'NotIn') return !listed;
  return false;
}

/** The first pod condition (in the pod's order) that one of the patterns matches. */
function matchOnPodConditions(status: corev1.PodStatus, patterns: readonly batchv1.PodFailurePolicyOnPodConditionsPattern[]): corev1.PodCondition | undefined {
  return (status.conditions ?? []).find((c) => patterns.some((p) => p.type === c.type && p.status === c.status));
}

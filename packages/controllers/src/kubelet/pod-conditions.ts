/**
 * A pod's conditions as the kubelet reports them (kube's Generate*Condition):
 * PodReadyToStartContainers, Initialized, Ready and ContainersReady, in that
 * order, then the conditions others own (PodScheduled, readiness gates) as
 * they were. A transition time moves only when the status does; kube sends
 * lastProbeTime as null.
 */
import type { PodCondition, PodObject } from '../objects.js';

/** The kubelet's conditions, in the order kube reports them; other conditions (PodScheduled, readiness gates) follow. */
const kubeletConditions = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady'];

/** The conditions of a pod whose sandbox is up, from the state of its containers. */
export function podConditions(
  pod: PodObject,
  old: readonly PodCondition[],
  s: { sandbox: boolean; initialized: boolean; incomplete: string[]; unready: string[]; t: string },
): PodCondition[] {
  const make = (type: string, ok: boolean, reason?: string, message?: string): PodCondition => {
    const prev = old.find((c) => c.type === type);
    const status = ok ? 'True' : 'False';
    const c: PodCondition = {
      type,
      status,
      // kube sends lastProbeTime as null.
      lastProbeTime: null as unknown as undefined,
      lastTransitionTime: prev?.status === status && prev.lastTransitionTime ? prev.lastTransitionTime : s.t,
    };
    return ok ? c : { ...c, reason, message };
  };
  const list = (names: string[]): string => `[${names.join(' ')}]`;
  const containersReady = s.initialized && s.unready.length === 0;
  const containersMessage = `containers with unready status: ${list(s.unready)}`;
  // Readiness gates: each named condition must be True.
  const unreadyMessages = containersReady ? [] : [containersMessage];
  for (const gate of pod.spec?.readinessGates ?? []) {
    const c = old.find((x) => x.type === gate.conditionType);
    if (!c) unreadyMessages.push(`corresponding condition of pod readiness gate ${JSON.stringify(gate.conditionType)} does not exist.`);
    else if (c.status !== 'True') unreadyMessages.push(`the status of pod readiness gate ${JSON.stringify(gate.conditionType)} is not "True", but ${c.status}`);
  }
  const others = old.filter((c) => !kubeletConditions.includes(c.type));
  if (!others.some((c) => c.type === 'PodScheduled')) others.push(make('PodScheduled', true));
  return [
    make('PodReadyToStartContainers', s.sandbox),
    make('Initialized', s.initialized, 'ContainersNotInitialized', `containers with incomplete status: ${list(s.incomplete)}`),
    make('Ready', unreadyMessages.length === 0, containersReady ? 'ReadinessGatesNotReady' : 'ContainersNotReady', unreadyMessages.join(', ')),
    make('ContainersReady', containersReady, 'ContainersNotReady', containersMessage),
    ...others,
  ];
}

/** The conditions of a pod whose containers all stopped (it ran to completion, or is being deleted); `reason` PodCompleted or PodFailed. */
export function terminatedConditions(old: readonly PodCondition[], t: string, reason = 'PodCompleted'): PodCondition[] {
  const completed = (type: string): PodCondition => ({ type, status: 'False', reason, lastProbeTime: null as unknown as undefined, lastTransitionTime: t });
  return [
    { type: 'PodReadyToStartContainers', status: 'False', lastProbeTime: null as unknown as undefined, lastTransitionTime: t },
    ...old.filter((c) => c.type === 'Initialized'),
    completed('Ready'),
    completed('ContainersReady'),
    ...old.filter((c) => !kubeletConditions.includes(c.type)),
  ];
}

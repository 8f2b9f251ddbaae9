/** kube's podutil.UpdatePodCondition on a wire pod, shared by the binding and eviction subresources. */
import { isJsonObject, type KubeObject } from '@operant/apimachinery';
import { nowTimestamp } from './object-meta.js';

type Json = Record<string, unknown>;

/**
 * Sets the pod condition of `condition.type` (in place): the transition time
 * moves only when the status changes; `lastProbeTime` is null as the server writes it.
 */
export function setPodCondition(pod: KubeObject, condition: { type: string; status: string; reason?: string; message?: string }): void {
  const status: Json = isJsonObject(pod.status) ? (pod.status as Json) : {};
  pod.status = status;
  const conditions = Array.isArray(status.conditions) ? (status.conditions as Json[]) : [];
  const i = conditions.findIndex((c) => c.type === condition.type);
  const old = i >= 0 ? conditions[i] : undefined;
  const next: Json = {
    type: condition.type,
    status: condition.status,
    lastProbeTime: null,
    lastTransitionTime: old?.status === condition.status ? old.lastTransitionTime : nowTimestamp(),
    ...(condition.reason !== undefined ? { reason: condition.reason } : {}),
    ...(condition.message !== undefined ? { message: condition.message } : {}),
  };
  if (i >= 0) conditions[i] = next;
  else conditions.push(next);
  status.conditions = conditions;
}

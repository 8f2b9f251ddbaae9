/**
 * Which pods a ReplicaSet gives up first when it shrinks (kube's
 * ActivePodsWithRanks): those that cost least to lose. In order: not yet on
 * a node, then Pending before Unknown before Running, not ready before
 * ready, a lower pod-deletion-cost, more of the set's pods on the same node,
 * ready more recently, more restarts, created more recently.
 */
import { timeOf } from '../clock.js';
import type { PodObject } from '../objects.js';
import { isPodReady, podReadyCondition } from '../pod/pod-util.js';

const phaseOrder: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };
const deletionCostAnnotation = 'controller.kubernetes.io/pod-deletion-cost';

function deletionCost(pod: PodObject): number {
  const v = pod.metadata.annotations?.[deletionCostAnnotation];
  return v !== undefined && /^-?\d+$/.test(v) ? Number(v) : 0;
}

function restarts(pod: PodObject): number {
  return Math.max(0, ...(pod.status?.containerStatuses ?? []).map((c) => c.restartCount ?? 0));
}

/** Negative when `a` should go before `b`. `rank` counts a pod's siblings on its node. */
function compare(a: PodObject, b: PodObject, rank: Map<PodObject, number>): number {
  const aNode = a.spec?.nodeName ?? '';
  const bNode = b.spec?.nodeName ?? '';
  if ((aNode === '') !== (bNode === '')) return aNode === '' ? -1 : 1;
  const ap = phaseOrder[a.status?.phase ?? ''] ?? 0;
  const bp = phaseOrder[b.status?.phase ?? ''] ?? 0;
  if (ap !== bp) return ap - bp;
  if (isPodReady(a) !== isPodReady(b)) return isPodReady(a) ? 1 : -1;
  if (deletionCost(a) !== deletionCost(b)) return deletionCost(a) - deletionCost(b);
  if (rank.get(a) !== rank.get(b)) return rank.get(b)! - rank.get(a)!;
  if (isPodReady(a) && isPodReady(b)) {
    const ar = timeOf(podReadyCondition(a)?.lastTransitionTime) ?? 0;
    const br = timeOf(podReadyCondition(b)?.lastTransitionTime) ?? 0;
    if (ar !== br) return br - ar;
  }
  if (restarts(a) !== restarts(b)) return restarts(b) - restarts(a);
  return (timeOf(b.metadata.creationTimestamp) ?? 0) - (timeOf(a.metadata.creationTimestamp) ?? 0);
}

/** The `count` pods to delete, cheapest first (kube's getPodsToDelete). */
export function podsToDelete(pods: readonly PodObject[], count: number): PodObject[] {
  if (count >= pods.length) return [...pods];
  const perNode = new Map<string, number>();
  for (const p of pods) if (p.spec?.nodeName) perNode.set(p.spec.nodeName, (perNode.get(p.spec.nodeName) ?? 0) + 1);
  const rank = new Map(pods.map((p) => [p, p.spec?.nodeName ? perNode.get(p.spec.nodeName)! : 0]));
  return [...pods].sort((a, b) => compare(a, b, rank)).slice(0, count);
}

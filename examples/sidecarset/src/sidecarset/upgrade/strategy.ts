/**
 * Which pods a rolling in-place upgrade takes next (Kruise's spreadingStrategy,
 * pkg/controller/sidecarset/sidecarset_strategy.go).
 *
 * Candidates are matched pods that are not updated and that
 * updateStrategy.selector selects. A candidate whose without-image hash
 * differs from the SidecarSet's needs more than an image change, which a
 * running pod cannot take: it is not upgradable. One whose sidecar is still
 * being restarted by an earlier upgrade waits. The rest are ordered
 * not-ready first, then as kube orders active pods, then spread by
 * `scatterStrategy` (scatter.ts); `partition` of them stay
 * behind; and `maxUnavailable` caps how many updated pods may be unavailable
 * (not ready, or a sidecar not yet running its image) at once. A candidate
 * that is not ready already costs nothing from that budget.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { labelSelectorFromObject } from '@operant/apimachinery';
import type { IntOrString } from '@operant/runtime';
import type { SidecarSet } from '../../api/v1alpha1/sidecarset-types.js';
import { podSidecarSetHash, SidecarSetHashWithoutImageAnnotation } from '../annotations.js';
import { expandScatterTerms, scatterOrder } from './scatter.js';
import { isContainerConsistent, isPodConsistent, isPodReady, isPodUpdated, isRunningAndReady } from '../status/status.js';

/** What one round of the upgrade does. */
export interface UpgradeRound<P extends Pod = Pod> {
  /** The pods to upgrade now, in order. */
  upgrade: P[];
  /** Candidates that need more than an image change (they get SidecarSetUpgradable=False). */
  notUpgradable: P[];
}

/**
 * Whether an in-place upgrade can bring the pod to the SidecarSet (only
 * images differ), and whether it can happen now (no sidecar is still
 * restarting from an earlier one). Kruise's IsSidecarSetUpgradable.
 */
export function upgradability(sidecarSet: SidecarSet, pod: Pod): { canUpgrade: boolean; consistent: boolean } {
  const name = sidecarSet.metadata?.name ?? '';
  const podHash = podSidecarSetHash(pod.metadata?.annotations, name, SidecarSetHashWithoutImageAnnotation);
  if (podHash !== (sidecarSet.metadata?.annotations?.[SidecarSetHashWithoutImageAnnotation] ?? '')) return { canUpgrade: false, consistent: false };
  const statuses = pod.status?.containerStatuses ?? [];
  for (const sidecar of sidecarSet.spec?.containers ?? []) {
    const ready = statuses.find((s) => s.name === sidecar.name)?.ready === true;
    if (ready && !isContainerConsistent(pod, sidecar.name)) return { canUpgrade: true, consistent: false };
  }
  return { canUpgrade: true, consistent: true };
}

/** The pods to upgrade in this round, from the SidecarSet's matched pods. */
export function nextUpgradePods<P extends Pod>(sidecarSet: SidecarSet, pods: readonly P[]): UpgradeRound<P> {
  const strategy = sidecarSet.spec?.updateStrategy;
  const selects = strategySelector(sidecarSet);
  const waiting: number[] = [];
  const notUpgradable: P[] = [];
  pods.forEach((pod, i) => {
    if (isPodUpdated(sidecarSet, pod) || !selects(pod)) return;
    const { canUpgrade, consistent } = upgradability(sidecarSet, pod);
    if (canUpgrade && consistent) waiting.push(i);
    else if (!canUpgrade) notUpgradable.push(pod);
  });
  waiting.sort((a, b) => compareActivePods(pods[a]!, pods[b]!));
  const order = strategy?.scatterStrategy ? scatterOrder(expandScatterTerms(strategy.scatterStrategy, pods), pods, waiting) : waiting;
  const inOrder = order.map((i) => pods[i]!);
  const count = upgradeCount(sidecarSet, inOrder, pods, strategy?.partition, strategy?.maxUnavailable);
  return { upgrade: inOrder.slice(0, count), notUpgradable };
}

/** updateStrategy.selector as a predicate (every pod when unset; none when it cannot be read, as Kruise). */
function strategySelector(sidecarSet: SidecarSet): (pod: Pod) => boolean {
  const selector = sidecarSet.spec?.updateStrategy?.selector;
  if (!selector) return () => true;
  try {
    const parsed = labelSelectorFromObject(selector);
    return (pod) => parsed.matches(pod.metadata?.labels ?? {});
  } catch {
    return () => false;
  }
}

/** How many of the waiting pods (in order) this round takes (Kruise's calculateUpgradeCount). */
function upgradeCount(sidecarSet: SidecarSet, waiting: readonly Pod[], pods: readonly Pod[], partition: IntOrString | undefined, maxUnavailable: IntOrString | undefined): number {
  const total = pods.length;
  const keep = partitionCount(partition, total);
  if (waiting.length - keep <= 0) return 0;
  const eligible = waiting.slice(0, waiting.length - keep);
  const budget = maxUnavailable === undefined ? 1 : (scaledValue(maxUnavailable, total) ?? 0);
  let unavailable = pods.filter((p) => isPodUpdated(sidecarSet, p) && (!isPodConsistent(p, sidecarSet) || !isRunningAndReady(p))).length;
  let count = 0;
  for (const pod of eligible) {
    if (!isRunningAndReady(pod)) {
      count++;
      continue;
    }
    if (unavailable >= budget) break;
    unavailable++;
    count++;
  }
  return count;
}

/**
 * How many pods stay on the old version (Kruise's CalculatePartitionReplicas):
 * a percentage rounds up, so "10%" of 5 keeps one; but short of "100%" at
 * least one pod of several is upgraded. Between 0 and the pod count.
 */
export function partitionCount(partition: IntOrString | undefined, total: number): number {
  if (partition === undefined) return 0;
  const replicas = total;
  let value = scaledValue(partition, replicas) ?? 0;
  if (replicas > 1 && value === replicas && typeof partition === 'string' && partition !== '100%') value = replicas - 1;
  return Math.max(Math.min(value, replicas), 0);
}

/**
 * An int-or-string against a total, percentages rounded up
 * (intstr.GetScaledValueFromIntOrPercent); undefined for a string that is
 * not a percentage, which Kruise reads as 0.
 */
export function scaledValue(value: IntOrString, total: number): number | undefined {
  if (typeof value === 'number') return value;
  const m = /^(-?\d+)%$/.exec(value);
  if (!m) return undefined;
  return Math.ceil((Number(m[1]) * total) / 100);
}

const phaseOrder: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

/**
 * kube's ActivePods order (pkg/controller.ActivePods.Less), the pods to act on
 * first before: unscheduled, then Pending < Unknown < Running, not ready,
 * ready for less time, more container restarts, newer.
 */
export function compareActivePods(a: Pod, b: Pod): number {
  const na = a.spec?.nodeName ?? '';
  const nb = b.spec?.nodeName ?? '';
  if (na !== nb && (na === '' || nb === '')) return na === '' ? -1 : 1;
  const pa = phaseOrder[a.status?.phase ?? ''] ?? 0;
  const pb = phaseOrder[b.status?.phase ?? ''] ?? 0;
  if (pa !== pb) return pa - pb;
  const ra = isPodReady(a);
  const rb = isPodReady(b);
  if (ra !== rb) return ra ? 1 : -1;
  if (ra && rb) {
    const byReadyTime = afterOrZero(readySince(a), readySince(b));
    if (byReadyTime !== 0) return byReadyTime;
  }
  const ca = maxRestarts(a);
  const cb = maxRestarts(b);
  if (ca !== cb) return cb - ca;
  return afterOrZero(a.metadata?.creationTimestamp, b.metadata?.creationTimestamp);
}

/** -1 when `a` should come first: a missing time first, then the later one. 0 when equal. */
function afterOrZero(a: string | undefined, b: string | undefined): number {
  const ta = a ? Date.parse(a) : 0;
  const tb = b ? Date.parse(b) : 0;
  if (ta === tb) return 0;
  if (ta === 0 || tb === 0) return ta === 0 ? -1 : 1;
  return ta > tb ? -1 : 1;
}

function readySince(pod: Pod): string | undefined {
  return pod.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'True')?.lastTransitionTime;
}

function maxRestarts(pod: Pod): number {
  return Math.max(0, ...(pod.status?.containerStatuses ?? []).map((s) => s.restartCount ?? 0));
}

/**
 * The pod garbage collector (kube's podgc controller), every 20 s of
 * cluster time:
 *
 * - pods bound to a node that no longer exists (checked again after a 40 s
 *   quarantine, against the server, as kube does) are marked Failed with a
 *   DisruptionTarget condition (`DeletionByPodGC`) and deleted at once;
 * - once more than `terminatedPodThreshold` pods have terminated (Succeeded
 *   or Failed; kube's --terminated-pod-gc-threshold, 12500), the oldest of
 *   them are deleted down to it.
 */
import { isNotFound, Node, Pod, type Clock, type Manager } from '@operant/runtime';
import { rfc3339, timeOf, wallClock } from '../clock.js';
import type { PodObject } from '../objects.js';
import { addPeriodicPass } from '../periodic.js';

/** Options of {@link addPodGarbageCollector}. */
export interface PodGcOptions {
  /** Cluster time; default the wall clock. */
  clock?: Clock;
  /** How many terminated pods are kept; default 12500 (kube's). */
  terminatedPodThreshold?: number;
}

const gcPeriodMs = 20_000;
const quarantineMs = 40_000;

/**
 * Adds the pod garbage collector to a manager (it runs on the leader only).
 *
 * @example
 * ```ts
 * import { addPodGarbageCollector } from '@operant/controllers';
 * import { handleSignals, Manager } from '@operant/runtime';
 *
 * const mgr = await Manager.create({ client: { readYourWrites: true } });
 * addPodGarbageCollector(mgr, { terminatedPodThreshold: 100 });
 * await mgr.start(handleSignals());
 * ```
 */
export function addPodGarbageCollector(mgr: Manager, options: PodGcOptions = {}): void {
  const clock = options.clock ?? wallClock;
  const threshold = options.terminatedPodThreshold ?? 12_500;
  /** Pods whose node was missing, by uid: since when (cluster time). */
  const orphanSince = new Map<string, number>();
  addPeriodicPass(mgr, { clock, periodMs: gcPeriodMs, immediately: false, failure: 'pod garbage collection failed' }, () => collect(mgr, clock.now(), threshold, orphanSince));
}

async function collect(mgr: Manager, now: number, threshold: number, orphanSince: Map<string, number>): Promise<void> {
  const pods = (await mgr.client.list(Pod, { unsafeDisableDeepCopy: true })).items as PodObject[];
  const nodes = new Set((await mgr.client.list(Node, { unsafeDisableDeepCopy: true })).items.map((n) => n.metadata.name));
  const seen = new Set<string>();
  for (const pod of pods) {
    const nodeName = pod.spec?.nodeName;
    if (!nodeName || nodes.has(nodeName)) continue;
    const uid = pod.metadata.uid!;
    seen.add(uid);
    const since = orphanSince.get(uid) ?? now;
    orphanSince.set(uid, since);
    if (now - since < quarantineMs) continue;
    // The cache may lag: ask the server whether the node is really gone.
    const exists = await mgr.apiReader.get(Node, nodeName).then(() => true, (err: unknown) => (isNotFound(err) ? false : Promise.reject(err)));
    if (exists) continue;
    await deleteOrphan(mgr, pod, now);
    orphanSince.delete(uid);
  }
  for (const uid of orphanSince.keys()) if (!seen.has(uid)) orphanSince.delete(uid);

  const terminated = pods.filter((p) => (p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') && !p.metadata.deletionTimestamp);
  const excess = terminated.length - threshold;
  if (excess <= 0) return;
  terminated.sort((a, b) => (timeOf(a.metadata.creationTimestamp) ?? 0) - (timeOf(b.metadata.creationTimestamp) ?? 0));
  for (const pod of terminated.slice(0, excess)) await forceDelete(mgr, pod);
}

async function deleteOrphan(mgr: Manager, pod: PodObject, now: number): Promise<void> {
  if (pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed') {
    const conditions = (pod.status?.conditions ?? []).filter((c) => c.type !== 'DisruptionTarget');
    conditions.push({ type: 'DisruptionTarget', status: 'True', reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists', lastTransitionTime: rfc3339(now) });
    await mgr.client.updateStatus(Pod, { ...pod, status: { ...pod.status, phase: 'Failed', conditions } }).catch((err: unknown) => {
      if (!isNotFound(err)) throw err;
    });
  }
  await forceDelete(mgr, pod);
}

async function forceDelete(mgr: Manager, pod: PodObject): Promise<void> {
  try {
    await mgr.client.delete(Pod, pod.metadata.name!, { namespace: pod.metadata.namespace, gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid! } });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

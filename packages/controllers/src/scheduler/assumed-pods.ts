/**
 * Pods this scheduler has placed but the cache does not show bound yet (kube's
 * scheduler cache "assumes" them, from the decision on, while the binding is
 * still on its way). Until the cache shows them bound, they count on their
 * node, so that the next pods, scheduled before the watch catches up, see the
 * room they took. A pod is forgotten when the cache shows it bound, when its
 * binding fails, or (as kube's assumed-pod expiry) a while after its binding
 * was sent without the cache ever showing it: deleted meanwhile.
 */
import type { PodObject } from '../objects.js';

/** How long a placed pod counts on its node without the cache showing it bound (kube's binding TTL is 30 s). */
const assumedTtlMs = 30_000;

export class AssumedPods {
  private readonly byUid = new Map<string, { pod: PodObject; at: number }>();

  /** Counts `pod` on `node` from now on. */
  assume(pod: PodObject, node: string, now: number): void {
    this.byUid.set(pod.metadata.uid!, { pod: { ...pod, spec: { ...pod.spec!, nodeName: node } }, at: now });
  }

  /** Stops counting a pod (its binding failed). */
  forget(uid: string | undefined): void {
    if (uid !== undefined) this.byUid.delete(uid);
  }

  has(uid: string | undefined): boolean {
    return uid !== undefined && this.byUid.has(uid);
  }

  /**
   * Forgets the pods that the cache (all pods, as `cached`) shows bound, and
   * those assumed longer ago than the TTL. A pod missing from `cached` is kept:
   * a snapshot taken before the pod reached the cache does not have it yet.
   */
  settle(cached: readonly PodObject[], now: number): void {
    if (this.byUid.size === 0) return;
    const bound = new Set<string>();
    for (const p of cached) if (p.spec?.nodeName && p.metadata.uid && this.byUid.has(p.metadata.uid)) bound.add(p.metadata.uid);
    for (const [uid, { at }] of this.byUid) {
      if (bound.has(uid) || now - at > assumedTtlMs) this.byUid.delete(uid);
    }
  }

  /** The assumed pods, bound to their node. */
  pods(): PodObject[] {
    return [...this.byUid.values()].map((a) => a.pod);
  }
}

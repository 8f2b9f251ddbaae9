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
   * Forgets the pods that the cache (`cached`, a pod's current object by the
   * assumed one) shows bound, and those assumed longer ago than the TTL. A pod
   * the cache does not have is kept: it may not have reached the cache yet.
   */
  settle(cached: (assumed: PodObject) => PodObject | undefined, now: number): void {
    for (const [uid, { pod, at }] of this.byUid) {
      const current = cached(pod);
      if ((current?.metadata.uid === uid && current.spec?.nodeName) || now - at > assumedTtlMs) this.byUid.delete(uid);
    }
  }

  /** The assumed pods, bound to their node. */
  pods(): PodObject[] {
    return [...this.byUid.values()].map((a) => a.pod);
  }
}

/**
 * Pods this scheduler has bound but the cache does not show bound yet (kube's
 * scheduler cache "assumes" them). Until it does, they count on their node,
 * so that the next pods, scheduled before the watch catches up, see the room
 * they took.
 */
import type { PodObject } from '../objects.js';

export class AssumedPods {
  private readonly byUid = new Map<string, PodObject>();

  /** Counts `pod` on `node` from now on. */
  assume(pod: PodObject, node: string): void {
    this.byUid.set(pod.metadata.uid!, { ...pod, spec: { ...pod.spec!, nodeName: node } });
  }

  has(uid: string | undefined): boolean {
    return uid !== undefined && this.byUid.has(uid);
  }

  /** Forgets the pods that the cache (all pods, as `cached`) shows bound, or no longer has. */
  settle(cached: readonly PodObject[]): void {
    if (this.byUid.size === 0) return;
    const now = new Map(cached.map((p) => [p.metadata.uid, p]));
    for (const uid of this.byUid.keys()) {
      const p = now.get(uid);
      if (!p || p.spec?.nodeName) this.byUid.delete(uid);
    }
  }

  /** The assumed pods, bound to their node. */
  pods(): PodObject[] {
    return [...this.byUid.values()];
  }
}

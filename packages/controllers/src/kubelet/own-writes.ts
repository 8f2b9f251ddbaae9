/**
 * The kubelet's own pod status writes, remembered by pod key until their
 * watch event comes back, so that the event brings no second sync (kube's
 * pod config hands a status-only change on as a reconcile, not an update).
 *
 * A write is remembered with the resourceVersion it was conditional on and
 * the status sent, and once answered with the resourceVersion it made. The
 * object at that resourceVersion is exactly what the sync settled on. The
 * event may come before the answer: then it is ours when it follows the
 * version we wrote on, carries the status we sent, and changes nothing the
 * kubelet acts on (kube's podsDifferSemantically: spec, labels, annotations,
 * deletionTimestamp, deletionGracePeriodSeconds). The last check matters
 * after a relist: the informer then reports the jump from the version we
 * wrote on to the newest one, which carries our status and may carry
 * someone else's later change too (a deletion, a new image).
 */
import { jsonEqual } from '@operant/apimachinery';
import type { PodObject } from '../objects.js';

/** One status write in flight or answered. */
export interface OwnWrite {
  /** The resourceVersion the write was conditional on. */
  readonly base: string;
  /** The status sent. */
  readonly status: PodObject['status'];
  /** The resourceVersion the write made, once answered. */
  written?: string;
}

export class OwnStatusWrites {
  private readonly writes = new Map<string, OwnWrite>();

  /** A status write of `pod` (as read, at its resourceVersion) about to be sent with `status`. */
  sending(key: string, base: string, status: PodObject['status']): OwnWrite {
    const write: OwnWrite = { base, status };
    this.writes.set(key, write);
    return write;
  }

  /** The server's answer to `write`: its resourceVersion, unless its event already came (or a later sync began). */
  answered(key: string, write: OwnWrite, resourceVersion: string | undefined): void {
    if (this.writes.get(key) === write) write.written = resourceVersion;
  }

  /** Nothing of ours is awaited for the pod (a sync begins, a write failed). */
  forget(key: string): void {
    this.writes.delete(key);
  }

  /** Whether the update from `old` to `pod` is our own write coming back (then it is forgotten). */
  isOwn(old: PodObject, pod: PodObject): boolean {
    const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
    const own = this.writes.get(key);
    if (!own) return false;
    const ours =
      own.written !== undefined
        ? own.written === pod.metadata.resourceVersion
        : own.base === old.metadata.resourceVersion && jsonEqual(pod.status ?? {}, own.status ?? {}) && !podsDifferSemantically(old, pod);
    if (ours) this.writes.delete(key);
    return ours;
  }
}

/** kube's podsDifferSemantically (pkg/kubelet/config): whether the change is one the kubelet acts on; the uid too (a pod made again under the same name). */
function podsDifferSemantically(a: PodObject, b: PodObject): boolean {
  const ma = a.metadata;
  const mb = b.metadata;
  return (
    ma.uid !== mb.uid ||
    ma.deletionTimestamp !== mb.deletionTimestamp ||
    ma.deletionGracePeriodSeconds !== mb.deletionGracePeriodSeconds ||
    !jsonEqual(ma.labels ?? {}, mb.labels ?? {}) ||
    !jsonEqual(ma.annotations ?? {}, mb.annotations ?? {}) ||
    !jsonEqual(a.spec ?? {}, b.spec ?? {})
  );
}

/**
 * Tombstones: what a delete notification carries when the informer did not see
 * the deletion itself. After a relist (a 410 during a watch gap) the objects
 * that vanished meanwhile are reported with the last state the cache held,
 * which may be stale (client-go's DeletedFinalStateUnknown).
 */
import type { KubeObject } from '@operant/apimachinery';

/**
 * A deletion observed only as an absence in a relist.
 *
 * @example
 * ```ts
 * import { isTombstone, objectKey } from '@operant/runtime/cache';
 * import { WorkQueue } from '@operant/runtime/workqueue';
 *
 * const queue = new WorkQueue<string>();
 * informer.addEventHandler({
 *   delete(obj) {
 *     const pod = isTombstone(obj) ? obj.lastKnown : obj;
 *     queue.add(objectKey(pod));
 *   },
 * });
 * ```
 */
export interface Tombstone<T extends KubeObject> {
  /** The cache key of the deleted object. */
  readonly key: string;
  /** The object as the cache last held it; its final state is unknown. */
  readonly lastKnown: T;
}

/**
 * True for a {@link Tombstone}, false for an object.
 *
 * @example
 * ```ts
 * import { isTombstone } from '@operant/runtime/cache';
 *
 * informer.addEventHandler({
 *   delete: (deleted) => console.log(isTombstone(deleted) ? deleted.lastKnown.metadata.name : deleted.metadata.name),
 * });
 * ```
 */
export function isTombstone<T extends KubeObject>(value: T | Tombstone<T>): value is Tombstone<T> {
  return typeof (value as Tombstone<T>).key === 'string' && 'lastKnown' in value && !('metadata' in value);
}

/**
 * The object of a delete notification, whether it came as an object or as a tombstone.
 *
 * @example
 * ```ts
 * import { deletedObject, objectKey } from '@operant/runtime/cache';
 * import { WorkQueue } from '@operant/runtime/workqueue';
 *
 * const queue = new WorkQueue<string>();
 * informer.addEventHandler({ delete: (d) => queue.add(objectKey(deletedObject(d))) });
 * ```
 */
export function deletedObject<T extends KubeObject>(value: T | Tombstone<T>): T {
  return isTombstone(value) ? value.lastKnown : value;
}

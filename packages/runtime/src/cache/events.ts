/**
 * What an informer tells its consumers, in two equivalent shapes: handler
 * callbacks (the sample-controller style) and event values (for async iteration).
 */
import type { KubeObject } from '@operant/apimachinery';
import type { Tombstone } from './tombstone.js';

/**
 * One change to the cache.
 * - `add`: a new key; `isInInitialList` is true for the first list and for the
 *   replay a late subscriber gets.
 * - `update`: a changed object, or with `resync: true` a periodic re-delivery
 *   of an unchanged one (`oldObject === object`).
 * - `delete`: the final state from a watch, or a {@link Tombstone} when the
 *   deletion was only noticed by a relist.
 *
 * @example
 * ```ts
 * import { deletedObject, objectKey } from '@operant/runtime/cache';
 *
 * for await (const ev of informer.events()) {
 *   if (ev.type === 'delete') console.log('gone', objectKey(deletedObject(ev.object)));
 * }
 * ```
 */
export type InformerEvent<T extends KubeObject> =
  | { type: 'add'; object: T; isInInitialList: boolean }
  | { type: 'update'; oldObject: T; object: T; resync?: boolean }
  | { type: 'delete'; object: T | Tombstone<T> };

/**
 * Callbacks for cache changes; each is optional. They run synchronously, in
 * order, after the cache has been updated; keep them short (enqueue a key).
 * An exception is logged and does not disturb the informer or other handlers.
 *
 * @example
 * ```ts
 * import { deletedObject, objectKey } from '@operant/runtime/cache';
 * import { WorkQueue } from '@operant/runtime/workqueue';
 *
 * const queue = new WorkQueue<string>();
 * informer.addEventHandler({
 *   add: (pod) => queue.add(objectKey(pod)),
 *   update: (_old, pod) => queue.add(objectKey(pod)),
 *   delete: (pod) => queue.add(objectKey(deletedObject(pod))),
 * });
 * ```
 */
export interface EventHandler<T extends KubeObject> {
  add?(obj: T, isInInitialList: boolean): void;
  update?(oldObj: T, newObj: T): void;
  delete?(obj: T | Tombstone<T>): void;
}

/**
 * A registered handler.
 *
 * @example
 * ```ts
 * const registration = informer.addEventHandler({ add: (pod) => console.log('added', pod.metadata.name) });
 * registration.remove();
 * ```
 */
export interface HandlerRegistration {
  /** True once this handler has been given the whole initial state. */
  hasSynced(): boolean;
  /** Stops deliveries to this handler. */
  remove(): void;
}

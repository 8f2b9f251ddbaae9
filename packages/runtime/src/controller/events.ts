/**
 * The four events a controller's watches see, as controller-runtime's
 * `pkg/event` names them. Predicates filter them; handlers turn them into
 * requests. Informer adds, updates and deletes become create, update and
 * delete events; generic events come from sources that are not informers.
 */
import type { KubeObject } from '@operant/apimachinery';

/**
 * An object appeared in the cache.
 *
 * @example
 * ```ts
 * const onCreate = (e: CreateEvent<ConfigMapObject>) => !e.isInInitialList;
 * ```
 */
export interface CreateEvent<T extends KubeObject> {
  readonly object: T;
  /** True for objects delivered by the informer's first list (or replayed to a late handler). */
  readonly isInInitialList: boolean;
}

/**
 * An object changed. A periodic resync delivers an update whose `oldObject`
 * is the same value as `object`.
 *
 * @example
 * ```ts
 * const specChanged = (e: UpdateEvent<DeploymentObject>) => e.oldObject.metadata.generation !== e.object.metadata.generation;
 * ```
 */
export interface UpdateEvent<T extends KubeObject> {
  readonly oldObject: T;
  readonly object: T;
}

/**
 * An object was deleted. When the deletion was only noticed by a relist,
 * `object` is the last state the cache held and `deleteStateUnknown` is true.
 *
 * @example
 * ```ts
 * const onDelete = (e: DeleteEvent<SecretObject>) => !e.deleteStateUnknown;
 * ```
 */
export interface DeleteEvent<T extends KubeObject> {
  readonly object: T;
  readonly deleteStateUnknown: boolean;
}

/**
 * An object from a source outside the cache (see {@link channelSource}).
 *
 * @example
 * ```ts
 * const onGeneric = (e: GenericEvent<KubeObject>) => e.object.metadata.namespace === 'default';
 * ```
 */
export interface GenericEvent<T extends KubeObject> {
  readonly object: T;
}

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
 * import type * as corev1 from 'kubernetes-types/core/v1.js';
 * import type { CreateEvent, Typed } from '@operant/runtime';
 *
 * const onCreate = (e: CreateEvent<Typed<corev1.ConfigMap>>) => !e.isInInitialList;
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
 * import type * as appsv1 from 'kubernetes-types/apps/v1.js';
 * import type { Typed, UpdateEvent } from '@operant/runtime';
 *
 * const specChanged = (e: UpdateEvent<Typed<appsv1.Deployment>>) => e.oldObject.metadata.generation !== e.object.metadata.generation;
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
 * import type * as corev1 from 'kubernetes-types/core/v1.js';
 * import type { DeleteEvent, Typed } from '@operant/runtime';
 *
 * const onDelete = (e: DeleteEvent<Typed<corev1.Secret>>) => !e.deleteStateUnknown;
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
 * import type { GenericEvent, KubeObject } from '@operant/runtime';
 *
 * const onGeneric = (e: GenericEvent<KubeObject>) => e.object.metadata.namespace === 'default';
 * ```
 */
export interface GenericEvent<T extends KubeObject> {
  readonly object: T;
}

/**
 * Transforms run on every object before it is cached, so fields nobody reads
 * (managedFields, large annotations, status details) do not cost memory.
 */
import type { KubeObject } from '@operant/apimachinery';

/**
 * Rewrites an object before it is cached. It may mutate and return its argument
 * (the informer owns the decoded object), and must keep `metadata.name`,
 * `metadata.namespace` and `metadata.resourceVersion`.
 *
 * @example
 * ```ts
 * import type * as corev1 from 'kubernetes-types/core/v1.js';
 * import type { Transform, Typed } from '@operant/runtime';
 *
 * const dropStatus: Transform<Typed<corev1.Pod>> = ({ status: _status, ...pod }) => pod;
 * ```
 */
export type Transform<T extends KubeObject> = (obj: T) => T;

/**
 * Removes `metadata.managedFields`, usually the largest part of an object's metadata.
 *
 * @example
 * ```ts
 * import { Pod } from '@operant/runtime';
 * import { dropManagedFields, Informer } from '@operant/runtime/cache';
 *
 * const informer = new Informer(client.listerWatcher(Pod), { transform: dropManagedFields });
 * ```
 */
export function dropManagedFields<T extends KubeObject>(obj: T): T {
  if (obj.metadata.managedFields === undefined) return obj;
  // A copy without them rather than `delete`: deleting a property that is not the last turns the
  // object into a hash table (V8's dictionary mode), several times its size, in every cached object.
  const { managedFields: _dropped, ...metadata } = obj.metadata;
  obj.metadata = metadata;
  return obj;
}

/**
 * Runs transforms left to right.
 *
 * @example
 * ```ts
 * import { type KubeObject, type Transform } from '@operant/runtime';
 * import { composeTransforms, dropManagedFields } from '@operant/runtime/cache';
 *
 * const dropLastApplied: Transform<KubeObject> = (obj) => {
 *   delete obj.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'];
 *   return obj;
 * };
 * const transform = composeTransforms(dropManagedFields, dropLastApplied);
 * ```
 */
export function composeTransforms<T extends KubeObject>(...transforms: Transform<T>[]): Transform<T> {
  return (obj) => transforms.reduce((acc, t) => t(acc), obj);
}

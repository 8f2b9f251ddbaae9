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
 * const dropStatus: Transform<PodObject> = (pod) => { delete pod.status; return pod; };
 * ```
 */
export type Transform<T extends KubeObject> = (obj: T) => T;

/**
 * Removes `metadata.managedFields`, usually the largest part of an object's metadata.
 *
 * @example
 * ```ts
 * const informer = new Informer(podsListerWatcher, { transform: dropManagedFields });
 * ```
 */
export function dropManagedFields<T extends KubeObject>(obj: T): T {
  delete obj.metadata.managedFields;
  return obj;
}

/**
 * Runs transforms left to right.
 *
 * @example
 * ```ts
 * const transform = composeTransforms(dropManagedFields, dropLastAppliedAnnotation);
 * ```
 */
export function composeTransforms<T extends KubeObject>(...transforms: Transform<T>[]): Transform<T> {
  return (obj) => transforms.reduce((acc, t) => t(acc), obj);
}

/**
 * Field indexes (controller-runtime's FieldIndexer): an index per field,
 * named `field:<field>`, whose values carry the object's namespace, so one
 * index answers both "pods on node-1 in namespace a" (`a/node-1`) and "pods on
 * node-1 anywhere" (`__all_namespaces/node-1`).
 */
import type { KubeObject } from '@operant/apimachinery';
import type { IndexFunc } from './indexes.js';

/**
 * Extracts the values of one field of an object (none, one or several), e.g. `spec.nodeName`.
 *
 * @example
 * ```ts
 * import type * as corev1 from 'kubernetes-types/core/v1.js';
 * import type { FieldExtractor, Typed } from '@operant/runtime';
 *
 * const nodeName: FieldExtractor<Typed<corev1.Pod>> = (pod) => (pod.spec?.nodeName ? [pod.spec.nodeName] : []);
 * ```
 */
export type FieldExtractor<T extends KubeObject> = (obj: T) => readonly string[];

/**
 * The namespace part of index values that match in every namespace.
 *
 * @example
 * ```ts
 * import { allNamespacesKey, fieldIndexName } from '@operant/runtime/cache';
 *
 * informer.store.byIndex(fieldIndexName('spec.nodeName'), `${allNamespacesKey}/node-1`); // = namespacedIndexValue(undefined, 'node-1')
 * ```
 */
export const allNamespacesKey = '__all_namespaces';

/**
 * The store index name of a field index.
 *
 * @example
 * ```ts
 * import { fieldIndexName } from '@operant/runtime/cache';
 *
 * fieldIndexName('spec.nodeName'); // 'field:spec.nodeName'
 * ```
 */
export function fieldIndexName(field: string): string {
  return `field:${field}`;
}

/**
 * An index value scoped to a namespace, or to all namespaces when there is none.
 *
 * @example
 * ```ts
 * import { namespacedIndexValue } from '@operant/runtime/cache';
 *
 * namespacedIndexValue('default', 'node-1'); // 'default/node-1'
 * namespacedIndexValue(undefined, 'node-1'); // '__all_namespaces/node-1'
 * ```
 */
export function namespacedIndexValue(namespace: string | undefined, value: string): string {
  return `${namespace || allNamespacesKey}/${value}`;
}

/**
 * Turns a field extractor into a store index function: each value is indexed
 * under the object's namespace and, for namespaced objects, under all namespaces too.
 *
 * @example
 * ```ts
 * import { fieldIndexFunc, fieldIndexName, namespacedIndexValue } from '@operant/runtime/cache';
 *
 * informer.store.addIndexer(fieldIndexName('spec.nodeName'), fieldIndexFunc((pod) => [pod.spec?.nodeName ?? '']));
 * informer.store.byIndex(fieldIndexName('spec.nodeName'), namespacedIndexValue(undefined, 'node-1'));
 * ```
 */
export function fieldIndexFunc<T extends KubeObject>(extract: FieldExtractor<T>): IndexFunc<T> {
  return (obj) => {
    const namespace = obj.metadata.namespace;
    const raw = extract(obj);
    const out: string[] = [];
    for (const value of raw) out.push(namespacedIndexValue(namespace, value));
    if (namespace) for (const value of raw) out.push(namespacedIndexValue(undefined, value));
    return out;
  };
}

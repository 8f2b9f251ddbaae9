/**
 * Cache keys: `namespace/name` for namespaced objects, `name` for cluster-scoped
 * ones (client-go's MetaNamespaceKeyFunc), so keys double as work-queue keys.
 */
import type { KubeObject } from '@operant/apimachinery';

/**
 * The cache key of an object.
 *
 * @example
 * ```ts
 * import { objectKey } from '@operant/runtime/cache';
 *
 * objectKey({ metadata: { namespace: 'default', name: 'web' } }); // 'default/web'
 * objectKey({ metadata: { name: 'node-1' } });                    // 'node-1'
 * ```
 */
export function objectKey(obj: Pick<KubeObject, 'metadata'>): string {
  const { namespace, name } = obj.metadata;
  if (!name) throw new Error('object has no metadata.name: cannot compute its cache key');
  return namespace ? `${namespace}/${name}` : name;
}

/**
 * The cache key of a namespace and name.
 *
 * @example
 * ```ts
 * import { keyFor } from '@operant/runtime/cache';
 *
 * keyFor('default', 'web'); // 'default/web'
 * keyFor(undefined, 'node-1'); // 'node-1'
 * ```
 */
export function keyFor(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/**
 * Splits a cache key into namespace (absent for cluster-scoped keys) and name.
 *
 * @example
 * ```ts
 * import { splitKey } from '@operant/runtime/cache';
 *
 * splitKey('default/web'); // { namespace: 'default', name: 'web' }
 * splitKey('node-1');      // { name: 'node-1' }
 * ```
 */
export function splitKey(key: string): { namespace?: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

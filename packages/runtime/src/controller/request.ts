/**
 * What a controller reconciles: the namespace and name of one object, and the
 * string keys that stand for them in the work queue (`namespace/name`, or
 * `name` for cluster-scoped objects, the same keys the informer cache uses).
 */
import type { KubeObject } from '@operant/apimachinery';

/**
 * One object to reconcile. `namespace` is `''` for cluster-scoped objects.
 * A request names an object, it does not carry it: read the current state
 * from the cache or the server when reconciling.
 *
 * @example
 * ```ts
 * import { ConfigMap, type Request } from '@operant/runtime'; // not the global fetch Request
 *
 * const req: Request = { namespace: 'default', name: 'web' };
 * const cm = await client.get(ConfigMap, req.name, { namespace: req.namespace });
 * ```
 */
export interface Request {
  namespace: string;
  name: string;
}

/**
 * The work-queue key of a request: `namespace/name`, or `name` when the namespace is empty.
 *
 * @example
 * ```ts
 * import { requestKey } from '@operant/runtime';
 *
 * requestKey({ namespace: 'default', name: 'web' }); // 'default/web'
 * requestKey({ namespace: '', name: 'node-1' });     // 'node-1'
 * ```
 */
export function requestKey(req: Request): string {
  if (!req.name) throw new TypeError('a reconcile request needs a name');
  return req.namespace ? `${req.namespace}/${req.name}` : req.name;
}

/**
 * The request a work-queue key stands for (the inverse of {@link requestKey}).
 *
 * @example
 * ```ts
 * import { requestFromKey } from '@operant/runtime';
 *
 * requestFromKey('default/web'); // { namespace: 'default', name: 'web' }
 * requestFromKey('node-1');      // { namespace: '', name: 'node-1' }
 * ```
 */
export function requestFromKey(key: string): Request {
  const slash = key.indexOf('/');
  return slash < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/**
 * The request for an object itself.
 *
 * @example
 * ```ts
 * import { requestFor } from '@operant/runtime';
 *
 * requestFor({ metadata: { namespace: 'default', name: 'web' } }); // { namespace: 'default', name: 'web' }
 * ```
 */
export function requestFor(obj: Pick<KubeObject, 'metadata'>): Request {
  const { namespace, name } = obj.metadata;
  if (!name) throw new TypeError('object has no metadata.name: cannot make a reconcile request for it');
  return { namespace: namespace ?? '', name };
}


/**
 * Event handlers: what turns a watched object into requests for the
 * controller (controller-runtime's `pkg/handler`). Each handler is a mapper
 * from one object to the requests it concerns: the object itself (`For`), its
 * controlling owner (`Owns`), or whatever a mapping function says (`Watches`).
 * An update maps both the old and the new object, so a changed owner or a
 * changed mapping reaches both the former and the current target.
 */
import { parseApiVersion, type KubeObject } from '@operant/apimachinery';
import type { Kind } from '../kind.js';
import { requestFor, requestKey, type Request } from './request.js';

/**
 * Maps one object to the requests it should trigger.
 *
 * @example
 * ```ts
 * import type * as corev1 from 'kubernetes-types/core/v1.js';
 * import type { RequestMapper, Typed } from '@operant/runtime';
 *
 * const toNamespace: RequestMapper<Typed<corev1.Pod>> = (pod) => [{ namespace: '', name: pod.metadata.namespace ?? '' }];
 * ```
 */
export type RequestMapper<T extends KubeObject> = (obj: T) => Iterable<Request>;

/**
 * Enqueues the object itself (controller-runtime's `EnqueueRequestForObject`); what `.for(kind)` uses.
 *
 * @example
 * ```ts
 * import { enqueueObject } from '@operant/runtime';
 *
 * enqueueObject()({ metadata: { namespace: 'default', name: 'web' } }); // [{ namespace: 'default', name: 'web' }]
 * ```
 */
export function enqueueObject<T extends KubeObject>(): RequestMapper<T> {
  return (obj) => [requestFor(obj)];
}

/**
 * Options of {@link enqueueOwner}.
 *
 * @example
 * ```ts
 * import type { EnqueueOwnerOptions } from '@operant/runtime';
 *
 * const options: EnqueueOwnerOptions = { onlyController: false };
 * ```
 */
export interface EnqueueOwnerOptions {
  /** Follow only the owner reference with `controller: true` (default true); false follows every owner of the kind. */
  onlyController?: boolean;
}

/**
 * Enqueues the owners of kind `ownerKind` named in the object's
 * `ownerReferences` (controller-runtime's `EnqueueRequestForOwner`); what
 * `.owns(kind)` uses. References match on group and kind, not version. A
 * namespaced owner is looked for in the object's namespace (owner references
 * never cross namespaces); a cluster-scoped owner has an empty namespace.
 *
 * @example
 * ```ts
 * import { defineKind, Deployment, enqueueOwner } from '@operant/runtime';
 *
 * const Foo = defineKind({ group: 'samplecontroller.k8s.io', version: 'v1alpha1', kind: 'Foo', plural: 'foos', namespaced: true });
 * const toFoo = enqueueOwner(Foo);
 * const deployment = await client.get(Deployment, 'example-foo', { namespace: 'default' });
 * toFoo(deployment); // [{ namespace: 'default', name: 'example-foo' }] when a Foo controls it
 * ```
 */
export function enqueueOwner<T extends KubeObject>(ownerKind: Kind, options: EnqueueOwnerOptions = {}): RequestMapper<T> {
  const onlyController = options.onlyController ?? true;
  return (obj) => {
    const requests: Request[] = [];
    for (const ref of obj.metadata.ownerReferences ?? []) {
      if (onlyController && ref.controller !== true) continue;
      if (ref.kind !== ownerKind.kind || !ref.name) continue;
      if (groupOf(ref.apiVersion) !== ownerKind.group) continue;
      requests.push({ namespace: ownerKind.namespaced ? (obj.metadata.namespace ?? '') : '', name: ref.name });
    }
    return requests;
  };
}

/**
 * Enqueues what `map` returns for the object (controller-runtime's
 * `EnqueueRequestsFromMapFunc`); what `.watches(kind, map)` uses. Identity
 * only: it exists so that all three handlers read alike.
 *
 * @example
 * ```ts
 * import type * as corev1 from 'kubernetes-types/core/v1.js';
 * import { enqueueMapped, type Typed } from '@operant/runtime';
 *
 * const toConfigMap = enqueueMapped<Typed<corev1.Secret>>((s) => [{ namespace: s.metadata.namespace ?? '', name: s.metadata.labels?.['config'] ?? '' }]);
 * ```
 */
export function enqueueMapped<T extends KubeObject>(map: RequestMapper<T>): RequestMapper<T> {
  return map;
}

/**
 * The requests for an update: those of the old object and of the new one,
 * without repeats, in that order (the new object's last). Requests without a
 * name are left out.
 *
 * @example
 * ```ts
 * import type * as appsv1 from 'kubernetes-types/apps/v1.js';
 * import { defineKind, enqueueOwner, type Typed } from '@operant/runtime';
 * import { requestsForUpdate } from './handlers.js';
 *
 * const Foo = defineKind({ group: 'samplecontroller.k8s.io', version: 'v1alpha1', kind: 'Foo', plural: 'foos', namespaced: true });
 * declare const oldDeployment: Typed<appsv1.Deployment>, newDeployment: Typed<appsv1.Deployment>;
 * requestsForUpdate(enqueueOwner(Foo), oldDeployment, newDeployment); // the old owner and the new one
 * ```
 */
export function requestsForUpdate<T extends KubeObject>(mapper: RequestMapper<T>, oldObject: T, object: T): Request[] {
  const byKey = new Map<string, Request>();
  if (oldObject !== object) for (const req of mapper(oldObject)) if (req.name) byKey.set(requestKey(req), req);
  for (const req of mapper(object)) {
    if (!req.name) continue;
    const key = requestKey(req);
    byKey.delete(key);
    byKey.set(key, req);
  }
  return [...byKey.values()];
}

function groupOf(apiVersion: string | undefined): string | undefined {
  return apiVersion ? parseApiVersion(apiVersion).group : undefined;
}

/**
 * A kind as a value: what a client needs to address it (group, version,
 * plural, scope) and, as a type parameter, the TypeScript type of its objects.
 * Built-ins come from this module; custom kinds from the code generator.
 */
import type { KubeObject } from '@operant/apimachinery';

/**
 * A kind's addressing facts, carrying its object type `T`.
 *
 * @example
 * ```ts
 * import { defineKind, type Typed } from '@operant/runtime';
 *
 * type Widget = Typed<{ spec?: { size?: number } }>;
 * const Widget = defineKind<Widget>({ group: 'example.com', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true });
 * ```
 */
export interface Kind<T extends KubeObject = KubeObject> {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** The resource name in URLs, e.g. `pods`. */
  readonly plural: string;
  readonly namespaced: boolean;
  /** Phantom field: only carries `T` for type inference. */
  readonly __type?: T;
}

/**
 * Declares a kind: a frozen value with its addressing facts that also carries
 * the object type `T`, so client calls with it are typed.
 *
 * @example
 * ```ts
 * import { defineKind, type KubeObject } from '@operant/runtime';
 *
 * interface CronTabObject extends KubeObject { spec: { cronSpec: string; replicas?: number } }
 * const CronTab = defineKind<CronTabObject>({ group: 'stable.example.com', version: 'v1', kind: 'CronTab', plural: 'crontabs', namespaced: true });
 * const tab = await client.get(CronTab, 'nightly', { namespace: 'default' }); // a CronTabObject
 * ```
 */
export function defineKind<T extends KubeObject = KubeObject>(k: Omit<Kind<T>, '__type'>): Kind<T> {
  return Object.freeze({ ...k });
}

/**
 * A kind's `apiVersion`: `apps/v1`, or `v1` for the core group.
 *
 * @example
 * ```ts
 * import { apiVersionOfKind, Deployment, Pod } from '@operant/runtime';
 *
 * apiVersionOfKind(Deployment); // 'apps/v1'
 * apiVersionOfKind(Pod); // 'v1'
 * ```
 */
export function apiVersionOfKind(k: Kind): string {
  return k.group === '' ? k.version : `${k.group}/${k.version}`;
}

/**
 * The URL path of a kind's collection (in a namespace when given and the kind is namespaced).
 *
 * @example
 * ```ts
 * import { collectionPath, Deployment, Pod } from '@operant/runtime';
 *
 * collectionPath(Deployment, 'default'); // '/apis/apps/v1/namespaces/default/deployments'
 * collectionPath(Pod); // '/api/v1/pods', all namespaces
 * ```
 */
export function collectionPath(k: Kind, namespace?: string): string {
  const base = k.group === '' ? `/api/${k.version}` : `/apis/${k.group}/${k.version}`;
  return k.namespaced && namespace ? `${base}/namespaces/${encodeURIComponent(namespace)}/${k.plural}` : `${base}/${k.plural}`;
}

/**
 * The URL path of one object (and a subresource).
 *
 * @example
 * ```ts
 * import { Deployment, Namespace, objectPath } from '@operant/runtime';
 *
 * objectPath(Deployment, 'default', 'web', 'scale'); // '/apis/apps/v1/namespaces/default/deployments/web/scale'
 * objectPath(Namespace, undefined, 'prod'); // '/api/v1/namespaces/prod'
 * ```
 */
export function objectPath(k: Kind, namespace: string | undefined, name: string, subresource?: string): string {
  const path = `${collectionPath(k, namespace)}/${encodeURIComponent(name)}`;
  return subresource ? `${path}/${subresource}` : path;
}

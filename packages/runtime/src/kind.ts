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
 * const Pod = defineKind<PodObject>({ group: '', version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true });
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

/** Declares a kind. */
export function defineKind<T extends KubeObject = KubeObject>(k: Omit<Kind<T>, '__type'>): Kind<T> {
  return Object.freeze({ ...k });
}

/** `apps/v1` or `v1`. */
export function apiVersionOfKind(k: Kind): string {
  return k.group === '' ? k.version : `${k.group}/${k.version}`;
}

/** The URL path of a kind's collection (in a namespace when given and the kind is namespaced). */
export function collectionPath(k: Kind, namespace?: string): string {
  const base = k.group === '' ? `/api/${k.version}` : `/apis/${k.group}/${k.version}`;
  return k.namespaced && namespace ? `${base}/namespaces/${encodeURIComponent(namespace)}/${k.plural}` : `${base}/${k.plural}`;
}

/** The URL path of one object (and a subresource). */
export function objectPath(k: Kind, namespace: string | undefined, name: string, subresource?: string): string {
  const path = `${collectionPath(k, namespace)}/${encodeURIComponent(name)}`;
  return subresource ? `${path}/${subresource}` : path;
}

/**
 * Apply configurations: what a controller sends with server-side apply. Kube
 * makes the sender the owner of every field in it, so it should hold the
 * object's identity and only the fields the controller means to own: client-go
 * builds them with generated `...ApplyConfiguration` types whose fields are
 * all pointers; here a deep-partial TypeScript object plays that part, omitted
 * and `undefined` fields being left out of the request.
 */
import type { KubeObject, ObjectMeta } from '@operant/apimachinery';
import { apiVersionOfKind, type Kind } from '../kind.js';

/**
 * Every field optional, at every depth; list items are deep partials too (an
 * item of a list keyed by name still needs its name for the server to merge it).
 *
 * @example
 * ```ts
 * import type * as appsv1 from 'kubernetes-types/apps/v1.js';
 * import type { DeepPartial } from '@operant/runtime';
 *
 * const spec: DeepPartial<appsv1.DeploymentSpec> = { replicas: 3 }; // selector and template left to others
 * ```
 */
export type DeepPartial<T> = T extends ReadonlyArray<infer U>
  ? Array<DeepPartial<U>>
  : T extends (...args: never[]) => unknown
    ? T
    : T extends object
      ? { [K in keyof T]?: DeepPartial<T[K]> }
      : T;

/**
 * The declared fields of an object type besides apiVersion, kind and metadata,
 * without KubeObject's index signature (which `Omit` would keep alone).
 */
type DeclaredFields<T> = {
  [K in keyof T as string extends K ? never : number extends K ? never : K extends 'apiVersion' | 'kind' | 'metadata' ? never : K]: T[K];
};

/**
 * The fields of a `T` an apply configuration may hold besides its type meta
 * and identity: a deep partial of its declared fields, or any fields for an
 * unstructured kind (one that declares none).
 */
export type ApplyFields<T extends KubeObject> = ([keyof DeclaredFields<T>] extends [never] ? Record<string, unknown> : DeepPartial<DeclaredFields<T>>) & {
  metadata?: DeepPartial<Omit<ObjectMeta, 'name' | 'namespace' | 'managedFields'>>;
};

/**
 * A server-side apply configuration for objects of type `T`: apiVersion, kind,
 * name (and namespace), and only the fields its manager owns.
 *
 * @example
 * ```ts
 * import type * as appsv1 from 'kubernetes-types/apps/v1.js';
 * import { Deployment, applyConfiguration, type ApplyConfiguration, type Typed } from '@operant/runtime';
 *
 * const replicasOnly: ApplyConfiguration<Typed<appsv1.Deployment>> = applyConfiguration(Deployment, 'web', 'default', { spec: { replicas: 3 } });
 * ```
 */
export type ApplyConfiguration<T extends KubeObject> = Omit<ApplyFields<T>, 'metadata'> & {
  apiVersion: string;
  kind: string;
  metadata: ApplyFields<T>['metadata'] & { name: string; namespace?: string };
  /** Phantom field: the object type the configuration is for. */
  readonly __applies?: T;
};

/**
 * Builds an apply configuration for `kind`: its apiVersion and kind, `name`
 * (and `namespace`, for a namespaced kind), and the given fields with every
 * `undefined` left out. What is absent is not claimed; what is present is, even
 * a zero value (`replicas: 0`, `''`, `false`, `[]`). Apply it with
 * {@link Client.apply} (or `applyStatus` for status fields).
 *
 * @example
 * ```ts
 * import { Deployment, applyConfiguration } from '@operant/runtime';
 *
 * // An autoscaler owns the replicas and nothing else of the Deployment.
 * const config = applyConfiguration(Deployment, 'web', 'default', { spec: { replicas: 5 } });
 * await client.apply(Deployment, config, { fieldManager: 'my-autoscaler' });
 * ```
 */
export function applyConfiguration<T extends KubeObject>(kind: Kind<T>, name: string, namespace: string | undefined, fields: ApplyFields<T> = {} as ApplyFields<T>): ApplyConfiguration<T> {
  if (!name) throw new TypeError('an apply configuration needs a name');
  if (kind.namespaced && !namespace) throw new TypeError(`an apply configuration of the namespaced kind ${kind.kind} needs a namespace`);
  const { metadata, ...rest } = withoutUndefined(fields) as ApplyFields<T> & Record<string, unknown>;
  const identity: { name: string; namespace?: string } = { name };
  if (kind.namespaced) identity.namespace = namespace;
  return {
    apiVersion: apiVersionOfKind(kind),
    kind: kind.kind,
    ...rest,
    metadata: { ...(metadata ?? {}), ...identity },
  } as ApplyConfiguration<T>;
}

/** A deep copy without the `undefined` fields (and list items) JSON would drop or turn into null. */
function withoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((v) => v !== undefined).map(withoutUndefined);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = withoutUndefined(v);
  return out;
}

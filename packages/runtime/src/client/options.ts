/**
 * The options and result shapes of the client's methods, named after their
 * metav1 counterparts (GetOptions, ListOptions, CreateOptions, PatchOptions,
 * DeleteOptions) and sent as kube-apiserver expects them.
 */
import type { KubeObject } from '@operant/apimachinery';

/**
 * Every method takes a signal to abort it (a timeout, or the controller stopping).
 *
 * @example
 * ```ts
 * import { ConfigMap } from '@operant/runtime';
 *
 * await client.get(ConfigMap, 'settings', { namespace: 'default', signal: AbortSignal.timeout(5_000) });
 * ```
 */
export interface RequestOptions {
  signal?: AbortSignal;
}

/**
 * For namespaced kinds, the namespace; defaults to the object's own
 * `metadata.namespace`, then the client's default namespace (the context's).
 * Ignored for cluster-scoped kinds.
 *
 * @example
 * ```ts
 * import { Deployment, Namespace } from '@operant/runtime';
 *
 * await client.get(Deployment, 'web', { namespace: 'prod' });
 * await client.get(Namespace, 'prod'); // cluster-scoped: no namespace
 * ```
 */
export interface NamespaceOptions {
  namespace?: string;
}

/**
 * A label selector: kube's string syntax (`app=web,tier in (a,b)`) or a map of
 * labels that must all match.
 *
 * @example
 * ```ts
 * import { Pod } from '@operant/runtime';
 *
 * await client.list(Pod, { labelSelector: 'app=web,tier in (frontend,edge)' });
 * await client.list(Pod, { labelSelector: { app: 'web' } });
 * ```
 */
export type LabelSelector = string | Readonly<Record<string, string>>;

/**
 * How a client with a cache ({@link Client.withCache}) reads. Clients without
 * a cache always read live and ignore these.
 *
 * @example
 * ```ts
 * import { Pod } from '@operant/runtime';
 *
 * const fresh = await client.get(Pod, 'web', { namespace: 'default', live: true });
 * const pods = await client.list(Pod, { namespace: 'default', unsafeDisableDeepCopy: true }); // read, never change
 * ```
 */
export interface CacheReadOptions {
  /** Read from the API server, not the informer cache. */
  live?: boolean;
  /**
   * Cached reads only: return the cached object itself rather than a copy
   * (faster; the object is shared and must not be changed).
   */
  unsafeDisableDeepCopy?: boolean;
}

/**
 * Options of {@link Client.get}.
 *
 * @example
 * ```ts
 * import { ConfigMap } from '@operant/runtime';
 *
 * const cm = await client.get(ConfigMap, 'settings', { namespace: 'default', resourceVersion: '0' });
 * ```
 */
export interface GetOptions extends RequestOptions, NamespaceOptions, CacheReadOptions {
  /** `0` lets the server answer from its cache; omitted reads the latest. Ignored by cached reads. */
  resourceVersion?: string;
}

/**
 * Options of {@link Client.list}. Without a namespace, a namespaced kind is
 * listed in all namespaces. Cached lists support `limit` (no continue tokens)
 * and only exact field matches on indexed fields.
 *
 * @example
 * ```ts
 * import { Pod } from '@operant/runtime';
 *
 * const onNode = await client.list(Pod, { namespace: 'default', matchingFields: { 'spec.nodeName': 'node-1' } });
 * const page = await client.list(Pod, { limit: 100, live: true }); // page.metadata.continue names the next page
 * ```
 */
export interface ListOptions extends RequestOptions, NamespaceOptions, CacheReadOptions {
  labelSelector?: LabelSelector;
  fieldSelector?: string;
  /**
   * Exact field values, controller-runtime's `MatchingFields`: answered from
   * field indexes by a cached read, sent as a field selector by a live one.
   */
  matchingFields?: Readonly<Record<string, string>>;
  /**
   * Cached lists only: items in no particular order, skipping the sort by
   * namespace and name (the larger part of a large cached list's cost).
   * Live lists come in the server's order whatever this says.
   */
  unordered?: boolean;
  /** Page size; the answer's `metadata.continue` fetches the next page. */
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
}

/**
 * How the server validates fields it does not know: `Strict` refuses, `Warn` (default) warns, `Ignore` drops silently.
 *
 * @example
 * ```ts
 * import { ConfigMap } from '@operant/runtime';
 *
 * const cm = { metadata: { name: 'settings', namespace: 'default' }, data: { mode: 'fast' } };
 * await client.create(ConfigMap, cm, { fieldValidation: 'Strict' }); // a typo in a field name fails the create
 * ```
 */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/**
 * Options of writes (create, update, updateStatus, updateScale).
 *
 * @example
 * ```ts
 * import { Deployment } from '@operant/runtime';
 *
 * const deployment = await client.get(Deployment, 'web', { namespace: 'default' });
 * await client.update(Deployment, deployment, { fieldManager: 'my-operator', dryRun: true }); // admitted, not stored
 * ```
 */
export interface WriteOptions extends RequestOptions, NamespaceOptions {
  /** Validate and admit, but store nothing (`dryRun=All`). */
  dryRun?: boolean;
  /** The manager recorded in managedFields. */
  fieldManager?: string;
  fieldValidation?: FieldValidation;
}

/**
 * Patch body formats, named as `kubectl patch --type` names them: `merge`
 * (JSON merge patch, `application/merge-patch+json`), `json` (RFC 6902,
 * `application/json-patch+json`), `strategic` (strategic merge patch, built-in
 * kinds only) and `apply` (server-side apply). client-go's `types.PatchType`
 * (`MergePatchType`...), client-node's `PatchStrategy`.
 *
 * @example
 * ```ts
 * import { Deployment } from '@operant/runtime';
 *
 * await client.patch(Deployment, 'web', [{ op: 'replace', path: '/spec/replicas', value: 3 }], { namespace: 'default', patchType: 'json' });
 * ```
 */
export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

/**
 * Options of {@link Client.patch}: which patch format (`patchType`, as in
 * client-go's `Patch(ctx, name, pt, data, opts)`), and controller-runtime's
 * `PatchOptions` (`dryRun`, `fieldManager`, `fieldValidation`, `force`,
 * `subresource`).
 *
 * @example
 * ```ts
 * import { Deployment } from '@operant/runtime';
 *
 * await client.patch(Deployment, 'web', { status: { observedGeneration: 2 } }, { namespace: 'default', subresource: 'status' }); // a merge patch
 * ```
 */
export interface PatchOptions extends WriteOptions {
  /** The body's format; default `merge`. */
  patchType?: PatchType;
  /**
   * The body's format: the former name of {@link PatchOptions.patchType}, still
   * honoured. Giving both with different values throws a TypeError.
   *
   * @deprecated Use `patchType` (kube's name): `type` reads as the type of the object.
   */
  type?: PatchType;
  /** Server-side apply only: take over fields owned by other managers. */
  force?: boolean;
  /** Patch a subresource, e.g. `status` or `scale`. */
  subresource?: string;
}

/**
 * Options of {@link Client.apply} (server-side apply); a field manager is required, as the server records who owns each field.
 *
 * @example
 * ```ts
 * import { ConfigMap } from '@operant/runtime';
 *
 * const desired = { apiVersion: 'v1' as const, kind: 'ConfigMap' as const, metadata: { name: 'settings', namespace: 'default' }, data: { mode: 'fast' } };
 * await client.apply(ConfigMap, desired, { fieldManager: 'my-operator', force: true });
 * ```
 */
export interface ApplyOptions extends RequestOptions, NamespaceOptions {
  fieldManager: string;
  force?: boolean;
  dryRun?: boolean;
  fieldValidation?: FieldValidation;
  subresource?: string;
}

/**
 * What happens to dependents: deleted in the background, deleted first (foreground), or orphaned.
 *
 * @example
 * ```ts
 * import { Deployment } from '@operant/runtime';
 *
 * await client.delete(Deployment, 'web', { namespace: 'default', propagationPolicy: 'Foreground' }); // its pods go first
 * ```
 */
export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

/**
 * Options of {@link Client.delete}.
 *
 * @example
 * ```ts
 * import { Pod } from '@operant/runtime';
 *
 * await client.delete(Pod, 'web-0', { namespace: 'default', gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } });
 * ```
 */
export interface DeleteOptions extends RequestOptions, NamespaceOptions {
  propagationPolicy?: PropagationPolicy;
  /** Delete only if the object still has this uid and/or resourceVersion (else 409). */
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
  dryRun?: boolean;
}

/**
 * Options of {@link Client.deleteAllOf}: which objects of a namespace, and how.
 *
 * @example
 * ```ts
 * import { Pod } from '@operant/runtime';
 *
 * await client.deleteAllOf(Pod, { namespace: 'default', labelSelector: { app: 'web' }, propagationPolicy: 'Background' });
 * ```
 */
export interface DeleteAllOfOptions extends RequestOptions, NamespaceOptions {
  labelSelector?: LabelSelector;
  fieldSelector?: string;
  propagationPolicy?: PropagationPolicy;
  gracePeriodSeconds?: number;
  dryRun?: boolean;
}

/**
 * Options of {@link Client.watch}. Without a namespace, a namespaced kind is watched in all namespaces.
 *
 * @example
 * ```ts
 * import { Pod } from '@operant/runtime';
 *
 * const list = await client.list(Pod, { namespace: 'default', live: true });
 * const events = client.watch(Pod, { namespace: 'default', resourceVersion: list.metadata.resourceVersion, allowWatchBookmarks: true, timeoutSeconds: 300 });
 * ```
 */
export interface WatchOptions extends RequestOptions, NamespaceOptions {
  labelSelector?: LabelSelector;
  fieldSelector?: string;
  /** Start after this revision (usually a list's); omitted starts with synthetic ADDED events for what exists. */
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  /** The server ends the watch after this long (the iteration then ends). */
  timeoutSeconds?: number;
  sendInitialEvents?: boolean;
  resourceVersionMatch?: 'NotOlderThan';
}

/**
 * A list of objects as the server sends it.
 *
 * @example
 * ```ts
 * import type * as corev1 from 'kubernetes-types/core/v1.js';
 * import { type KubeList, Pod, type Typed } from '@operant/runtime';
 *
 * const list: KubeList<Typed<corev1.Pod>> = await client.list(Pod, { namespace: 'default' });
 * console.log(list.items.length, list.metadata.resourceVersion);
 * ```
 */
export interface KubeList<T extends KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: T[];
}

/**
 * The autoscaling/v1 Scale of a kind with a scale subresource.
 *
 * @example
 * ```ts
 * import { Deployment, type Scale } from '@operant/runtime';
 *
 * const scale: Scale = await client.getScale(Deployment, 'web', { namespace: 'default' });
 * await client.updateScale(Deployment, { ...scale, spec: { replicas: 5 } });
 * ```
 */
export interface Scale extends KubeObject {
  spec: { replicas?: number };
  status?: { replicas: number; selector?: string };
}

/**
 * Only an object's metadata (metadata-only gets, lists and watches), for
 * controllers that need labels or owners but not, say, a Secret's data.
 *
 * @example
 * ```ts
 * import { type PartialObjectMetadata, Secret } from '@operant/runtime';
 *
 * const meta: PartialObjectMetadata = await client.get(Secret, 'tls', { namespace: 'default', metadataOnly: true });
 * console.log(meta.metadata.labels);
 * ```
 */
export interface PartialObjectMetadata extends KubeObject {
  apiVersion?: 'meta.k8s.io/v1';
  kind?: 'PartialObjectMetadata';
}

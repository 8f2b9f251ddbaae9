/**
 * controllerutil's CreateOrUpdate and CreateOrPatch: bring one object to its
 * desired state with a mutate function, creating it when absent and writing
 * only when the mutation changed something.
 */
import { deepCopy, jsonEqual, type KubeObject } from '@operant/apimachinery';
import { isNotFound } from '../client/api-error.js';
import type { ObjectClient } from '../client/interfaces.js';
import type { Kind } from '../kind.js';
import { createMergePatch } from './merge-patch.js';

/**
 * What a createOrUpdate / createOrPatch call did (controller-runtime's
 * OperationResult; each completes "<kind> <ns>/<name> has been ...").
 *
 * @example
 * ```ts
 * import { createOrPatch, Deployment } from '@operant/runtime';
 *
 * const { result } = await createOrPatch(client, Deployment, { metadata: { name: 'web', namespace: 'default' } }, (d) => {
 *   d.spec = { ...d.spec, replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } };
 * });
 * if (result !== 'unchanged') log.info({ result }, 'deployment reconciled');
 * ```
 */
export type OperationResult = 'unchanged' | 'created' | 'updated' | 'updatedStatus' | 'updatedStatusOnly';

/**
 * Brings an object to its desired state, in place: the live object when it
 * exists, else the object to create. It must not change name or namespace.
 *
 * @example
 * ```ts
 * import type * as corev1 from 'kubernetes-types/core/v1.js';
 * import type { MutateFn, Typed } from '@operant/runtime';
 *
 * const mutate: MutateFn<Typed<corev1.ConfigMap>> = (cm) => { cm.data = { ...cm.data, mode: 'fast' }; };
 * ```
 */
export type MutateFn<T extends KubeObject> = (obj: T) => void | Promise<void>;

/**
 * Options of {@link createOrUpdate} and {@link createOrPatch}.
 *
 * @example
 * ```ts
 * import { ConfigMap, createOrUpdate } from '@operant/runtime';
 *
 * const cm = { metadata: { name: 'settings', namespace: 'default' } };
 * await createOrUpdate(client, ConfigMap, cm, (live) => { live.data = { mode: 'fast' }; }, { fieldManager: 'my-operator', signal });
 * ```
 */
export interface CreateOrUpdateOptions {
  signal?: AbortSignal;
  /** The manager recorded in managedFields for the writes. */
  fieldManager?: string;
}

/**
 * What {@link createOrUpdate} and {@link createOrPatch} resolve with: the
 * operation and the object as the server last returned it.
 *
 * @example
 * ```ts
 * import { ConfigMap, createOrUpdate } from '@operant/runtime';
 *
 * const cm = { metadata: { name: 'settings', namespace: 'default' } };
 * const { result, object } = await createOrUpdate(client, ConfigMap, cm, (live) => { live.data = { mode: 'fast' }; });
 * console.log(result, object.metadata.resourceVersion);
 * ```
 */
export interface OperationOutcome<T extends KubeObject, R extends OperationResult = OperationResult> {
  result: R;
  object: T;
}

/**
 * controller-runtime's message for a MutateFn that renames the object.
 *
 * @example
 * ```ts
 * import { ConfigMap, createOrUpdate } from '@operant/runtime';
 * import { mutateChangedKeyMessage } from './create-or-update.js';
 *
 * const cm = { metadata: { name: 'settings', namespace: 'default' } };
 * await createOrUpdate(client, ConfigMap, cm, (live) => { live.metadata.name = 'renamed'; }).catch((e: unknown) => {
 *   if (e instanceof Error && e.message === mutateChangedKeyMessage) log.error({}, 'bug: mutate renamed the object');
 *   throw e;
 * });
 * ```
 */
export const mutateChangedKeyMessage = 'MutateFn cannot mutate object name and/or object namespace';

/**
 * Gets the object named by `obj` (its namespace and name). When it does not
 * exist, runs `mutate` on a copy of `obj` and creates it; otherwise runs
 * `mutate` on the live object and updates it (optimistic concurrency: a
 * concurrent write makes the update fail with a conflict) only when the
 * mutation changed something. Changes to status are not written (update
 * ignores them for kinds with a status subresource).
 *
 * @example
 * ```ts
 * import { ConfigMap, createOrUpdate, Deployment, setControllerReference } from '@operant/runtime';
 *
 * const owner = await client.get(Deployment, 'web', { namespace: 'default' });
 * const { result } = await createOrUpdate(client, ConfigMap, { metadata: { name: 'web-settings', namespace: 'default' } }, (cm) => {
 *   cm.data = { replicas: String(owner.spec?.replicas ?? 1) };
 *   setControllerReference(owner, cm, Deployment);
 * });
 * ```
 */
export async function createOrUpdate<T extends KubeObject>(
  client: ObjectClient,
  kind: Kind<T>,
  obj: T,
  mutate: MutateFn<T>,
  options: CreateOrUpdateOptions = {},
): Promise<OperationOutcome<T, 'created' | 'updated' | 'unchanged'>> {
  const live = await getOrUndefined(client, kind, obj, options);
  if (!live) return { result: 'created', object: await createMutated(client, kind, obj, mutate, options) };

  const existing = deepCopy(live);
  await mutateKeepingKey(live, mutate);
  if (jsonEqual(existing, live)) return { result: 'unchanged', object: existing };
  const updated = await client.update(kind, live, { namespace: live.metadata.namespace, signal: options.signal, fieldManager: options.fieldManager });
  return { result: 'updated', object: updated };
}

/**
 * Like {@link createOrUpdate}, but writes changes as JSON merge patches
 * (no resourceVersion, so no conflicts): one for everything but status when
 * that changed, and one to the status subresource when status changed.
 * Resolves with `updated`, `updatedStatus` (both), `updatedStatusOnly` or
 * `unchanged`. Status changes need a kind with a status subresource, and are
 * not written on creation (requeue after `created` to set status).
 *
 * @example
 * ```ts
 * import { createOrPatch, defineKind, type Typed } from '@operant/runtime';
 *
 * type WebAppObject = Typed<{ spec?: { image?: string }; status?: { observedGeneration?: number } }>;
 * const WebApp = defineKind<WebAppObject>({ group: 'example.com', version: 'v1', kind: 'WebApp', plural: 'webapps', namespaced: true });
 * const { result } = await createOrPatch(client, WebApp, { metadata: { name: 'web', namespace: 'default' } }, (app) => {
 *   app.spec = { image: 'nginx:1.27' };
 *   app.status = { ...app.status, observedGeneration: app.metadata.generation };
 * });
 * ```
 */
export async function createOrPatch<T extends KubeObject>(
  client: ObjectClient,
  kind: Kind<T>,
  obj: T,
  mutate: MutateFn<T>,
  options: CreateOrUpdateOptions = {},
): Promise<OperationOutcome<T>> {
  const live = await getOrUndefined(client, kind, obj, options);
  if (!live) return { result: 'created', object: await createMutated(client, kind, obj, mutate, options) };

  const before = deepCopy(live);
  await mutateKeepingKey(live, mutate);
  const { status: beforeStatus, ...beforeRest } = before;
  const { status: afterStatus, ...afterRest } = live;

  const name = live.metadata.name!;
  const writeOptions = { namespace: live.metadata.namespace, signal: options.signal, fieldManager: options.fieldManager, patchType: 'merge' as const };
  let result: OperationResult = 'unchanged';
  let object = before;
  const patch = createMergePatch(beforeRest, afterRest);
  if (Object.keys(patch).length > 0) {
    object = await client.patch(kind, name, patch, writeOptions);
    result = 'updated';
  }
  if ((beforeStatus !== undefined || afterStatus !== undefined) && !jsonEqual(beforeStatus, afterStatus)) {
    const statusPatch = createMergePatch({ status: beforeStatus }, { status: afterStatus });
    object = await client.patch(kind, name, statusPatch, { ...writeOptions, subresource: 'status' });
    result = result === 'updated' ? 'updatedStatus' : 'updatedStatusOnly';
  }
  return { result, object };
}

async function getOrUndefined<T extends KubeObject>(client: ObjectClient, kind: Kind<T>, obj: T, options: CreateOrUpdateOptions): Promise<T | undefined> {
  const name = obj.metadata?.name;
  if (!name) throw new TypeError('createOrUpdate needs metadata.name');
  try {
    return await client.get(kind, name, { namespace: obj.metadata.namespace, signal: options.signal });
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

async function createMutated<T extends KubeObject>(client: ObjectClient, kind: Kind<T>, obj: T, mutate: MutateFn<T>, options: CreateOrUpdateOptions): Promise<T> {
  const desired = deepCopy(obj);
  await mutateKeepingKey(desired, mutate);
  return client.create(kind, desired, { namespace: desired.metadata.namespace, signal: options.signal, fieldManager: options.fieldManager });
}

async function mutateKeepingKey<T extends KubeObject>(obj: T, mutate: MutateFn<T>): Promise<void> {
  const { name, namespace } = obj.metadata;
  await mutate(obj);
  if (obj.metadata?.name !== name || obj.metadata?.namespace !== namespace) throw new Error(mutateChangedKeyMessage);
}

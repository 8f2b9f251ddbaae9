/**
 * Finalizers: controllerutil's in-memory helpers, and {@link handleFinalizer},
 * the reconcile step that keeps a finalizer on a live object and, once the
 * object is being deleted, runs its cleanup and lets the deletion finish.
 */
import type { KubeObject } from '@operant/apimachinery';
import { isConflict, isNotFound } from '../client/api-error.js';
import type { ObjectClient } from '../client/interfaces.js';
import type { Kind } from '../kind.js';

/**
 * Whether `obj` carries `finalizer`.
 *
 * @example
 * ```ts
 * import { containsFinalizer } from '@operant/runtime';
 *
 * if (containsFinalizer(pod, 'example.com/cleanup')) console.log('guarded');
 * ```
 */
export function containsFinalizer(obj: KubeObject, finalizer: string): boolean {
  return (obj.metadata.finalizers ?? []).includes(finalizer);
}

/**
 * Adds `finalizer` to `obj` (in place) unless present; returns whether it changed the object.
 *
 * @example
 * ```ts
 * import { addFinalizer, ConfigMap } from '@operant/runtime';
 *
 * const cm = await client.get(ConfigMap, 'settings', { namespace: 'default' });
 * if (addFinalizer(cm, 'example.com/cleanup')) await client.update(ConfigMap, cm);
 * ```
 */
export function addFinalizer(obj: KubeObject, finalizer: string): boolean {
  if (containsFinalizer(obj, finalizer)) return false;
  obj.metadata.finalizers = [...(obj.metadata.finalizers ?? []), finalizer];
  return true;
}

/**
 * Removes every occurrence of `finalizer` from `obj` (in place); returns whether it changed the object.
 *
 * @example
 * ```ts
 * import { ConfigMap, removeFinalizer } from '@operant/runtime';
 *
 * const cm = await client.get(ConfigMap, 'settings', { namespace: 'default' });
 * if (removeFinalizer(cm, 'example.com/cleanup')) await client.update(ConfigMap, cm);
 * ```
 */
export function removeFinalizer(obj: KubeObject, finalizer: string): boolean {
  const before = obj.metadata.finalizers ?? [];
  const after = before.filter((f) => f !== finalizer);
  if (after.length === before.length) return false;
  obj.metadata.finalizers = after;
  return true;
}

/**
 * The cleanup a finalizer guards: release what the object holds outside the
 * API (cloud resources, external records). It runs once per object and
 * finalizer in a process, but a process that dies after cleanup and before the
 * finalizer is removed runs it again after a restart: it must be idempotent.
 *
 * @example
 * ```ts
 * import type { FinalizerCleanup, Typed } from '@operant/runtime';
 *
 * type BucketObject = Typed<{ spec: { name: string } }>;
 * declare const storage: { deleteBucket(name: string, opts: { signal?: AbortSignal }): Promise<void> }; // the external system
 * const cleanup: FinalizerCleanup<BucketObject> = async (bucket, signal) => {
 *   await storage.deleteBucket(bucket.spec.name, { signal }).catch((e: { code?: string }) => {
 *     if (e.code !== 'NoSuchBucket') throw e;
 *   });
 * };
 * ```
 */
export type FinalizerCleanup<T extends KubeObject> = (obj: T, signal: AbortSignal | undefined) => void | Promise<void>;

/**
 * Options of {@link handleFinalizer}.
 *
 * @example
 * ```ts
 * import { ConfigMap, handleFinalizer } from '@operant/runtime';
 *
 * const cm = await client.get(ConfigMap, 'settings', { namespace: 'default' });
 * await handleFinalizer(client, ConfigMap, cm, 'example.com/cleanup', async () => undefined, { signal, fieldManager: 'settings-operator' });
 * ```
 */
export interface HandleFinalizerOptions {
  signal?: AbortSignal;
  fieldManager?: string;
  /** Writes tried before a conflict is given up on (each after a fresh read); default 5, as client-go's DefaultRetry. */
  conflictAttempts?: number;
}

/**
 * What {@link handleFinalizer} did, and whether the reconcile goes on.
 *
 * @example
 * ```ts
 * import { ConfigMap, handleFinalizer, type ReconcileFunc } from '@operant/runtime';
 *
 * const reconcile: ReconcileFunc = async (req, { client }) => {
 *   const cm = await client.get(ConfigMap, req.name, { namespace: req.namespace });
 *   const r = await handleFinalizer(client, ConfigMap, cm, 'example.com/cleanup', async () => undefined);
 *   if (r.deleted) return; // being deleted (or gone): nothing more to reconcile
 * };
 * ```
 */
export interface FinalizerResult<T extends KubeObject> {
  /** The object is being deleted or is gone: stop reconciling it. */
  deleted: boolean;
  /** The finalizer list was written (added, or removed after cleanup). */
  updated: boolean;
  /** The object as last read or written; undefined once it is gone. */
  object: T | undefined;
}

/**
 * Finalizer-and-uid pairs whose cleanup succeeded, so that neither a retried
 * reconcile (the removal failed) nor one working on a stale cached copy (the
 * removal succeeded but the cache has not seen it) cleans up twice. Kept after
 * the removal for that reason; bounded, the oldest going first (a process
 * restart forgets them all anyway).
 */
const completedCleanups = new Set<string>();
const maxCompletedCleanups = 10_000;

function rememberCleanup(key: string): void {
  completedCleanups.add(key);
  if (completedCleanups.size > maxCompletedCleanups) completedCleanups.delete(completedCleanups.values().next().value!);
}

/**
 * Keeps `finalizer` on a live object and runs `cleanup` when it is deleted.
 *
 * - Not being deleted: adds the finalizer if missing (a merge patch carrying
 *   the resourceVersion, so a concurrent write is a conflict, retried on a
 *   fresh read) and resolves `{ deleted: false }`: reconcile on.
 * - Being deleted with the finalizer: runs `cleanup` (once: not again after it
 *   succeeded, even when the removal below fails and the reconcile is retried),
 *   then removes the finalizer the same conflict-safe way, and resolves
 *   `{ deleted: true }`. A failing cleanup rejects, leaving the finalizer.
 * - Being deleted without it, or gone: `{ deleted: true, updated: false }`.
 *
 * @example
 * ```ts
 * import { defineKind, handleFinalizer, ignoreNotFound, type ReconcileFunc, type Typed } from '@operant/runtime';
 *
 * type BucketObject = Typed<{ spec: { name: string } }>;
 * const Bucket = defineKind<BucketObject>({ group: 'example.com', version: 'v1', kind: 'Bucket', plural: 'buckets', namespaced: true });
 * declare const storage: { deleteBucket(name: string): Promise<void> }; // the external system
 *
 * const reconcile: ReconcileFunc = async (req, { client }) => {
 *   const bucket = await client.get(Bucket, req.name, { namespace: req.namespace }).catch(ignoreNotFound);
 *   if (!bucket) return;
 *   const { deleted } = await handleFinalizer(client, Bucket, bucket, 'example.com/bucket', (b) => storage.deleteBucket(b.spec.name));
 *   if (deleted) return;
 *   // ... reconcile the live object
 * };
 * ```
 */
export async function handleFinalizer<T extends KubeObject>(
  client: ObjectClient,
  kind: Kind<T>,
  obj: T,
  finalizer: string,
  cleanup: FinalizerCleanup<T>,
  options: HandleFinalizerOptions = {},
): Promise<FinalizerResult<T>> {
  const attempts = options.conflictAttempts ?? 5;
  let current = obj;
  let updated = false;
  for (let attempt = 1; ; attempt++) {
    const deleting = Boolean(current.metadata.deletionTimestamp);
    if (!containsFinalizer(current, finalizer)) {
      if (deleting) return { deleted: true, updated, object: current };
    } else if (!deleting) {
      return { deleted: false, updated, object: current };
    }

    const key = `${current.metadata.uid ?? `${current.metadata.namespace ?? ''}/${current.metadata.name ?? ''}`}\u0000${finalizer}`;
    if (deleting && !completedCleanups.has(key)) {
      await cleanup(current, options.signal);
      rememberCleanup(key);
    }

    const next = { ...current, metadata: { ...current.metadata } };
    if (deleting) removeFinalizer(next, finalizer);
    else addFinalizer(next, finalizer);
    try {
      current = await writeFinalizers(client, kind, next, options);
      updated = true;
      return { deleted: deleting, updated, object: current };
    } catch (e) {
      if (isNotFound(e)) return { deleted: true, updated, object: undefined };
      if (!isConflict(e) || attempt >= attempts) throw e;
    }
    try {
      current = await client.get(kind, current.metadata.name!, { namespace: current.metadata.namespace, signal: options.signal, live: true });
    } catch (e) {
      if (isNotFound(e)) return { deleted: true, updated, object: undefined };
      throw e;
    }
  }
}

/** Writes only the finalizer list, guarded by the object's resourceVersion. */
function writeFinalizers<T extends KubeObject>(client: ObjectClient, kind: Kind<T>, obj: T, options: HandleFinalizerOptions): Promise<T> {
  const patch = { metadata: { resourceVersion: obj.metadata.resourceVersion, finalizers: obj.metadata.finalizers ?? [] } };
  return client.patch(kind, obj.metadata.name!, patch, {
    namespace: obj.metadata.namespace,
    patchType: 'merge',
    signal: options.signal,
    fieldManager: options.fieldManager,
  });
}

/**
 * Object references (core/v1 ObjectReference): how an Event names the object
 * it is about, built from an object as client-go's `reference.GetReference` does.
 */
import type { KubeObject } from '@operant/apimachinery';
import { apiVersionOfKind, type Kind } from '../kind.js';

/**
 * A core/v1 ObjectReference.
 *
 * @example
 * ```ts
 * import type { ObjectReference } from '@operant/runtime';
 *
 * const ref: ObjectReference = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'settings', uid: '6f1c...' };
 * ```
 */
export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
  /** A part of the object, e.g. `spec.containers{app}`. */
  fieldPath?: string;
}

/**
 * A reference to `obj`: apiVersion and kind from the object, else from
 * `kind`; namespace, name, uid and resourceVersion from its metadata. Throws
 * a TypeError when the apiVersion, kind or name cannot be told.
 *
 * @example
 * ```ts
 * import { ConfigMap, EventRecorder, objectReference } from '@operant/runtime';
 *
 * const recorder = new EventRecorder(client, { reportingController: 'example.com/settings' });
 * const cm = await client.get(ConfigMap, 'settings', { namespace: 'default' }); // items of a list may lack apiVersion and kind
 * recorder.eventf(objectReference(cm, ConfigMap), null, 'Normal', 'Synced', 'Reconcile', 'synced');
 * ```
 */
export function objectReference(obj: KubeObject, kind?: Kind): ObjectReference {
  const apiVersion = obj.apiVersion || (kind && apiVersionOfKind(kind));
  const kindName = obj.kind || kind?.kind;
  const { name, namespace, uid, resourceVersion } = obj.metadata ?? {};
  if (!apiVersion || !kindName) throw new TypeError(`cannot tell the apiVersion and kind of ${name ?? 'an object'}: pass its Kind`);
  if (!name) throw new TypeError(`the ${kindName} has no metadata.name`);
  const ref: ObjectReference = { apiVersion, kind: kindName, name };
  if (namespace) ref.namespace = namespace;
  if (uid) ref.uid = uid;
  if (resourceVersion) ref.resourceVersion = resourceVersion;
  return ref;
}

/** An object or a reference, as the recorder takes them. */
export function toReference(target: KubeObject | ObjectReference): ObjectReference {
  if ('metadata' in target && target.metadata) return objectReference(target as KubeObject);
  const ref = { ...(target as ObjectReference) };
  if (!ref.name) throw new TypeError('an object reference needs a name');
  return ref;
}

/**
 * A stable text form of a reference, for cache keys (field order fixed). The
 * resourceVersion is left out, as client-go's event correlator leaves it out:
 * a controller that syncs an object and then updates its status would
 * otherwise start a new Event on every sync instead of counting repeats.
 */
export function referenceKey(ref: ObjectReference | undefined): string {
  if (!ref) return '';
  return JSON.stringify([ref.apiVersion, ref.kind, ref.namespace, ref.name, ref.uid, ref.fieldPath]);
}

/**
 * Owner and controller references, as controller-runtime's controllerutil and
 * metav1 set and read them: the garbage collector deletes an object once all
 * its owners are gone, and `Owns()` watches map an object to its controller.
 */
import { parseApiVersion, type KubeObject, type OwnerReference } from '@operant/apimachinery';
import { apiVersionOfKind, type Kind } from '../kind.js';

/**
 * Thrown by {@link setControllerReference} when another object already
 * controls the object (only one owner reference may say `controller: true`).
 *
 * @example
 * ```ts
 * import { AlreadyOwnedError, ConfigMap, Secret, setControllerReference } from '@operant/runtime';
 *
 * const owner = await client.get(ConfigMap, 'settings', { namespace: 'default' });
 * const secret = await client.get(Secret, 'settings', { namespace: 'default' });
 * try {
 *   setControllerReference(owner, secret, ConfigMap);
 * } catch (e) {
 *   if (e instanceof AlreadyOwnedError) log.info({ owner: e.owner.name }, e.message);
 * }
 * ```
 */
export class AlreadyOwnedError extends Error {
  /** The object that was to be controlled. */
  readonly object: KubeObject;
  /** The controller reference it already has. */
  readonly owner: OwnerReference;

  constructor(object: KubeObject, owner: OwnerReference) {
    super(`Object ${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''} is already owned by another ${owner.kind} controller ${owner.name}`);
    this.name = 'AlreadyOwnedError';
    this.object = object;
    this.owner = owner;
  }
}

/**
 * Options of {@link setControllerReference} and {@link setOwnerReference}.
 *
 * @example
 * ```ts
 * import { ConfigMap, setOwnerReference } from '@operant/runtime';
 *
 * const owner = await client.get(ConfigMap, 'settings', { namespace: 'default' });
 * setOwnerReference(owner, pod, ConfigMap, { blockOwnerDeletion: true });
 * ```
 */
export interface OwnerReferenceOptions {
  /**
   * Whether foreground deletion of the owner waits for this object (controller-runtime's
   * WithBlockOwnerDeletion). Default true for controller references, unset for others.
   */
  blockOwnerDeletion?: boolean;
}

/**
 * Makes `owner` the controller of `object` (in place): an owner reference
 * with `controller: true` and `blockOwnerDeletion: true`, replacing an
 * existing reference to the same owner (same group, kind and name). Throws
 * {@link AlreadyOwnedError} when another object is the controller, and an
 * Error for a namespaced owner of a cluster-scoped object or an owner in
 * another namespace. The owner's apiVersion and kind come from the owner
 * object, else from `ownerKind`.
 *
 * @example
 * ```ts
 * import { ConfigMap, Secret, setControllerReference } from '@operant/runtime';
 *
 * const cm = await client.get(ConfigMap, 'settings', { namespace: 'default' });
 * const secret = { metadata: { name: `${cm.metadata.name}-secret`, namespace: cm.metadata.namespace }, data: {} };
 * setControllerReference(cm, secret, ConfigMap);
 * await client.create(Secret, secret);
 * ```
 */
export function setControllerReference(owner: KubeObject, object: KubeObject, ownerKind?: Kind, options: OwnerReferenceOptions = {}): void {
  validateOwner(owner, object);
  const ref: OwnerReference = {
    ...referenceTo(owner, ownerKind),
    blockOwnerDeletion: options.blockOwnerDeletion ?? true,
    controller: true,
  };
  const existing = getControllerOf(object);
  if (existing && !referSameObject(existing, ref)) throw new AlreadyOwnedError(object, existing);
  upsertOwnerReference(object, ref);
}

/**
 * Adds a (non-controller) owner reference to `owner` on `object` (in place),
 * replacing an existing reference to the same owner. Same validation as
 * {@link setControllerReference}, without the single-controller rule.
 *
 * @example
 * ```ts
 * import { ConfigMap, Pod, setOwnerReference } from '@operant/runtime';
 *
 * const settings = await client.get(ConfigMap, 'settings', { namespace: 'default' });
 * setOwnerReference(settings, pod, ConfigMap); // the Pod goes when the ConfigMap goes, unless another owner remains
 * await client.update(Pod, pod);
 * ```
 */
export function setOwnerReference(owner: KubeObject, object: KubeObject, ownerKind?: Kind, options: OwnerReferenceOptions = {}): void {
  validateOwner(owner, object);
  const ref: OwnerReference = referenceTo(owner, ownerKind);
  if (options.blockOwnerDeletion !== undefined) ref.blockOwnerDeletion = options.blockOwnerDeletion;
  upsertOwnerReference(object, ref);
}

/**
 * Removes the reference to `owner` (matched by group, kind and name) from
 * `object` (in place); returns whether there was one.
 *
 * @example
 * ```ts
 * import { ConfigMap, Deployment, removeOwnerReference } from '@operant/runtime';
 *
 * const oldOwner = await client.get(Deployment, 'web-v1', { namespace: 'default' });
 * const obj = await client.get(ConfigMap, 'web-settings', { namespace: 'default' });
 * if (removeOwnerReference(oldOwner, obj, Deployment)) await client.update(ConfigMap, obj);
 * ```
 */
export function removeOwnerReference(owner: KubeObject, object: KubeObject, ownerKind?: Kind): boolean {
  const refs = object.metadata.ownerReferences ?? [];
  const index = indexOfOwnerReference(refs, referenceTo(owner, ownerKind, false));
  if (index < 0) return false;
  refs.splice(index, 1);
  if (refs.length === 0) delete object.metadata.ownerReferences;
  else object.metadata.ownerReferences = refs;
  return true;
}

/**
 * Whether `object` has an owner reference to `owner` (by group, kind and name).
 *
 * @example
 * ```ts
 * import { ConfigMap, hasOwnerReference, Secret, setOwnerReference } from '@operant/runtime';
 *
 * const cm = await client.get(ConfigMap, 'settings', { namespace: 'default' });
 * const secret = await client.get(Secret, 'settings', { namespace: 'default' });
 * if (!hasOwnerReference(secret, cm, ConfigMap)) setOwnerReference(cm, secret, ConfigMap);
 * ```
 */
export function hasOwnerReference(object: KubeObject, owner: KubeObject, ownerKind?: Kind): boolean {
  return indexOfOwnerReference(object.metadata.ownerReferences ?? [], referenceTo(owner, ownerKind, false)) >= 0;
}

/**
 * Whether any owner reference of `object` says `controller: true`.
 *
 * @example
 * ```ts
 * import { hasControllerReference } from '@operant/runtime';
 *
 * if (!hasControllerReference(pod)) log.info({}, 'orphan pod');
 * ```
 */
export function hasControllerReference(object: KubeObject): boolean {
  return (object.metadata.ownerReferences ?? []).some((r) => r.controller === true);
}

/**
 * A copy of `object`'s controller reference, or undefined (metav1.GetControllerOf).
 *
 * @example
 * ```ts
 * import { getControllerOf } from '@operant/runtime';
 *
 * const ref = getControllerOf(pod);
 * if (ref?.kind === 'ReplicaSet') console.log(ref.name);
 * ```
 */
export function getControllerOf(object: KubeObject): OwnerReference | undefined {
  const ref = (object.metadata.ownerReferences ?? []).find((r) => r.controller === true);
  return ref ? { ...ref } : undefined;
}

/**
 * Whether `owner` (by uid) is the controller of `object` (metav1.IsControlledBy).
 *
 * @example
 * ```ts
 * import { ConfigMap, isControlledBy, Secret } from '@operant/runtime';
 *
 * const cm = await client.get(ConfigMap, 'settings', { namespace: 'default' });
 * const secret = await client.get(Secret, 'settings', { namespace: 'default' });
 * if (!isControlledBy(secret, cm)) throw new Error('secret belongs to someone else');
 * ```
 */
export function isControlledBy(object: KubeObject, owner: KubeObject): boolean {
  const ref = getControllerOf(object);
  return ref !== undefined && owner.metadata.uid !== undefined && ref.uid === owner.metadata.uid;
}

/** controller-runtime's validateOwner, with its error texts. */
function validateOwner(owner: KubeObject, object: KubeObject): void {
  const ownerNs = owner.metadata.namespace ?? '';
  if (ownerNs === '') return;
  const objNs = object.metadata.namespace ?? '';
  if (objNs === '') throw new Error(`cluster-scoped resource must not have a namespace-scoped owner, owner's namespace ${ownerNs}`);
  if (ownerNs !== objNs) {
    throw new Error(`cross-namespace owner references are disallowed, owner's namespace ${ownerNs}, obj's namespace ${objNs}`);
  }
}

/** A plain reference (apiVersion, kind, name, uid) to `owner`. */
function referenceTo(owner: KubeObject, ownerKind: Kind | undefined, needUid = true): OwnerReference {
  const name = owner.metadata.name;
  const uid = owner.metadata.uid;
  if (!name) throw new TypeError('the owner has no metadata.name');
  if (needUid && !uid) throw new TypeError(`the owner ${name} has no metadata.uid: use the object as read from the API server`);
  let apiVersion = owner.apiVersion;
  let kind = owner.kind;
  if (!apiVersion || !kind) {
    if (!ownerKind) throw new TypeError(`cannot tell the apiVersion and kind of the owner ${name}: pass its Kind`);
    apiVersion = apiVersionOfKind(ownerKind);
    kind = ownerKind.kind;
  }
  return { apiVersion, kind, name, uid: uid ?? '' };
}

function upsertOwnerReference(object: KubeObject, ref: OwnerReference): void {
  const refs = object.metadata.ownerReferences ?? [];
  const index = indexOfOwnerReference(refs, ref);
  if (index < 0) refs.push(ref);
  else refs[index] = ref;
  object.metadata.ownerReferences = refs;
}

function indexOfOwnerReference(refs: readonly OwnerReference[], ref: OwnerReference): number {
  return refs.findIndex((r) => referSameObject(r, ref));
}

/** Same object: same group (any version), kind and name, as controller-runtime compares them. */
function referSameObject(a: OwnerReference, b: OwnerReference): boolean {
  return parseApiVersion(a.apiVersion).group === parseApiVersion(b.apiVersion).group && a.kind === b.kind && a.name === b.name;
}

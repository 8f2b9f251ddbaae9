/**
 * A StatefulSet's PersistentVolumeClaims (kube's stateful_set_utils.go and
 * stateful_pod_control.go): each volumeClaimTemplate gives every pod a claim
 * `<template>-<set>-<ordinal>`, made before the pod and mounted by it under
 * the template's name. Who owns a claim follows
 * `persistentVolumeClaimRetentionPolicy`, so that the garbage collector
 * deletes it at the right moment:
 *
 * | whenScaled | whenDeleted | owner (controller reference)                        |
 * |------------|-------------|-----------------------------------------------------|
 * | Retain     | Retain      | none                                                |
 * | Retain     | Delete      | the set                                             |
 * | Delete     | Retain      | the pod, once it is scaled away                     |
 * | Delete     | Delete      | the set; the pod instead, once it is scaled away    |
 *
 * Claims owned by something else (another controller, or a set or pod of the
 * same name but another uid) are left alone, as kube leaves them.
 */
import { deepCopy, type OwnerReference } from '@operant/apimachinery';
import { ignoreNotFound, isAlreadyExists, objectReference, PersistentVolumeClaim, StatefulSet, type Typed } from '@operant/runtime';
import type * as appsv1 from 'kubernetes-types/apps/v1.js';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import type { ControllerContext as Context } from '../context.js';
import type { PodObject, Writable } from '../objects.js';

type StatefulSetObject = Typed<appsv1.StatefulSet>;
type ClaimObject = Typed<Writable<corev1.PersistentVolumeClaim>>;
type PodSpec = NonNullable<PodObject['spec']>;

/** kube's getPersistentVolumeClaims: the claims of the pod at `ordinal`, by template name, in template order. */
export function claimsFor(set: StatefulSetObject, ordinal: number): Array<[template: string, claim: ClaimObject]> {
  const selectorLabels = set.spec?.selector?.matchLabels ?? {};
  return (set.spec?.volumeClaimTemplates ?? []).map((template) => {
    const claim = deepCopy(template) as ClaimObject;
    const templateName = template.metadata?.name ?? '';
    claim.apiVersion = 'v1';
    claim.kind = 'PersistentVolumeClaim';
    claim.metadata = { ...claim.metadata, name: `${templateName}-${set.metadata.name}-${ordinal}`, namespace: set.metadata.namespace };
    claim.metadata.labels = { ...(claim.metadata.labels ?? {}), ...selectorLabels };
    delete claim.status;
    return [templateName, claim];
  });
}

/** kube's updateStorage: a volume per template pointing at the pod's claim, replacing a pod volume of the same name. */
export function mountClaims(set: StatefulSetObject, ordinal: number, spec: PodSpec): void {
  const claims = claimsFor(set, ordinal);
  if (claims.length === 0) return;
  const templates = new Set(claims.map(([name]) => name));
  const volumes: corev1.Volume[] = claims.map(([name, claim]) => ({ name, persistentVolumeClaim: { claimName: claim.metadata.name! } }));
  for (const v of spec.volumes ?? []) if (!templates.has(v.name)) volumes.push(v);
  (spec as Writable<PodSpec>).volumes = volumes;
}

/**
 * kube's createPersistentVolumeClaims: creates the pod's missing claims,
 * recording kube's claim events. Throws when a claim is being deleted (the
 * pod must wait for it to go) or cannot be made.
 */
export async function createMissingClaims(ctx: Context, set: StatefulSetObject, ordinal: number): Promise<void> {
  const regarding = objectReference(set, StatefulSet);
  const podName = `${set.metadata.name}-${ordinal}`;
  const problems: string[] = [];
  for (const [, claim] of claimsFor(set, ordinal)) {
    const name = claim.metadata.name!;
    const existing = (await ctx.client.get(PersistentVolumeClaim, name, { namespace: claim.metadata.namespace }).catch(ignoreNotFound)) as ClaimObject | undefined;
    if (existing) {
      if (existing.metadata.deletionTimestamp) problems.push(`pvc ${name} is being deleted`);
      continue;
    }
    try {
      await ctx.client.create(PersistentVolumeClaim, claim);
      ctx.recorder.event(regarding, 'Normal', 'SuccessfulCreate', `create Claim ${name} Pod ${podName} in StatefulSet ${set.metadata.name} success`);
    } catch (err) {
      if (isAlreadyExists(err)) continue;
      ctx.recorder.event(regarding, 'Warning', 'FailedCreate', `create Claim ${name} for Pod ${podName} in StatefulSet ${set.metadata.name} failed error: ${(err as Error).message}`);
      problems.push(`failed to create PVC ${name}: ${(err as Error).message}`);
    }
  }
  if (problems.length) throw new Error(problems.length === 1 ? problems[0] : `[${problems.join(', ')}]`);
}

/**
 * kube's UpdatePodClaimForRetentionPolicy: rewrites the owner references of
 * the pod's claims that do not match the set's retention policy.
 */
export async function applyRetentionPolicy(ctx: Context, set: StatefulSetObject, pod: PodObject, ordinal: number): Promise<void> {
  for (const [, wanted] of claimsFor(set, ordinal)) {
    const claim = (await ctx.client.get(PersistentVolumeClaim, wanted.metadata.name!, { namespace: wanted.metadata.namespace }).catch(ignoreNotFound)) as
      | ClaimObject
      | undefined;
    if (!claim || claim.metadata.deletionTimestamp) continue;
    const refs = ownerReferencesFor(claim, set, pod, ordinal);
    if (refs === undefined) continue;
    const updated = deepCopy(claim) as ClaimObject;
    if (refs.length) updated.metadata.ownerReferences = refs;
    else delete updated.metadata.ownerReferences;
    await ctx.client.update(PersistentVolumeClaim, updated);
  }
}

const retain = 'Retain';
const setApiVersion = 'apps/v1';

function policyOf(set: StatefulSetObject): { whenScaled: string; whenDeleted: string } {
  const p = set.spec?.persistentVolumeClaimRetentionPolicy;
  return { whenScaled: p?.whenScaled ?? retain, whenDeleted: p?.whenDeleted ?? retain };
}

/** kube's matchesRef: the same apiVersion, kind and name (not necessarily the same uid). */
function refersTo(ref: OwnerReference, apiVersion: string, kind: string, name: string | undefined): boolean {
  return ref.apiVersion === apiVersion && ref.kind === kind && ref.name === name;
}

const controllerRef = (apiVersion: string, kind: string, owner: { metadata: { name?: string; uid?: string } }): OwnerReference => ({
  apiVersion,
  kind,
  name: owner.metadata.name!,
  uid: owner.metadata.uid!,
  controller: true,
  blockOwnerDeletion: true,
});

/**
 * The owner references the claim should have under the set's policy, or
 * undefined when they are right already or the claim is not ours to change
 * (kube's isClaimOwnerUpToDate, then updateClaimOwnerRefForSetAndPod).
 */
export function ownerReferencesFor(claim: ClaimObject, set: StatefulSetObject, pod: PodObject, ordinal: number): OwnerReference[] | undefined {
  const refs = claim.metadata.ownerReferences ?? [];
  const isSet = (r: OwnerReference): boolean => refersTo(r, setApiVersion, 'StatefulSet', set.metadata.name);
  const isPod = (r: OwnerReference): boolean => refersTo(r, 'v1', 'Pod', pod.metadata.name);
  // A reference to a set or pod of our name but another uid: a predecessor manages it, hands off.
  if (refs.some((r) => (isSet(r) && r.uid !== set.metadata.uid) || (isPod(r) && r.uid !== pod.metadata.uid))) return undefined;
  const { whenScaled, whenDeleted } = policyOf(set);
  const keepsAll = whenScaled === retain && whenDeleted === retain;
  const otherController = !keepsAll && refs.some((r) => !isSet(r) && !isPod(r) && r.controller === true);
  const others = refs.filter((r) => !isSet(r) && !isPod(r));
  const wanted = [...others];
  if (!otherController) {
    const scaledDown = ordinal >= (set.spec?.replicas ?? 1);
    const podOwns = whenScaled !== retain && scaledDown;
    const setOwns = whenDeleted !== retain && !(whenScaled !== retain && scaledDown);
    if (setOwns) wanted.push(controllerRef(setApiVersion, 'StatefulSet', set));
    if (podOwns) wanted.push(controllerRef('v1', 'Pod', pod));
  }
  const same = (a: OwnerReference[], b: OwnerReference[]): boolean =>
    a.length === b.length && a.every((r) => b.some((s) => s.uid === r.uid && !!s.controller === !!r.controller));
  return same(refs, wanted) ? undefined : wanted;
}

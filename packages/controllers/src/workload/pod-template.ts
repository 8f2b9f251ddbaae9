/**
 * Pods made from a workload's template (kube's controller.GetPodFromTemplate)
 * and created or deleted with the events kube's pod control records
 * (SuccessfulCreate / FailedCreate, SuccessfulDelete / FailedDelete).
 */
import { deepCopy } from '@operant/apimachinery';
import { isNotFound, objectReference, Pod, setControllerReference, type Kind, type KubeObject } from '@operant/runtime';
import { namespaceTerminating, type ControllerContext } from '../context.js';
import type { PodObject, PodTemplateSpec } from '../objects.js';

/** What a pod adds to its template: a name (or prefix), labels, annotations, finalizers, spec changes. */
export interface PodIdentity {
  name?: string;
  generateName?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  /** Changes to the copied spec (hostname, node affinity, tolerations). */
  adjustSpec?: (spec: NonNullable<PodObject['spec']>) => void;
}

/** A pod from `template`, controlled by `owner`. */
export function podFromTemplate(owner: KubeObject, ownerKind: Kind, template: PodTemplateSpec | undefined, identity: PodIdentity): PodObject {
  const t = template ?? {};
  const spec = deepCopy(t.spec) ?? { containers: [] };
  identity.adjustSpec?.(spec);
  const finalizers = [...(t.metadata?.finalizers ?? []), ...(identity.finalizers ?? [])];
  const pod: PodObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: identity.name,
      generateName: identity.generateName,
      namespace: owner.metadata.namespace,
      labels: { ...t.metadata?.labels, ...identity.labels },
      annotations: t.metadata?.annotations || identity.annotations ? { ...t.metadata?.annotations, ...identity.annotations } : undefined,
      finalizers: finalizers.length ? finalizers : undefined,
    },
    spec,
  };
  setControllerReference(owner, pod, ownerKind);
  return pod;
}

/**
 * Creates `pod` for `owner`, recording SuccessfulCreate (or FailedCreate) with
 * `describe(podName)` as the message; resolves to the created pod, or
 * undefined when the namespace is terminating (nothing worth reporting).
 */
export async function createOwnedPod(
  ctx: ControllerContext,
  owner: KubeObject,
  ownerKind: Kind,
  pod: PodObject,
  describe: (podName: string) => string = (name) => `Created pod: ${name}`,
): Promise<PodObject | undefined> {
  const regarding = objectReference(owner, ownerKind);
  try {
    const created = (await ctx.client.create(Pod, pod)) as PodObject;
    ctx.recorder.event(regarding, 'Normal', 'SuccessfulCreate', describe(created.metadata.name ?? ''));
    return created;
  } catch (err) {
    if (namespaceTerminating(err)) return undefined;
    ctx.recorder.event(regarding, 'Warning', 'FailedCreate', `Error creating: ${(err as Error).message}`);
    throw err;
  }
}

/** Deletes `pod` of `owner` (by uid, so a successor of the same name survives), recording SuccessfulDelete. */
export async function deleteOwnedPod(
  ctx: ControllerContext,
  owner: KubeObject,
  ownerKind: Kind,
  pod: PodObject,
  describe: (podName: string) => string = (name) => `Deleted pod: ${name}`,
): Promise<void> {
  const regarding = objectReference(owner, ownerKind);
  try {
    await ctx.client.delete(Pod, pod.metadata.name!, { namespace: pod.metadata.namespace, preconditions: { uid: pod.metadata.uid } });
    ctx.recorder.event(regarding, 'Normal', 'SuccessfulDelete', describe(pod.metadata.name ?? ''));
  } catch (err) {
    if (isNotFound(err)) return;
    ctx.recorder.event(regarding, 'Warning', 'FailedDelete', `Error deleting: ${(err as Error).message}`);
    throw err;
  }
}

/** Whether the pod runs and is ready (kube's isRunningAndReady). */
export function isRunningAndReady(pod: PodObject): boolean {
  return pod.status?.phase === 'Running' && (pod.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** Whether the pod has ended (Succeeded or Failed). */
export function isTerminal(pod: PodObject): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

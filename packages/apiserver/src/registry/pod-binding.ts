/**
 * Binding a pod to a node (kube's BindingREST in pkg/registry/core/pod/storage):
 * the one way a pod's `spec.nodeName` is set after creation. The scheduler
 * POSTs a v1 Binding to `pods/<name>/binding`; the pod gets the node, the
 * Binding's annotations and a PodScheduled=True condition in one storage
 * update, which is refused for a pod that is being deleted, already bound,
 * or still gated.
 */
import { badRequest, conflict, fieldErrors, invalid, isJsonObject, notFound, type FieldError, type KubeObject } from '@operant/apimachinery';
import { StoreError } from '../storage/types.js';
import { setPodCondition } from './pod-conditions.js';
import type { ResourceStore } from './resource-store.js';

type Json = Record<string, unknown>;
const asObj = (v: unknown): Json => (isJsonObject(v) ? (v as Json) : {});

/** A v1 Binding as the scheduler sends it. */
export interface Binding {
  metadata?: { name?: string; uid?: string; resourceVersion?: string; annotations?: Record<string, string> };
  target?: { kind?: string; name?: string };
}

/** kube's ValidatePodBinding. */
function validateBinding(binding: Binding): FieldError[] {
  const errs: FieldError[] = [];
  const target = binding.target ?? {};
  if (target.kind && target.kind !== 'Node') errs.push(fieldErrors.notSupported('target.kind', target.kind, ['Node', '<empty>']));
  if (!target.name) errs.push(fieldErrors.required('target.name'));
  return errs;
}

/**
 * A copy of a stored pod that a binding may change: its metadata, spec, status
 * and status.conditions are its own, the rest is shared with the stored pod
 * (which is never changed in place), so a binding does not copy the whole pod.
 */
function forBinding(stored: KubeObject): KubeObject {
  const pod = { ...stored, metadata: { ...stored.metadata } } as KubeObject;
  if (isJsonObject(stored.spec)) pod.spec = { ...stored.spec };
  if (isJsonObject(stored.status)) {
    const status: Json = { ...(stored.status as Json) };
    if (Array.isArray(status.conditions)) status.conditions = [...(status.conditions as unknown[])];
    pod.status = status;
  }
  return pod;
}

/**
 * Binds pod `name` (of `pods`, the pod registry) to the Binding's target node,
 * after `validate` (the validating admission webhooks).
 * Failures are kube's: 400 for a name that differs from the URL's, 422 for a
 * bad target, 404 for a missing pod, 409 `Operation cannot be fulfilled on
 * pods/binding "web": pod web is already assigned to node "node-1"`.
 */
export async function bindPod(pods: ResourceStore, namespace: string, name: string, binding: Binding, dryRun: boolean, validate?: () => Promise<void>): Promise<void> {
  if ((binding.metadata?.name ?? '') !== name) throw badRequest('name in URL does not match name in Binding object');
  const errs = validateBinding(binding);
  if (errs.length) throw invalid('', 'Binding', name, errs);
  // The validating webhooks see a Binding that passed these checks, as kube's createValidation does.
  await validate?.();
  const gr = { group: '', resource: 'pods/binding' };
  const node = binding.target!.name!;
  const key = pods.key(namespace, name);
  for (let attempt = 0; ; attempt++) {
    const current = pods.mvcc.get(key);
    if (!current) throw notFound({ group: '', resource: 'pods' }, name);
    const pod = forBinding(current.value);
    const meta = pod.metadata;
    // The Binding's uid and resourceVersion are preconditions on the pod.
    if (binding.metadata?.uid && binding.metadata.uid !== meta.uid) {
      throw conflict(gr, name, `Precondition failed: UID in precondition: ${binding.metadata.uid}, UID in object meta: ${meta.uid}`);
    }
    if (binding.metadata?.resourceVersion && binding.metadata.resourceVersion !== meta.resourceVersion) {
      throw conflict(gr, name, `Precondition failed: ResourceVersion in precondition: ${binding.metadata.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion}`);
    }
    const spec = asObj(pod.spec);
    if (meta.deletionTimestamp) throw conflict(gr, name, `pod ${name} is being deleted, cannot be assigned to a host`);
    if (spec.nodeName) throw conflict(gr, name, `pod ${name} is already assigned to node ${JSON.stringify(spec.nodeName)}`);
    if (Array.isArray(spec.schedulingGates) && spec.schedulingGates.length > 0) throw conflict(gr, name, `pod ${name} has non-empty .spec.schedulingGates`);
    spec.nodeName = node;
    pod.spec = spec;
    if (binding.metadata?.annotations) meta.annotations = { ...meta.annotations, ...binding.metadata.annotations };
    setPodCondition(pod, { type: 'PodScheduled', status: 'True' });
    if (dryRun) return;
    try {
      pods.mvcc.update(key, current.rev, pod);
      return;
    } catch (e) {
      if (e instanceof StoreError && e.code === 'Conflict' && attempt < 5) continue;
      throw e;
    }
  }
}

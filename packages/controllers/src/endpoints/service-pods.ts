/**
 * What the endpoints and endpointslice controllers share: which pods back a
 * Service (kube's ShouldPodBeInEndpoints), which container port a service
 * port reaches on a pod (podutil.FindPort), and the index from a pod to the
 * Services selecting it.
 */
import type { Request } from '@operant/runtime';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import type { PodObject } from '../objects.js';

/** A Service's selector as a label set, or undefined when it has none (such a Service's endpoints are not managed). */
export function serviceSelector(service: corev1.Service): Record<string, string> | undefined {
  return service.spec?.selector;
}

/** Whether `labels` carry every label of `selector` (a Service's selector is a plain label set). */
export function selects(selector: Readonly<Record<string, string>>, labels: Readonly<Record<string, string>> | undefined): boolean {
  // A plain loop: the scheduler asks this of every Service for every pod it spreads.
  for (const key in selector) if (Object.hasOwn(selector, key) && labels?.[key] !== selector[key]) return false;
  return true;
}

/** kube's ShouldPodBeInEndpoints: a pod with an IP that has not finished; terminating ones only when asked. */
export function shouldPodBeInEndpoints(pod: PodObject, includeTerminating: boolean): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  if (!pod.status?.podIP) return false;
  if (!includeTerminating && pod.metadata.deletionTimestamp) return false;
  return true;
}

/** kube's podutil.FindPort: the pod's port for a service port (a number as is, a name looked up among container ports). */
export function findPort(pod: PodObject, port: corev1.ServicePort): number | undefined {
  const target = port.targetPort ?? port.port;
  if (typeof target === 'number') return target;
  const protocol = port.protocol ?? 'TCP';
  const containers = [...(pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always'), ...(pod.spec?.containers ?? [])];
  for (const container of containers) {
    for (const p of container.ports ?? []) {
      if (p.name === target && (p.protocol ?? 'TCP') === protocol) return p.containerPort;
    }
  }
  return undefined;
}

/** The Services seen so far with their selectors, so that a pod's change reaches the Services that select it. */
export class ServiceIndex {
  private readonly services = new Map<string, { request: Request; selector: Record<string, string> }>();

  /** Records a Service's selector (or forgets it when the Service is gone or selects nothing). */
  set(request: Request, selector: Record<string, string> | undefined): void {
    const key = `${request.namespace}/${request.name}`;
    if (selector) this.services.set(key, { request, selector });
    else this.services.delete(key);
  }

  /** The Services in the pod's namespace whose selector it matches. */
  servicesOf(pod: PodObject): Request[] {
    const out: Request[] = [];
    for (const s of this.services.values()) {
      if (s.request.namespace === pod.metadata.namespace && selects(s.selector, pod.metadata.labels)) out.push(s.request);
    }
    return out;
  }
}

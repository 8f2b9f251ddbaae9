/**
 * The QoS class kube's pod strategy writes into a new pod's status
 * (pkg/apis/core/helper/qos: GetPodQOS).
 */
type Json = Record<string, unknown>;

function obj(v: unknown): Json | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
}

/** The QoS class kube computes for a pod: BestEffort, Burstable or Guaranteed. */
export function podQosClass(spec: unknown): string {
  const s = obj(spec);
  const containers = [...((s?.containers as unknown[]) ?? []), ...((s?.initContainers as unknown[]) ?? [])].map(obj);
  let any = false;
  let guaranteed = containers.length > 0;
  for (const c of containers) {
    const res = obj(c?.resources);
    const req = obj(res?.requests) ?? {};
    const lim = obj(res?.limits) ?? {};
    if (Object.keys(req).length || Object.keys(lim).length) any = true;
    for (const r of ['cpu', 'memory']) {
      if (lim[r] === undefined || (req[r] !== undefined && req[r] !== lim[r])) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

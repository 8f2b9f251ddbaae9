/**
 * Defaults for pod specs, as kube's SetDefaults_PodSpec/Container fill them in,
 * shared by Pods and every kind with a pod template.
 */
type Json = Record<string, unknown>;

function obj(v: unknown): Json | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
}

function setIfMissing(o: Json, key: string, value: unknown): void {
  if (o[key] === undefined) o[key] = value;
}

function defaultContainer(c: Json): void {
  const image = typeof c.image === 'string' ? c.image : '';
  const lastSegment = image.slice(image.lastIndexOf('/') + 1);
  const tag = lastSegment.includes('@') ? '' : lastSegment.includes(':') ? lastSegment.slice(lastSegment.indexOf(':') + 1) : 'latest';
  setIfMissing(c, 'imagePullPolicy', tag === 'latest' ? 'Always' : 'IfNotPresent');
  setIfMissing(c, 'terminationMessagePath', '/dev/termination-log');
  setIfMissing(c, 'terminationMessagePolicy', 'File');
  setIfMissing(c, 'resources', {});
  if (Array.isArray(c.ports)) for (const p of c.ports) if (obj(p)) setIfMissing(p as Json, 'protocol', 'TCP');
}

/** Fills in a pod spec's defaults in place. */
export function defaultPodSpec(spec: unknown): void {
  const s = obj(spec);
  if (!s) return;
  setIfMissing(s, 'restartPolicy', 'Always');
  setIfMissing(s, 'terminationGracePeriodSeconds', 30);
  setIfMissing(s, 'dnsPolicy', 'ClusterFirst');
  setIfMissing(s, 'securityContext', {});
  setIfMissing(s, 'schedulerName', 'default-scheduler');
  for (const list of ['containers', 'initContainers']) {
    if (Array.isArray(s[list])) for (const c of s[list] as unknown[]) if (obj(c)) defaultContainer(c as Json);
  }
}

/** Fills in a pod template's defaults in place. */
export function defaultPodTemplate(template: unknown): void {
  const t = obj(template);
  if (t) defaultPodSpec(t.spec);
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

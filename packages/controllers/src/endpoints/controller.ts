/**
 * The endpoints controller (kube's pkg/controller/endpoint): for each Service
 * with a selector, an Endpoints object of the same name listing the selected
 * pods' IPs, ready ones under `addresses` and the others under
 * `notReadyAddresses`, with each service port resolved on the pod (named
 * target ports looked up among its container ports). Pods whose ports
 * resolve differently land in different subsets. Past 1,000 addresses the
 * object is truncated and annotated `endpoints.kubernetes.io/over-capacity:
 * truncated`, as kube does. The object goes when its
 * Service goes; Services without a selector are left to their users.
 */
import { deepCopy } from '@operant/apimachinery';
import { Endpoints, ignoreNotFound, isAlreadyExists, Pod, Service, type Manager, type Request, type Typed } from '@operant/runtime';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import type { ControllerContext as Context, WorkloadControllerOptions } from '../context.js';
import { canonicalJson } from '../json.js';
import type { PodObject } from '../objects.js';
import { isPodReady } from '../pod/pod-util.js';
import { findPort, ServiceIndex, selects, serviceSelector, shouldPodBeInEndpoints } from './service-pods.js';

type ServiceObject = Typed<corev1.Service>;
type EndpointsObject = Typed<corev1.Endpoints>;

/** The label kube puts on the Endpoints of a headless Service. */
export const headlessServiceLabel = 'service.kubernetes.io/headless';

/**
 * Adds kube's endpoints controller to a manager.
 *
 * @example
 * ```ts
 * import { addEndpointsController } from '@operant/controllers';
 * import { handleSignals, Manager } from '@operant/runtime';
 *
 * const mgr = await Manager.create({ client: { readYourWrites: true } });
 * addEndpointsController(mgr);
 * await mgr.start(handleSignals());
 * ```
 */
export function addEndpointsController(mgr: Manager, options: WorkloadControllerOptions = {}): void {
  const clock = options.clock;
  const ctx: Context = { client: mgr.client, recorder: mgr.eventRecorderFor('endpoint-controller'), now: () => (clock ?? Date).now() };
  const index = new ServiceIndex();
  mgr
    .controller('endpoint', clock ? { clock } : {})
    .for(Service)
    .watches(Pod, (pod) => index.servicesOf(pod as PodObject))
    .watches(Endpoints, (ep) => [{ namespace: ep.metadata.namespace ?? '', name: ep.metadata.name ?? '' }])
    .maxConcurrentReconciles(options.workers ?? 5)
    .reconcile((req) => syncEndpoints(ctx, index, req));
}

async function syncEndpoints(ctx: Context, index: ServiceIndex, req: Request): Promise<void> {
  const service = (await ctx.client.get(Service, req.name, { namespace: req.namespace }).catch(ignoreNotFound)) as ServiceObject | undefined;
  if (!service) {
    index.set(req, undefined);
    await ctx.client.delete(Endpoints, req.name, { namespace: req.namespace }).catch(ignoreNotFound);
    return;
  }
  const selector = serviceSelector(service);
  index.set(req, selector);
  if (!selector || service.metadata.deletionTimestamp) return;

  const pods = ((await ctx.client.list(Pod, { namespace: req.namespace })).items as PodObject[]).filter((p) => selects(selector, p.metadata.labels));
  const subsets = endpointSubsets(service, pods);
  const labels: Record<string, string> = { ...(service.metadata.labels ?? {}) };
  if (service.spec?.clusterIP === 'None') labels[headlessServiceLabel] = '';
  else delete labels[headlessServiceLabel];

  const current = (await ctx.client.get(Endpoints, req.name, { namespace: req.namespace }).catch(ignoreNotFound)) as EndpointsObject | undefined;
  const truncated = truncateSubsets(subsets);
  const annotations: Record<string, string> = { ...(current?.metadata.annotations ?? {}) };
  if (truncated) annotations[overCapacityAnnotation] = 'truncated';
  else delete annotations[overCapacityAnnotation];
  if (!current) {
    const created: EndpointsObject = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: req.name, namespace: req.namespace, labels, ...(truncated ? { annotations } : {}) },
      subsets,
    };
    await ctx.client.create(Endpoints, created).catch((err: unknown) => {
      // The Service's Endpoints came from elsewhere meanwhile; the next event reconciles them.
      if (!isAlreadyExists(err)) throw err;
    });
    return;
  }
  if (
    canonicalJson(current.subsets ?? []) === canonicalJson(subsets) &&
    canonicalJson(current.metadata.labels ?? {}) === canonicalJson(labels) &&
    canonicalJson(current.metadata.annotations ?? {}) === canonicalJson(annotations)
  ) {
    return;
  }
  const updated = deepCopy(current) as EndpointsObject;
  updated.metadata.labels = labels;
  updated.metadata.annotations = annotations;
  (updated as { subsets?: corev1.EndpointSubset[] }).subsets = subsets;
  await ctx.client.update(Endpoints, updated);
}

/** How many addresses one Endpoints object holds (kube's maxCapacity); EndpointSlices carry the rest. */
export const maxEndpointsCapacity = 1000;

/** The annotation kube sets on an Endpoints object it had to truncate. */
export const overCapacityAnnotation = 'endpoints.kubernetes.io/over-capacity';

/**
 * kube's truncateEndpoints: cuts the subsets (in place) to
 * {@link maxEndpointsCapacity} addresses, ready ones first, each subset
 * keeping its share (rounded up) of what is kept; true when it cut.
 */
export function truncateSubsets(subsets: corev1.EndpointSubset[]): boolean {
  let totalReady = 0;
  let totalNotReady = 0;
  for (const s of subsets) {
    totalReady += s.addresses?.length ?? 0;
    totalNotReady += s.notReadyAddresses?.length ?? 0;
  }
  if (totalReady + totalNotReady <= maxEndpointsCapacity) return false;
  // Over capacity with ready ones alone: those are cut and every not-ready one goes; else only not-ready ones are cut.
  const cutReady = totalReady > maxEndpointsCapacity;
  const room = cutReady ? maxEndpointsCapacity : maxEndpointsCapacity - totalReady;
  const total = cutReady ? totalReady : totalNotReady;
  let left = room;
  for (const s of subsets) {
    const list = (cutReady ? s.addresses : s.notReadyAddresses) ?? [];
    const share = Math.min(Math.ceil((list.length / total) * room), left);
    const kept = list.slice(0, share);
    if (cutReady) {
      s.addresses = kept;
      s.notReadyAddresses = [];
    } else s.notReadyAddresses = kept;
    left -= kept.length;
  }
  return true;
}

/** One subset per distinct set of resolved ports, addresses sorted by IP (kube's RepackSubsets and SortSubsets). */
export function endpointSubsets(service: corev1.Service, pods: PodObject[]): corev1.EndpointSubset[] {
  const publishNotReady = service.spec?.publishNotReadyAddresses === true;
  const groups = new Map<string, { ports: corev1.EndpointPort[]; ready: corev1.EndpointAddress[]; notReady: corev1.EndpointAddress[] }>();
  for (const pod of [...pods].sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1))) {
    if (!shouldPodBeInEndpoints(pod, publishNotReady)) continue;
    const address: corev1.EndpointAddress = {
      ip: pod.status!.podIP!,
      // kube's ShouldSetHostname: a pod naming this Service as its subdomain is reachable by its hostname.
      ...(pod.spec?.hostname && pod.spec.subdomain === service.metadata?.name && pod.metadata.namespace === service.metadata?.namespace ? { hostname: pod.spec.hostname } : {}),
      nodeName: pod.spec?.nodeName,
      targetRef: { kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid },
    };
    const ports: corev1.EndpointPort[] = [];
    for (const sp of service.spec?.ports ?? []) {
      const port = findPort(pod, sp);
      if (port === undefined) continue;
      ports.push({ ...(sp.name ? { name: sp.name } : {}), port, protocol: sp.protocol ?? 'TCP', ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}) });
    }
    // A Service with ports whose pod resolves none of them is left out; a headless one without ports lists the pod bare.
    if ((service.spec?.ports ?? []).length > 0 && ports.length === 0) continue;
    if ((service.spec?.ports ?? []).length === 0 && service.spec?.clusterIP !== 'None') continue;
    const key = canonicalJson([...ports].sort((a, b) => ((a.name ?? '') < (b.name ?? '') ? -1 : 1)));
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { ports, ready: [], notReady: [] }));
    (publishNotReady || isPodReady(pod) ? group.ready : group.notReady).push(address);
  }
  const byIp = (a: corev1.EndpointAddress, b: corev1.EndpointAddress): number => (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : 0);
  return [...groups.values()].map((g) => ({
    ...(g.ready.length ? { addresses: g.ready.sort(byIp) } : {}),
    ...(g.notReady.length ? { notReadyAddresses: g.notReady.sort(byIp) } : {}),
    ...(g.ports.length ? { ports: g.ports } : {}),
  }));
}

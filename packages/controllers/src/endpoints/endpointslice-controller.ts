/**
 * The endpointslice controller (kube's pkg/controller/endpointslice): for
 * each Service with a selector, IPv4 EndpointSlices of the selected pods,
 * named `<service>-<random>` (generateName), labelled
 * `kubernetes.io/service-name` and `endpointslice.kubernetes.io/managed-by:
 * endpointslice-controller.k8s.io` (plus the Service's own labels), owned by
 * the Service (so the garbage collector removes them with it).
 *
 * Each endpoint carries the pod's IP, its node, a targetRef and the
 * conditions kube sets (ready: ready and not terminating; serving: ready;
 * terminating). Pods whose service ports resolve alike share slices of at
 * most 100 endpoints (--max-endpoints-per-slice); a Service that selects no
 * pod gets one placeholder slice without endpoints or ports, as in kube.
 */
import { deepCopy } from '@operant/apimachinery';
import { EndpointSlice, ignoreNotFound, isControlledBy, Pod, Service, setControllerReference, type Manager, type Request, type Typed } from '@operant/runtime';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import type * as discoveryv1 from 'kubernetes-types/discovery/v1.js';
import type { ControllerContext as Context, WorkloadControllerOptions } from '../context.js';
import { canonicalJson } from '../json.js';
import type { PodObject, Writable } from '../objects.js';
import { isPodReady } from '../pod/pod-util.js';
import { headlessServiceLabel } from './controller.js';
import { findPort, ServiceIndex, selects, serviceSelector, shouldPodBeInEndpoints } from './service-pods.js';

type ServiceObject = Typed<corev1.Service>;
type SliceObject = Typed<discoveryv1.EndpointSlice>;

/** The label naming a slice's Service. */
export const serviceNameLabel = 'kubernetes.io/service-name';
/** The label naming the controller that manages a slice. */
export const managedByLabel = 'endpointslice.kubernetes.io/managed-by';
/** This controller's value of {@link managedByLabel}, kube's. */
export const endpointSliceControllerName = 'endpointslice-controller.k8s.io';
/** kube-controller-manager's --max-endpoints-per-slice default. */
export const maxEndpointsPerSlice = 100;

/**
 * Adds kube's endpointslice controller to a manager.
 *
 * @example
 * ```ts
 * import { addEndpointSliceController } from '@operant/controllers';
 * import { handleSignals, Manager } from '@operant/runtime';
 *
 * const mgr = await Manager.create({ client: { readYourWrites: true } });
 * addEndpointSliceController(mgr);
 * await mgr.start(handleSignals());
 * ```
 */
export function addEndpointSliceController(mgr: Manager, options: WorkloadControllerOptions = {}): void {
  const clock = options.clock;
  const ctx: Context = { client: mgr.client, recorder: mgr.eventRecorderFor('endpoint-slice-controller'), now: () => (clock ?? Date).now() };
  const index = new ServiceIndex();
  mgr
    .controller('endpointslice', clock ? { clock } : {})
    .for(Service)
    .owns(EndpointSlice)
    .watches(Pod, (pod) => index.servicesOf(pod as PodObject))
    .maxConcurrentReconciles(options.workers ?? 5)
    .reconcile((req) => syncSlices(ctx, index, req));
}

/** One endpoint of a slice, with the key its ports resolve to. */
interface DesiredEndpoint {
  portsKey: string;
  ports: discoveryv1.EndpointPort[];
  endpoint: discoveryv1.Endpoint;
}

function desiredEndpoints(service: corev1.Service, pods: PodObject[]): DesiredEndpoint[] {
  const publishNotReady = service.spec?.publishNotReadyAddresses === true;
  const out: DesiredEndpoint[] = [];
  for (const pod of [...pods].sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1))) {
    if (!shouldPodBeInEndpoints(pod, true)) continue;
    const ports: discoveryv1.EndpointPort[] = [];
    for (const sp of service.spec?.ports ?? []) {
      const port = findPort(pod, sp);
      if (port === undefined) continue;
      ports.push({ name: sp.name ?? '', port, protocol: sp.protocol ?? 'TCP', ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}) });
    }
    const terminating = !!pod.metadata.deletionTimestamp;
    const serving = publishNotReady || isPodReady(pod);
    const endpoint: discoveryv1.Endpoint = {
      addresses: [pod.status!.podIP!],
      conditions: { ready: serving && (publishNotReady || !terminating), serving, terminating },
      ...(pod.spec?.nodeName ? { nodeName: pod.spec.nodeName } : {}),
      targetRef: { kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid },
      ...(pod.spec?.hostname && pod.spec.subdomain === service.metadata?.name ? { hostname: pod.spec.hostname } : {}),
    };
    out.push({ portsKey: canonicalJson([...ports].sort((a, b) => ((a.name ?? '') < (b.name ?? '') ? -1 : 1))), ports, endpoint });
  }
  return out;
}

/** The slices a Service should have: per port set, chunks of at most maxEndpointsPerSlice; a placeholder when there are none. */
function desiredSlices(service: corev1.Service, pods: PodObject[]): Array<{ portsKey: string; ports?: discoveryv1.EndpointPort[]; endpoints: discoveryv1.Endpoint[] }> {
  const groups = new Map<string, { ports: discoveryv1.EndpointPort[]; endpoints: discoveryv1.Endpoint[] }>();
  for (const d of desiredEndpoints(service, pods)) {
    let g = groups.get(d.portsKey);
    if (!g) groups.set(d.portsKey, (g = { ports: d.ports, endpoints: [] }));
    g.endpoints.push(d.endpoint);
  }
  const out: Array<{ portsKey: string; ports?: discoveryv1.EndpointPort[]; endpoints: discoveryv1.Endpoint[] }> = [];
  for (const [portsKey, g] of groups) {
    for (let i = 0; i < g.endpoints.length; i += maxEndpointsPerSlice) {
      out.push({ portsKey, ports: g.ports, endpoints: g.endpoints.slice(i, i + maxEndpointsPerSlice) });
    }
  }
  if (out.length === 0) out.push({ portsKey: 'placeholder', endpoints: [] });
  return out;
}

function sliceLabels(service: ServiceObject): Record<string, string> {
  const labels: Record<string, string> = { ...(service.metadata.labels ?? {}) };
  delete labels[headlessServiceLabel];
  if (service.spec?.clusterIP === 'None') labels[headlessServiceLabel] = '';
  labels[serviceNameLabel] = service.metadata.name!;
  labels[managedByLabel] = endpointSliceControllerName;
  return labels;
}

function portsKeyOf(slice: SliceObject): string {
  if (!slice.ports && (slice.endpoints ?? []).length === 0) return 'placeholder';
  return canonicalJson([...(slice.ports ?? [])].sort((a, b) => ((a.name ?? '') < (b.name ?? '') ? -1 : 1)));
}

async function syncSlices(ctx: Context, index: ServiceIndex, req: Request): Promise<void> {
  const service = (await ctx.client.get(Service, req.name, { namespace: req.namespace }).catch(ignoreNotFound)) as ServiceObject | undefined;
  const selector = service ? serviceSelector(service) : undefined;
  index.set(req, selector);
  // A deleted Service's slices go with it (owner references); one without a selector is not ours.
  if (!service || !selector || service.metadata.deletionTimestamp) return;

  const pods = ((await ctx.client.list(Pod, { namespace: req.namespace })).items as PodObject[]).filter((p) => selects(selector, p.metadata.labels));
  const existing = ((await ctx.client.list(EndpointSlice, { namespace: req.namespace, labelSelector: `${serviceNameLabel}=${req.name}` })).items as SliceObject[]).filter(
    (s) => s.metadata.labels?.[managedByLabel] === endpointSliceControllerName && isControlledBy(s, service),
  );
  const labels = sliceLabels(service);
  const unused = [...existing];
  const wanted = desiredSlices(service, pods).map((want) => {
    // A slice of the same port set is updated rather than replaced.
    const i = unused.findIndex((s) => portsKeyOf(s) === want.portsKey);
    return { want, current: i >= 0 ? unused.splice(i, 1)[0] : undefined };
  });
  for (const { want, current: matched } of wanted) {
    // As kube's reconciler does, a slice that would be deleted takes the place of one to create.
    const current = matched ?? unused.shift();
    const body = { addressType: 'IPv4', endpoints: want.endpoints, ...(want.ports ? { ports: want.ports } : {}) };
    if (!current) {
      const slice = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { generateName: `${req.name}-`, namespace: req.namespace, labels }, ...body } as SliceObject;
      setControllerReference(service, slice, Service);
      await ctx.client.create(EndpointSlice, slice);
      continue;
    }
    const unchanged =
      canonicalJson(current.endpoints ?? []) === canonicalJson(body.endpoints) &&
      canonicalJson(current.ports ?? null) === canonicalJson(body.ports ?? null) &&
      canonicalJson(current.metadata.labels ?? {}) === canonicalJson(labels);
    if (unchanged) continue;
    const updated = deepCopy(current) as Writable<SliceObject>;
    updated.metadata.labels = labels;
    updated.endpoints = body.endpoints;
    if (body.ports) updated.ports = body.ports;
    else delete updated.ports;
    await ctx.client.update(EndpointSlice, updated as SliceObject);
  }
  for (const stale of unused) await ctx.client.delete(EndpointSlice, stale.metadata.name!, { namespace: req.namespace }).catch(ignoreNotFound);
}

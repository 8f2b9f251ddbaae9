/**
 * Column definitions and row cells for the built-in resources, as
 * kube-apiserver's printers (pkg/printers/internalversion) produce them for
 * Tables. The server always prints the wide form (`Wide: true`), so every row
 * carries the priority-1 cells too; kubectl hides those columns unless `-o wide`.
 *
 * Objects arrive as wire JSON (v1), not kube's defaulted internal types: where
 * kube would have defaulted a field on write (Deployment replicas, Service type,
 * port protocol, Secret type, Namespace phase) the printers assume that default
 * when the field is absent.
 */
import { canonicalQuantity, type KubeObject } from '@operant/apimachinery';
import { eventToCore } from '../registry/event-conversion.js';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding, ValidatingWebhookConfiguration } from 'kubernetes-types/admissionregistration/v1.js';
import type { ControllerRevision, DaemonSet, Deployment, ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { CronJob, Job, JobCondition } from 'kubernetes-types/batch/v1.js';
import { builtinSchema } from '../openapi/builtin-schemas.js';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import type { RuntimeClass } from 'kubernetes-types/node/v1.js';
import type { FlowSchema, PriorityLevelConfiguration } from 'kubernetes-types/flowcontrol/v1.js';
import type { CSIDriver, CSINode, CSIStorageCapacity, StorageClass, VolumeAttachment } from 'kubernetes-types/storage/v1.js';
import { defaultStorageClassAnnotations } from '../registry/storage-strategies.js';
import { accessModes, betaStorageClassAnnotation } from '../registry/volume-strategies.js';
import { hpaToV2 } from '../registry/autoscaling-conversion.js';
import type { HorizontalPodAutoscaler, MetricSpec, MetricStatus } from 'kubernetes-types/autoscaling/v2.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { Ingress, IngressClass, IngressRule, NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import type {
  ComponentStatus,
  ConfigMap,
  Container,
  Endpoints,
  Event as CoreEvent,
  Namespace,
  Node,
  Pod,
  PodCondition,
  PersistentVolume,
  PersistentVolumeClaim,
  PodStatus,
  PodTemplate,
  ReplicationController,
  ResourceQuota,
  Secret,
  Service,
  ServiceAccount,
  ServicePort,
} from 'kubernetes-types/core/v1.js';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import type { RoleBinding, Subject } from 'kubernetes-types/rbac/v1.js';
import {
  ageColumn,
  column,
  creationTimestampDescription,
  nameColumn,
  type ColumnOptions,
  type TableCell,
  type TableColumnDefinition,
  type TableColumnType,
  type TableRowCondition,
} from './column.js';
import { humanDuration, parseTimestamp, translateTimestampSince } from './duration.js';

/** The cells (and row conditions) a printer produces for one object. */
export interface PrintedRow {
  cells: TableCell[];
  conditions?: TableRowCondition[];
}

/** How one resource prints as a Table: its columns and a row per object. */
export interface ResourcePrinter {
  /** Every column, including the priority-1 (wide) ones, in kube's order. */
  readonly columns: readonly TableColumnDefinition[];
  /** The row for one object; `now` is the reference time for ages. */
  print(obj: KubeObject, now: Date): PrintedRow;
}

// ---------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------

/** Views a wire object as its `kubernetes-types` kind (fields may still be absent at runtime). */
function view<T>(obj: KubeObject): T {
  return obj as unknown as T;
}

function age(obj: KubeObject, now: Date): string {
  return translateTimestampSince(obj.metadata?.creationTimestamp, now);
}

function nameOf(obj: KubeObject): string {
  return obj.metadata?.name ?? '';
}

/** Go's `time.Time.UTC().Format(time.RFC3339)`: seconds precision, `Z` suffix, zero time when unset. */
export function formatRFC3339(timestamp: unknown): string {
  const ms = parseTimestamp(timestamp);
  if (ms === undefined) return '0001-01-01T00:00:00Z';
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** kube's `labels.FormatLabels`: sorted `k=v` pairs joined by commas, `<none>` when empty. */
export function formatLabels(labels: { [key: string]: string } | undefined): string {
  const keys = Object.keys(labels ?? {}).sort();
  if (keys.length === 0) return '<none>';
  return keys.map((k) => `${k}=${(labels ?? {})[k]}`).join(',');
}

/**
 * A label selector in kube's string form (`labels.Selector.String()` of
 * `metav1.LabelSelectorAsSelector`): requirements sorted by key, `k=v`,
 * `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, joined by commas. A missing or empty
 * selector is the empty string; an invalid one is undefined.
 */
export function labelSelectorString(selector: LabelSelector | undefined): string | undefined {
  if (!selector) return '';
  const requirements: Array<{ key: string; text: string }> = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    requirements.push({ key, text: `${key}=${value}` });
  }
  for (const expr of selector.matchExpressions ?? []) {
    const values = [...(expr.values ?? [])];
    switch (expr.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) return undefined;
        requirements.push({
          key: expr.key,
          text: `${expr.key} ${expr.operator === 'In' ? 'in' : 'notin'} (${values.sort().join(',')})`,
        });
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length !== 0) return undefined;
        requirements.push({ key: expr.key, text: expr.operator === 'Exists' ? expr.key : `!${expr.key}` });
        break;
      default:
        return undefined;
    }
  }
  requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return requirements.map((r) => r.text).join(',');
}

/** kube's `metav1.FormatLabelSelector`: the selector string, `<none>` when empty, `<error>` when invalid. */
export function formatLabelSelector(selector: LabelSelector | undefined): string {
  const s = labelSelectorString(selector);
  if (s === undefined) return '<error>';
  return s === '' ? '<none>' : s;
}

/** kube's `layoutContainerCells`: container names and images, each comma-joined. */
function containerCells(containers: Container[] | undefined): [string, string] {
  const list = containers ?? [];
  return [list.map((c) => c.name ?? '').join(','), list.map((c) => c.image ?? '').join(',')];
}

/** The later of a running maximum and a timestamp (Go's `lastRestartDate.Before(&t)` update). */
function later(current: number | undefined, timestamp: unknown): number | undefined {
  const ms = parseTimestamp(timestamp);
  if (ms === undefined) return current;
  return current === undefined || current < ms ? ms : current;
}

/** Go's `net.JoinHostPort`. */
function joinHostPort(host: string, port: number | string): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

function printer(columns: TableColumnDefinition[], print: ResourcePrinter['print']): ResourcePrinter {
  return { columns, print };
}

const containersDescription = 'Names of each container in the template.';
const imagesDescription = 'Images referenced by each container in the template.';

// ---------------------------------------------------------------------------
// Default (rest.DefaultTableConvertor)
// ---------------------------------------------------------------------------

/**
 * kube's `rest.DefaultTableConvertor`, used for every resource without a
 * printer (Roles, ClusterRoles, CRDs, reviews): Name and Created At (RFC 3339).
 */
export const defaultPrinter: ResourcePrinter = printer(
  [nameColumn(), column('Created At', 'date', creationTimestampDescription)],
  (obj) => ({ cells: [nameOf(obj), formatRFC3339(obj.metadata?.creationTimestamp)] }),
);

// ---------------------------------------------------------------------------
// Pods
// ---------------------------------------------------------------------------

const podSucceededConditions: TableRowCondition[] = [
  { type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' },
];
const podFailedConditions: TableRowCondition[] = [
  { type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' },
];

function isRestartableInitContainer(container: Container | undefined): boolean {
  return container?.restartPolicy === 'Always';
}

function isPodInitializedConditionTrue(status: PodStatus): boolean {
  const initialized = (status.conditions ?? []).find((c) => c.type === 'Initialized');
  return initialized?.status === 'True';
}

function hasPodReadyCondition(conditions: PodCondition[] | undefined): boolean {
  return (conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** The pod's READY, STATUS and RESTARTS cells and its row conditions, as kube's printPod computes them. */
export function podSummary(
  obj: KubeObject,
  now: Date,
): { ready: string; status: string; restarts: string; conditions?: TableRowCondition[] } {
  const pod = view<Pod>(obj);
  const spec = pod.spec;
  const status: PodStatus = pod.status ?? {};
  let restarts = 0;
  let restartableInitContainerRestarts = 0;
  let totalContainers = spec?.containers?.length ?? 0;
  let readyContainers = 0;
  let lastRestartDate: number | undefined;
  let lastRestartableInitContainerRestartDate: number | undefined;

  const podPhase = status.phase ?? '';
  let reason: string = status.reason ? status.reason : podPhase;

  // A pod held by scheduling gates shows SchedulingGated.
  for (const condition of status.conditions ?? []) {
    if (condition.type === 'PodScheduled' && condition.reason === 'SchedulingGated') reason = 'SchedulingGated';
  }

  let conditions: TableRowCondition[] | undefined;
  if (podPhase === 'Succeeded') conditions = podSucceededConditions;
  else if (podPhase === 'Failed') conditions = podFailedConditions;

  const initContainers = new Map<string, Container>();
  for (const c of spec?.initContainers ?? []) {
    initContainers.set(c.name, c);
    if (isRestartableInitContainer(c)) totalContainers++;
  }

  let initializing = false;
  const initStatuses = status.initContainerStatuses ?? [];
  for (let i = 0; i < initStatuses.length; i++) {
    const container = initStatuses[i];
    restarts += container.restartCount ?? 0;
    lastRestartDate = later(lastRestartDate, container.lastState?.terminated?.finishedAt);
    const restartable = isRestartableInitContainer(initContainers.get(container.name));
    if (restartable) {
      restartableInitContainerRestarts += container.restartCount ?? 0;
      lastRestartableInitContainerRestartDate = later(
        lastRestartableInitContainerRestartDate,
        container.lastState?.terminated?.finishedAt,
      );
    }
    const terminated = container.state?.terminated;
    const waiting = container.state?.waiting;
    if (terminated && (terminated.exitCode ?? 0) === 0) continue;
    if (restartable && container.started === true) {
      if (container.ready) readyContainers++;
      continue;
    }
    if (terminated) {
      // Initialization failed.
      if (!terminated.reason) {
        reason = terminated.signal ? `Init:Signal:${terminated.signal}` : `Init:ExitCode:${terminated.exitCode ?? 0}`;
      } else {
        reason = `Init:${terminated.reason}`;
      }
    } else if (waiting?.reason && waiting.reason !== 'PodInitializing') {
      reason = `Init:${waiting.reason}`;
    } else {
      reason = `Init:${i}/${spec?.initContainers?.length ?? 0}`;
    }
    initializing = true;
    break;
  }

  if (!initializing || isPodInitializedConditionTrue(status)) {
    restarts = restartableInitContainerRestarts;
    lastRestartDate = lastRestartableInitContainerRestartDate;
    let hasRunning = false;
    const statuses = status.containerStatuses ?? [];
    // Backwards, so that the first container's reason is the one that sticks.
    for (let i = statuses.length - 1; i >= 0; i--) {
      const container = statuses[i];
      restarts += container.restartCount ?? 0;
      lastRestartDate = later(lastRestartDate, container.lastState?.terminated?.finishedAt);
      const waiting = container.state?.waiting;
      const terminated = container.state?.terminated;
      if (waiting?.reason) {
        reason = waiting.reason;
      } else if (terminated?.reason) {
        reason = terminated.reason;
      } else if (terminated) {
        reason = terminated.signal ? `Signal:${terminated.signal}` : `ExitCode:${terminated.exitCode ?? 0}`;
      } else if (container.ready && container.state?.running) {
        hasRunning = true;
        readyContainers++;
      }
    }
    // Back to Running when a container still runs after another completed.
    if (reason === 'Completed' && hasRunning) {
      reason = hasPodReadyCondition(status.conditions) ? 'Running' : 'NotReady';
    }
  }

  if (obj.metadata?.deletionTimestamp && status.reason === 'NodeLost') {
    reason = 'Unknown';
  } else if (obj.metadata?.deletionTimestamp && podPhase !== 'Succeeded' && podPhase !== 'Failed') {
    reason = 'Terminating';
  }

  let restartsText = String(restarts);
  if (restarts !== 0 && lastRestartDate !== undefined) {
    restartsText = `${restarts} (${humanDuration(now.getTime() - lastRestartDate)} ago)`;
  }
  return { ready: `${readyContainers}/${totalContainers}`, status: reason, restarts: restartsText, conditions };
}

const podPrinter = printer(
  [
    nameColumn(),
    column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    column('Status', 'string', 'The aggregate status of the containers in this pod.'),
    column(
      'Restarts',
      'string',
      'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    ),
    ageColumn(),
    column('IP', 'string', 'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.', { priority: 1 }),
    column(
      'Node',
      'string',
      'NodeName is a request to schedule this pod onto a specific node. If it is non-empty, the scheduler simply schedules this pod onto that node, assuming that it fits resource requirements.',
      { priority: 1 },
    ),
    column(
      'Nominated Node',
      'string',
      'nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.',
      { priority: 1 },
    ),
    column(
      'Readiness Gates',
      'string',
      'If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to "True" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates',
      { priority: 1 },
    ),
  ],
  (obj, now) => {
    const pod = view<Pod>(obj);
    const summary = podSummary(obj, now);
    // kube's v1 -> internal conversion makes status.podIP authoritative over podIPs.
    const podIP = pod.status?.podIP || pod.status?.podIPs?.[0]?.ip || '<none>';
    const nodeName = pod.spec?.nodeName || '<none>';
    const nominatedNodeName = pod.status?.nominatedNodeName || '<none>';
    let readinessGates = '<none>';
    const gates = pod.spec?.readinessGates ?? [];
    if (gates.length > 0) {
      let trueConditions = 0;
      for (const gate of gates) {
        const condition = (pod.status?.conditions ?? []).find((c) => c.type === gate.conditionType);
        if (condition?.status === 'True') trueConditions++;
      }
      readinessGates = `${trueConditions}/${gates.length}`;
    }
    const row: PrintedRow = {
      cells: [
        nameOf(obj),
        summary.ready,
        summary.status,
        summary.restarts,
        age(obj, now),
        podIP,
        nodeName,
        nominatedNodeName,
        readinessGates,
      ],
    };
    if (summary.conditions) row.conditions = summary.conditions;
    return row;
  },
);

// ---------------------------------------------------------------------------
// Services and Endpoints
// ---------------------------------------------------------------------------

/** kube's `makePortString`: `80/TCP,443:30443/TCP`. */
export function formatServicePorts(ports: ServicePort[] | undefined): string {
  return (ports ?? [])
    .map((p) => {
      const protocol = p.protocol ?? 'TCP';
      return p.nodePort && p.nodePort > 0 ? `${p.port}:${p.nodePort}/${protocol}` : `${p.port}/${protocol}`;
    })
    .join(',');
}

function serviceExternalIP(svc: Service): string {
  const spec = svc.spec ?? {};
  const externalIPs = spec.externalIPs ?? [];
  switch (spec.type ?? 'ClusterIP') {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length > 0 ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      // The server prints wide, so the load-balancer list is never clipped.
      const ingress = new Set<string>();
      for (const i of svc.status?.loadBalancer?.ingress ?? []) {
        if (i.ip) ingress.add(i.ip);
        else if (i.hostname) ingress.add(i.hostname);
      }
      const lbIPs = [...ingress].sort().join(',');
      if (externalIPs.length > 0) {
        const results: string[] = lbIPs.length > 0 ? lbIPs.split(',') : [];
        return [...results, ...externalIPs].join(',');
      }
      return lbIPs.length > 0 ? lbIPs : '<pending>';
    }
    case 'ExternalName':
      return spec.externalName ?? '';
    default:
      return '<unknown>';
  }
}

const servicePrinter = printer(
  [
    nameColumn(),
    column(
      'Type',
      'string',
      'type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer. "ClusterIP" allocates a cluster-internal IP address for load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is "None", no virtual IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. "NodePort" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the clusterIP. "LoadBalancer" builds on NodePort and creates an external load-balancer (if supported in the current cloud) which routes to the same endpoints as the clusterIP. "ExternalName" aliases this service to the specified externalName. Several other fields do not apply to ExternalName services. More info: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types',
    ),
    column(
      'Cluster-IP',
      'string',
      'clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName (which requires this field to be blank) or the type field is being changed from ExternalName (in which case this field may optionally be specified, as describe above).  Valid values are "None", empty string (""), or a valid IP address. Setting this to "None" makes a "headless service" (no virtual IP), which is useful when direct endpoint connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If this field is specified when creating a Service of type ExternalName, creation will fail. This field will be wiped when updating a Service to type ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies',
    ),
    column(
      'External-IP',
      'string',
      'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic arrives at a node with this IP.  A common example is external load-balancers that are not part of the Kubernetes system.',
    ),
    column(
      'Port(s)',
      'string',
      'The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies',
    ),
    ageColumn(),
    column(
      'Selector',
      'string',
      'Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/',
      { priority: 1 },
    ),
  ],
  (obj, now) => {
    const svc = view<Service>(obj);
    const spec = svc.spec ?? {};
    // kube's v1 -> internal conversion fills clusterIPs from clusterIP.
    const clusterIPs = spec.clusterIPs && spec.clusterIPs.length > 0 ? spec.clusterIPs : spec.clusterIP ? [spec.clusterIP] : [];
    const internalIP = clusterIPs.length > 0 ? clusterIPs[0] : '<none>';
    const ports = formatServicePorts(spec.ports);
    return {
      cells: [
        nameOf(obj),
        spec.type ?? 'ClusterIP',
        internalIP,
        serviceExternalIP(svc),
        ports.length === 0 ? '<none>' : ports,
        age(obj, now),
        formatLabels(spec.selector),
      ],
    };
  },
);

/** kube's `formatEndpoints` (all ports): up to three `ip:port` entries, then ` + N more...`. */
export function formatEndpoints(endpoints: Endpoints): string {
  const subsets = endpoints.subsets ?? [];
  if (subsets.length === 0) return '<none>';
  const list: string[] = [];
  const max = 3;
  let more = false;
  let count = 0;
  for (const ss of subsets) {
    const addresses = ss.addresses ?? [];
    const ports = ss.ports ?? [];
    if (ports.length === 0) {
      // Headless services may have no ports.
      count += addresses.length;
      for (const addr of addresses) {
        if (list.length === max) {
          more = true;
          break;
        }
        list.push(addr.ip);
      }
      continue;
    }
    for (const port of ports) {
      count += addresses.length;
      for (const addr of addresses) {
        if (list.length === max) {
          more = true;
          break;
        }
        list.push(joinHostPort(addr.ip, port.port));
      }
    }
  }
  const joined = list.join(',');
  return more ? `${joined} + ${count - max} more...` : joined;
}

const endpointsPrinter = printer(
  [
    nameColumn(),
    column(
      'Endpoints',
      'string',
      'The set of all endpoints is the union of all subsets. Addresses are placed into subsets according to the IPs they share. A single address with multiple ports, some of which are ready and some of which are not (because they come from different containers) will result in the address being displayed in different subsets for the different ports. No address will appear in both Addresses and NotReadyAddresses in the same subset. Sets of addresses and ports that comprise a service.',
    ),
    ageColumn(),
  ],
  (obj, now) => ({ cells: [nameOf(obj), formatEndpoints(view<Endpoints>(obj)), age(obj, now)] }),
);

// ---------------------------------------------------------------------------
// Workloads
// ---------------------------------------------------------------------------

const deploymentPrinter = printer(
  [
    nameColumn(),
    column('Ready', 'string', 'Number of the pod with ready state'),
    column('Up-to-date', 'string', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.'),
    column('Available', 'string', 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.'),
    ageColumn(),
    column('Containers', 'string', containersDescription, { priority: 1 }),
    column('Images', 'string', imagesDescription, { priority: 1 }),
    column(
      'Selector',
      'string',
      'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.',
      { priority: 1 },
    ),
  ],
  (obj, now) => {
    const d = view<Deployment>(obj);
    const desired = d.spec?.replicas ?? 1;
    const [names, images] = containerCells(d.spec?.template?.spec?.containers);
    const selector = labelSelectorString(d.spec?.selector);
    return {
      cells: [
        nameOf(obj),
        `${d.status?.readyReplicas ?? 0}/${desired}`,
        d.status?.updatedReplicas ?? 0,
        d.status?.availableReplicas ?? 0,
        age(obj, now),
        names,
        images,
        selector === undefined ? '<invalid>' : selector,
      ],
    };
  },
);

const replicaSetPrinter = printer(
  [
    nameColumn(),
    column(
      'Desired',
      'integer',
      'Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller',
    ),
    column(
      'Current',
      'integer',
      'Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller',
    ),
    column('Ready', 'integer', 'The number of ready replicas for this replica set.'),
    ageColumn(),
    column('Containers', 'string', containersDescription, { priority: 1 }),
    column('Images', 'string', imagesDescription, { priority: 1 }),
    column(
      'Selector',
      'string',
      'Selector is a label query over pods that should match the replica count. If the selector is empty, it is defaulted to the labels present on the pod template. Label keys and values that must match in order to be controlled by this replica set. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
      { priority: 1 },
    ),
  ],
  (obj, now) => {
    const rs = view<ReplicaSet>(obj);
    const [names, images] = containerCells(rs.spec?.template?.spec?.containers);
    return {
      cells: [
        nameOf(obj),
        rs.spec?.replicas ?? 1,
        rs.status?.replicas ?? 0,
        rs.status?.readyReplicas ?? 0,
        age(obj, now),
        names,
        images,
        formatLabelSelector(rs.spec?.selector),
      ],
    };
  },
);

/**
 * A column described by a field's description in the built-in schemas, as kube's printers take
 * it from `SwaggerDoc()`. The description is looked up when the column is first read (a Table
 * request), not when this module loads: parsing those schemas would cost every start.
 */
function docColumn(name: string, type: TableColumnType, definition: string, field: string, options?: ColumnOptions): TableColumnDefinition {
  const col = column(name, type, '', options);
  let description: string | undefined;
  // Redefining the key keeps its place among the column's keys, and so in the JSON sent.
  Object.defineProperty(col, 'description', { enumerable: true, get: () => (description ??= builtinSchema(definition)?.properties?.[field]?.description ?? '') });
  return col;
}

const appsV1 = 'io.k8s.api.apps.v1';
const batchV1 = 'io.k8s.api.batch.v1';

const statefulSetPrinter = printer(
  [
    nameColumn(),
    column('Ready', 'string', 'Number of the pod with ready state'),
    ageColumn(),
    column('Containers', 'string', containersDescription, { priority: 1 }),
    column('Images', 'string', imagesDescription, { priority: 1 }),
  ],
  (obj, now) => {
    const sts = view<StatefulSet>(obj);
    const [names, images] = containerCells(sts.spec?.template?.spec?.containers);
    return { cells: [nameOf(obj), `${sts.status?.readyReplicas ?? 0}/${sts.spec?.replicas ?? 1}`, age(obj, now), names, images] };
  },
);

const daemonSetPrinter = printer(
  [
    nameColumn(),
    docColumn('Desired', 'integer', `${appsV1}.DaemonSetStatus`, 'desiredNumberScheduled'),
    docColumn('Current', 'integer', `${appsV1}.DaemonSetStatus`, 'currentNumberScheduled'),
    docColumn('Ready', 'integer', `${appsV1}.DaemonSetStatus`, 'numberReady'),
    docColumn('Up-to-date', 'integer', `${appsV1}.DaemonSetStatus`, 'updatedNumberScheduled'),
    docColumn('Available', 'integer', `${appsV1}.DaemonSetStatus`, 'numberAvailable'),
    docColumn('Node Selector', 'string', 'io.k8s.api.core.v1.PodSpec', 'nodeSelector'),
    ageColumn(),
    column('Containers', 'string', containersDescription, { priority: 1 }),
    column('Images', 'string', imagesDescription, { priority: 1 }),
    docColumn('Selector', 'string', `${appsV1}.DaemonSetSpec`, 'selector', { priority: 1 }),
  ],
  (obj, now) => {
    const ds = view<DaemonSet>(obj);
    const [names, images] = containerCells(ds.spec?.template?.spec?.containers);
    const st = ds.status;
    return {
      cells: [
        nameOf(obj),
        st?.desiredNumberScheduled ?? 0,
        st?.currentNumberScheduled ?? 0,
        st?.numberReady ?? 0,
        st?.updatedNumberScheduled ?? 0,
        st?.numberAvailable ?? 0,
        formatLabels(ds.spec?.template?.spec?.nodeSelector),
        age(obj, now),
        names,
        images,
        formatLabelSelector(ds.spec?.selector),
      ],
    };
  },
);

function hasJobCondition(conditions: readonly JobCondition[] | undefined, type: string): boolean {
  const c = (conditions ?? []).find((x) => x.type === type);
  return c?.status === 'True';
}

/** kube's printJob status cell: the first of Complete, Failed, Terminating, Suspended, FailureTarget, else Running. */
function jobStatus(job: Job, deleting: boolean): string {
  const conditions = job.status?.conditions;
  if (hasJobCondition(conditions, 'Complete')) return 'Complete';
  if (hasJobCondition(conditions, 'Failed')) return 'Failed';
  if (deleting) return 'Terminating';
  if (hasJobCondition(conditions, 'Suspended')) return 'Suspended';
  if (hasJobCondition(conditions, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

const jobPrinter = printer(
  [
    nameColumn(),
    column('Status', 'string', 'Status of the job.'),
    docColumn('Completions', 'string', `${batchV1}.JobStatus`, 'succeeded'),
    column('Duration', 'string', 'Time required to complete the job.'),
    ageColumn(),
    column('Containers', 'string', containersDescription, { priority: 1 }),
    column('Images', 'string', imagesDescription, { priority: 1 }),
    docColumn('Selector', 'string', `${batchV1}.JobSpec`, 'selector', { priority: 1 }),
  ],
  (obj, now) => {
    const job = view<Job>(obj);
    const succeeded = job.status?.succeeded ?? 0;
    let completions: string;
    if (job.spec?.completions !== undefined) completions = `${succeeded}/${job.spec.completions}`;
    else if ((job.spec?.parallelism ?? 0) > 1) completions = `${succeeded}/1 of ${job.spec?.parallelism}`;
    else completions = `${succeeded}/1`;
    const start = parseTimestamp(job.status?.startTime);
    const end = parseTimestamp(job.status?.completionTime);
    const duration = start === undefined ? '' : humanDuration((end ?? now.getTime()) - start);
    const [names, images] = containerCells(job.spec?.template?.spec?.containers);
    return {
      cells: [nameOf(obj), jobStatus(job, !!obj.metadata?.deletionTimestamp), completions, duration, age(obj, now), names, images, formatLabelSelector(job.spec?.selector)],
    };
  },
);

/** kube's printBoolPtr. */
function boolCell(value: boolean | undefined): string {
  return value === undefined ? '<unset>' : value ? 'True' : 'False';
}

const cronJobPrinter = printer(
  [
    nameColumn(),
    docColumn('Schedule', 'string', `${batchV1}.CronJobSpec`, 'schedule'),
    docColumn('Timezone', 'string', `${batchV1}.CronJobSpec`, 'timeZone'),
    docColumn('Suspend', 'boolean', `${batchV1}.CronJobSpec`, 'suspend'),
    docColumn('Active', 'integer', `${batchV1}.CronJobStatus`, 'active'),
    docColumn('Last Schedule', 'string', `${batchV1}.CronJobStatus`, 'lastScheduleTime'),
    ageColumn(),
    column('Containers', 'string', containersDescription, { priority: 1 }),
    column('Images', 'string', imagesDescription, { priority: 1 }),
    docColumn('Selector', 'string', `${batchV1}.JobSpec`, 'selector', { priority: 1 }),
  ],
  (obj, now) => {
    const cj = view<CronJob>(obj);
    const last = cj.status?.lastScheduleTime ? translateTimestampSince(cj.status.lastScheduleTime, now) : '<none>';
    const jobSpec = cj.spec?.jobTemplate?.spec;
    const [names, images] = containerCells(jobSpec?.template?.spec?.containers);
    return {
      cells: [
        nameOf(obj),
        cj.spec?.schedule ?? '',
        cj.spec?.timeZone ?? '<none>',
        boolCell(cj.spec?.suspend),
        (cj.status?.active ?? []).length,
        last,
        age(obj, now),
        names,
        images,
        formatLabelSelector(jobSpec?.selector),
      ],
    };
  },
);

/** `statefulset.apps/web` for a controller reference, as kube's formatResourceName prints it. */
function controllerName(obj: KubeObject): string {
  const ref = (obj.metadata?.ownerReferences ?? []).find((r) => r.controller === true);
  if (!ref) return '<none>';
  const slash = ref.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
  const kind = ref.kind ?? '';
  if (group === '' && kind === '') return ref.name;
  const groupKind = group === '' ? kind : `${kind}.${group}`;
  return `${groupKind.toLowerCase()}/${ref.name}`;
}

const controllerRevisionPrinter = printer(
  [
    nameColumn(),
    column('Controller', 'string', 'Controller of the object'),
    column('Revision', 'string', 'Revision indicates the revision of the state represented by Data.'),
    ageColumn(),
  ],
  (obj, now) => {
    const cr = view<ControllerRevision>(obj);
    return { cells: [nameOf(obj), controllerName(obj), cr.revision ?? 0, age(obj, now)] };
  },
);

// ---------------------------------------------------------------------------
// Config and identity
// ---------------------------------------------------------------------------

const configMapPrinter = printer(
  [
    nameColumn(),
    column(
      'Data',
      'string',
      "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
    ),
    ageColumn(),
  ],
  (obj, now) => {
    const cm = view<ConfigMap>(obj);
    return {
      cells: [nameOf(obj), Object.keys(cm.data ?? {}).length + Object.keys(cm.binaryData ?? {}).length, age(obj, now)],
    };
  },
);

const secretPrinter = printer(
  [
    nameColumn(),
    column(
      'Type',
      'string',
      'Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types',
    ),
    column(
      'Data',
      'string',
      "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4",
    ),
    ageColumn(),
  ],
  (obj, now) => {
    const secret = view<Secret>(obj);
    return { cells: [nameOf(obj), secret.type ?? 'Opaque', Object.keys(secret.data ?? {}).length, age(obj, now)] };
  },
);

const serviceAccountPrinter = printer(
  [
    nameColumn(),
    column(
      'Secrets',
      'string',
      'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use. Pods are only limited to this list if this service account has a "kubernetes.io/enforce-mountable-secrets" annotation set to "true". This field should not be used to find auto-generated service account token secrets for use outside of pods. Instead, tokens can be requested directly using the TokenRequest API, or service account token secrets can be manually created. More info: https://kubernetes.io/docs/concepts/configuration/secret',
    ),
    ageColumn(),
  ],
  (obj, now) => ({ cells: [nameOf(obj), (view<ServiceAccount>(obj).secrets ?? []).length, age(obj, now)] }),
);

const namespacePrinter = printer(
  [nameColumn(), column('Status', 'string', 'The status of the namespace'), ageColumn()],
  (obj, now) => {
    const phase = view<Namespace>(obj).status?.phase ?? (obj.metadata?.deletionTimestamp ? 'Terminating' : 'Active');
    return { cells: [nameOf(obj), phase, age(obj, now)] };
  },
);

// ---------------------------------------------------------------------------
// Events (core/v1 and events.k8s.io/v1 share kube's internal Event printer)
// ---------------------------------------------------------------------------

/** The fields of kube's internal Event that the printer reads. */
interface EventFields {
  name: string;
  type: string;
  reason: string;
  message: string;
  involvedKind: string;
  involvedName: string;
  fieldPath: string;
  sourceComponent: string;
  sourceHost: string;
  reportingController: string;
  reportingInstance: string;
  firstTimestamp: unknown;
  lastTimestamp: unknown;
  eventTime: unknown;
  count: number;
  series?: { count: number; lastObservedTime: unknown };
}

function coreEventFields(obj: KubeObject): EventFields {
  const e = view<CoreEvent>(obj);
  return {
    name: nameOf(obj),
    type: e.type ?? '',
    reason: e.reason ?? '',
    message: e.message ?? '',
    involvedKind: e.involvedObject?.kind ?? '',
    involvedName: e.involvedObject?.name ?? '',
    fieldPath: e.involvedObject?.fieldPath ?? '',
    sourceComponent: e.source?.component ?? '',
    sourceHost: e.source?.host ?? '',
    reportingController: e.reportingComponent ?? '',
    reportingInstance: e.reportingInstance ?? '',
    firstTimestamp: e.firstTimestamp,
    lastTimestamp: e.lastTimestamp,
    eventTime: e.eventTime,
    count: e.count ?? 0,
    series: e.series ? { count: e.series.count ?? 0, lastObservedTime: e.series.lastObservedTime } : undefined,
  };
}

/** events.k8s.io/v1 Events print as their core/v1 shape, the one they are stored in. */
function eventsEventFields(obj: KubeObject): EventFields {
  return coreEventFields(eventToCore(obj));
}

function eventCells(e: EventFields, now: Date): TableCell[] {
  let firstTimestamp = translateTimestampSince(e.firstTimestamp, now);
  if (parseTimestamp(e.firstTimestamp) === undefined) firstTimestamp = translateTimestampSince(e.eventTime, now);
  let lastTimestamp = translateTimestampSince(e.lastTimestamp, now);
  if (parseTimestamp(e.lastTimestamp) === undefined) lastTimestamp = firstTimestamp;
  let count = e.count;
  if (e.series) {
    lastTimestamp = translateTimestampSince(e.series.lastObservedTime, now);
    count = e.series.count;
  } else if (count === 0) {
    // Singleton events carry no count in the new API.
    count = 1;
  }
  const kind = e.involvedKind.toLowerCase();
  const target = e.involvedName.length > 0 ? `${kind}/${e.involvedName}` : kind;
  const component = e.sourceComponent || e.reportingController;
  const instance = e.sourceHost || e.reportingInstance;
  const source = instance.length === 0 ? component : `${component}, ${instance}`;
  return [lastTimestamp, e.type, e.reason, target, e.fieldPath, source, e.message.trim(), firstTimestamp, count, e.name];
}

const eventColumns: TableColumnDefinition[] = [
  column('Last Seen', 'string', 'The time at which the most recent occurrence of this event was recorded.'),
  column('Type', 'string', 'Type of this event (Normal, Warning), new types could be added in the future'),
  column(
    'Reason',
    'string',
    "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
  ),
  column('Object', 'string', 'The object that this event is about.'),
  column(
    'Subobject',
    'string',
    'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: "spec.containers{name}" (where "name" refers to the name of the container that triggered the event) or if no container name is specified "spec.containers[2]" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.',
    { priority: 1 },
  ),
  column('Source', 'string', 'The component reporting this event. Should be a short machine understandable string.', { priority: 1 }),
  column('Message', 'string', 'A human-readable description of the status of this operation.'),
  column('First Seen', 'string', 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)', { priority: 1 }),
  column('Count', 'string', 'The number of times this event has occurred.', { priority: 1 }),
  nameColumn({ priority: 1 }),
];

const coreEventPrinter = printer(eventColumns, (obj, now) => ({ cells: eventCells(coreEventFields(obj), now) }));
const eventsEventPrinter = printer(eventColumns, (obj, now) => ({ cells: eventCells(eventsEventFields(obj), now) }));

// ---------------------------------------------------------------------------
// Nodes
// ---------------------------------------------------------------------------

const nodePrinter = printer(
  [
    nameColumn(),
    column('Status', 'string', 'The status of the node'),
    column('Roles', 'string', 'The roles of the node'),
    ageColumn(),
    column('Version', 'string', 'Kubelet Version reported by the node.'),
    column(
      'Internal-IP',
      'string',
      "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/concepts/nodes/node/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP).",
      { priority: 1 },
    ),
    column(
      'External-IP',
      'string',
      "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/concepts/nodes/node/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP).",
      { priority: 1 },
    ),
    column('OS-Image', 'string', 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).', { priority: 1 }),
    column('Kernel-Version', 'string', "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", { priority: 1 }),
    column(
      'Container-Runtime',
      'string',
      'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).',
      { priority: 1 },
    ),
  ],
  (obj, now) => {
    const node = view<Node>(obj);
    const status: string[] = [];
    // Only the Ready condition counts; the last one of that type wins, as in kube's condition map.
    const ready = [...(node.status?.conditions ?? [])].reverse().find((c) => c.type === 'Ready');
    if (ready) status.push(ready.status === 'True' ? 'Ready' : 'NotReady');
    if (status.length === 0) status.push('Unknown');
    if (node.spec?.unschedulable) status.push('SchedulingDisabled');

    const roles = new Set<string>();
    for (const [k, v] of Object.entries(obj.metadata?.labels ?? {})) {
      if (k.startsWith('node-role.kubernetes.io/')) {
        const role = k.slice('node-role.kubernetes.io/'.length);
        if (role.length > 0) roles.add(role);
      } else if (k === 'kubernetes.io/role' && v !== '') {
        roles.add(v);
      }
    }
    const roleText = [...roles].sort().join(',');
    const address = (type: string): string =>
      (node.status?.addresses ?? []).find((a) => a.type === type)?.address ?? '<none>';
    const info = node.status?.nodeInfo;
    return {
      cells: [
        nameOf(obj),
        status.join(','),
        roleText.length === 0 ? '<none>' : roleText,
        age(obj, now),
        info?.kubeletVersion ?? '',
        address('InternalIP'),
        address('ExternalIP'),
        info?.osImage || '<unknown>',
        info?.kernelVersion || '<unknown>',
        info?.containerRuntimeVersion || '<unknown>',
      ],
    };
  },
);

// ---------------------------------------------------------------------------
// Coordination, RBAC, admission
// ---------------------------------------------------------------------------

const leasePrinter = printer(
  [nameColumn(), column('Holder', 'string', 'holderIdentity contains the identity of the holder of a current lease.'), ageColumn()],
  (obj, now) => ({ cells: [nameOf(obj), view<Lease>(obj).spec?.holderIdentity ?? '', age(obj, now)] }),
);

/** kube's `rbac.SubjectsStrings`: users, groups and `namespace/name` service accounts. */
function subjectsStrings(subjects: Subject[] | undefined): { users: string[]; groups: string[]; serviceAccounts: string[] } {
  const users: string[] = [];
  const groups: string[] = [];
  const serviceAccounts: string[] = [];
  for (const s of subjects ?? []) {
    if (s.kind === 'ServiceAccount') serviceAccounts.push(`${s.namespace ?? ''}/${s.name}`);
    else if (s.kind === 'User') users.push(s.name);
    else if (s.kind === 'Group') groups.push(s.name);
  }
  return { users, groups, serviceAccounts };
}

function bindingPrinter(roleRefDescription: string, noun: string): ResourcePrinter {
  return printer(
    [
      nameColumn(),
      column('Role', 'string', roleRefDescription),
      ageColumn(),
      column('Users', 'string', `Users in the ${noun}`, { priority: 1 }),
      column('Groups', 'string', `Groups in the ${noun}`, { priority: 1 }),
      column('ServiceAccounts', 'string', `ServiceAccounts in the ${noun}`, { priority: 1 }),
    ],
    (obj, now) => {
      const binding = view<RoleBinding>(obj);
      const { users, groups, serviceAccounts } = subjectsStrings(binding.subjects);
      return {
        cells: [
          nameOf(obj),
          `${binding.roleRef?.kind ?? ''}/${binding.roleRef?.name ?? ''}`,
          age(obj, now),
          users.join(', '),
          groups.join(', '),
          serviceAccounts.join(', '),
        ],
      };
    },
  );
}

const roleBindingPrinter = bindingPrinter(
  'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.',
  'roleBinding',
);
const clusterRoleBindingPrinter = bindingPrinter(
  'RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.',
  'clusterRoleBinding',
);

const webhookConfigurationPrinter = printer(
  [
    nameColumn(),
    column('Webhooks', 'integer', 'Webhooks indicates the number of webhooks registered in this configuration'),
    ageColumn(),
  ],
  (obj, now) => ({
    cells: [nameOf(obj), (view<ValidatingWebhookConfiguration>(obj).webhooks ?? []).length, age(obj, now)],
  }),
);

const podDisruptionBudgetPrinter = printer(
  [
    nameColumn(),
    column('Min Available', 'string', 'The minimum number of pods that must be available.'),
    column('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
    column('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
    ageColumn(),
  ],
  (obj, now) => {
    const pdb = view<PodDisruptionBudget>(obj);
    const count = (v: number | string | undefined): string => (v === undefined ? 'N/A' : String(v));
    return { cells: [nameOf(obj), count(pdb.spec?.minAvailable), count(pdb.spec?.maxUnavailable), pdb.status?.disruptionsAllowed ?? 0, age(obj, now)] };
  },
);

/** kube's formatHosts: up to three rule hosts, `*` when none. */
function ingressHosts(rules: readonly IngressRule[] | undefined): string {
  const max = 3;
  const hosts: string[] = [];
  let more = false;
  for (const rule of rules ?? []) {
    if (hosts.length === max) more = true;
    if (!more && rule.host) hosts.push(rule.host);
  }
  if (hosts.length === 0) return '*';
  return more ? `${hosts.join(',')} + ${(rules ?? []).length - max} more...` : hosts.join(',');
}

const ingressPrinter = printer(
  [
    nameColumn(),
    column('Class', 'string', 'The name of the IngressClass resource that should be used for additional configuration'),
    column('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
    column('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
    column('Ports', 'string', 'Ports of TLS configurations that open'),
    ageColumn(),
  ],
  (obj, now) => {
    const ing = view<Ingress>(obj);
    // The load balancer's addresses, an IP or else a hostname each, sorted and unique (the wide form: not cut).
    const addresses = new Set<string>();
    for (const lb of ing.status?.loadBalancer?.ingress ?? []) {
      if (lb.ip) addresses.add(lb.ip);
      else if (lb.hostname) addresses.add(lb.hostname);
    }
    const ports = (ing.spec?.tls ?? []).length > 0 ? '80, 443' : '80';
    return { cells: [nameOf(obj), ing.spec?.ingressClassName ?? '<none>', ingressHosts(ing.spec?.rules), [...addresses].sort().join(','), ports, age(obj, now)] };
  },
);

const ingressClassPrinter = printer(
  [
    nameColumn(),
    column('Controller', 'string', 'Controller that is responsible for handling this class'),
    column('Parameters', 'string', 'A reference to a resource with additional parameters'),
    ageColumn(),
  ],
  (obj, now) => {
    const ic = view<IngressClass>(obj);
    const p = ic.spec?.parameters;
    const parameters = p ? `${p.kind}${p.apiGroup !== undefined ? `.${p.apiGroup}` : ''}/${p.name}` : '<none>';
    return { cells: [nameOf(obj), ic.spec?.controller ?? '', parameters, age(obj, now)] };
  },
);

const networkPolicyPrinter = printer(
  [nameColumn(), docColumn('Pod-Selector', 'string', 'io.k8s.api.networking.v1.NetworkPolicySpec', 'podSelector'), ageColumn()],
  (obj, now) => {
    const np = view<NetworkPolicy>(obj);
    return { cells: [nameOf(obj), formatLabelSelector(np.spec?.podSelector ?? {}), age(obj, now)] };
  },
);

/** kube's listWithMoreString: the first three, then how many more; `<unset>` for none. */
function listWithMore(items: string[], max = 3): string {
  if (items.length === 0) return '<unset>';
  const shown = items.slice(0, max).join(',');
  return items.length > max ? `${shown} + ${items.length - max} more...` : shown;
}

const discoveryV1 = 'io.k8s.api.discovery.v1';

const endpointSlicePrinter = printer(
  [
    nameColumn(),
    docColumn('AddressType', 'string', `${discoveryV1}.EndpointSlice`, 'addressType'),
    docColumn('Ports', 'string', `${discoveryV1}.EndpointSlice`, 'ports'),
    docColumn('Endpoints', 'string', `${discoveryV1}.EndpointSlice`, 'endpoints'),
    ageColumn(),
  ],
  (obj, now) => {
    const slice = view<EndpointSlice>(obj);
    const ports = (slice.ports ?? []).map((p) => (p.port !== undefined ? String(p.port) : p.name !== undefined ? p.name : '*'));
    const addresses = (slice.endpoints ?? []).flatMap((e) => e.addresses ?? []);
    return { cells: [nameOf(obj), slice.addressType ?? '', listWithMore(ports), listWithMore(addresses), age(obj, now)] };
  },
);

const priorityClassV1 = 'io.k8s.api.scheduling.v1.PriorityClass';

const priorityClassPrinter = printer(
  [
    nameColumn(),
    docColumn('Value', 'integer', priorityClassV1, 'value'),
    docColumn('Global-Default', 'boolean', priorityClassV1, 'globalDefault'),
    ageColumn(),
    docColumn('PreemptionPolicy', 'string', priorityClassV1, 'preemptionPolicy'),
  ],
  (obj, now) => {
    const pc = view<PriorityClass>(obj);
    return { cells: [nameOf(obj), pc.value ?? 0, pc.globalDefault ?? false, age(obj, now), pc.preemptionPolicy ?? ''] };
  },
);

const runtimeClassPrinter = printer(
  [nameColumn(), docColumn('Handler', 'string', 'io.k8s.api.node.v1.RuntimeClass', 'handler'), ageColumn()],
  (obj, now) => ({ cells: [nameOf(obj), view<RuntimeClass>(obj).handler ?? '', age(obj, now)] }),
);

const storageClassPrinter = printer(
  [
    nameColumn(),
    column('Provisioner', 'string', 'Indicates the type of the provisioner.'),
    column('ReclaimPolicy', 'string', 'Dynamically provisioned PersistentVolumes of this storage class are created with this reclaimPolicy. Defaults to Delete.'),
    column('VolumeBindingMode', 'string', 'VolumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound. When unset, VolumeBindingImmediate is used.'),
    column('AllowVolumeExpansion', 'string', 'AllowVolumeExpansion shows whether the storage class allow volume expand.'),
    ageColumn(),
  ],
  (obj, now) => {
    const sc = view<StorageClass>(obj);
    const isDefault = defaultStorageClassAnnotations.some((a) => obj.metadata.annotations?.[a] === 'true');
    return {
      cells: [
        isDefault ? `${nameOf(obj)} (default)` : nameOf(obj),
        sc.provisioner ?? '',
        sc.reclaimPolicy ?? 'Delete',
        sc.volumeBindingMode ?? 'Immediate',
        sc.allowVolumeExpansion ?? false,
        age(obj, now),
      ],
    };
  },
);

const coreV1 = 'io.k8s.api.core.v1';

const replicationControllerPrinter = printer(
  [
    nameColumn(),
    docColumn('Desired', 'integer', `${coreV1}.ReplicationControllerSpec`, 'replicas'),
    docColumn('Current', 'integer', `${coreV1}.ReplicationControllerStatus`, 'replicas'),
    docColumn('Ready', 'integer', `${coreV1}.ReplicationControllerStatus`, 'readyReplicas'),
    ageColumn(),
    column('Containers', 'string', containersDescription, { priority: 1 }),
    column('Images', 'string', imagesDescription, { priority: 1 }),
    docColumn('Selector', 'string', `${coreV1}.ReplicationControllerSpec`, 'selector', { priority: 1 }),
  ],
  (obj, now) => {
    const rc = view<ReplicationController>(obj);
    const [names, images] = containerCells(rc.spec?.template?.spec?.containers);
    return {
      cells: [nameOf(obj), rc.spec?.replicas ?? 1, rc.status?.replicas ?? 0, rc.status?.readyReplicas ?? 0, age(obj, now), names, images, formatLabels(rc.spec?.selector)],
    };
  },
);

const podTemplatePrinter = printer(
  [nameColumn(), column('Containers', 'string', containersDescription), column('Images', 'string', imagesDescription), column('Pod Labels', 'string', 'The labels for the pod template.')],
  (obj) => {
    const pt = view<PodTemplate>(obj);
    const [names, images] = containerCells(pt.template?.spec?.containers);
    return { cells: [nameOf(obj), names, images, formatLabels(pt.template?.metadata?.labels)] };
  },
);

/** A quantity as kube's Quantity.String() prints it (canonical), or as given when it does not parse. */
function quantityText(value: string | number): string {
  try {
    return canonicalQuantity(value);
  } catch {
    return String(value);
  }
}

/** kube's printResourceQuota: `name: used/hard` per resource, limits.* apart, resources sorted by name. */
const resourceQuotaPrinter = printer(
  [
    nameColumn(),
    ageColumn(),
    column('Request', 'string', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
    column('Limit', 'string', 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.'),
  ],
  (obj, now) => {
    const quota = view<ResourceQuota>(obj);
    const hard = quota.spec?.hard ?? {};
    const used = quota.status?.used ?? {};
    const requests: string[] = [];
    const limits: string[] = [];
    for (const name of Object.keys(hard).sort()) {
      const cell = `${name}: ${quantityText(used[name] ?? '0')}/${quantityText(hard[name])}`;
      (name.split('.').length > 1 && name.split('.')[0] === 'limits' ? limits : requests).push(cell);
    }
    return { cells: [nameOf(obj), age(obj, now), requests.join(', '), limits.join(', ')] };
  },
);

const storageV1 = 'io.k8s.api.storage.v1';

const csiDriverPrinter = printer(
  [
    nameColumn(),
    docColumn('AttachRequired', 'boolean', `${storageV1}.CSIDriverSpec`, 'attachRequired'),
    docColumn('PodInfoOnMount', 'boolean', `${storageV1}.CSIDriverSpec`, 'podInfoOnMount'),
    docColumn('StorageCapacity', 'boolean', `${storageV1}.CSIDriverSpec`, 'storageCapacity'),
    docColumn('TokenRequests', 'string', `${storageV1}.CSIDriverSpec`, 'tokenRequests'),
    docColumn('RequiresRepublish', 'boolean', `${storageV1}.CSIDriverSpec`, 'requiresRepublish'),
    docColumn('Modes', 'string', `${storageV1}.CSIDriverSpec`, 'volumeLifecycleModes'),
    ageColumn(),
  ],
  (obj, now) => {
    const spec = view<CSIDriver>(obj).spec;
    const tokenRequests = spec?.tokenRequests !== undefined ? spec.tokenRequests.map((t) => t.audience).join(',') : '<unset>';
    const modes = (spec?.volumeLifecycleModes ?? []).join(',') || '<none>';
    return {
      cells: [nameOf(obj), spec?.attachRequired ?? true, spec?.podInfoOnMount ?? false, spec?.storageCapacity ?? false, tokenRequests, spec?.requiresRepublish ?? false, modes, age(obj, now)],
    };
  },
);

const csiNodePrinter = printer(
  [nameColumn(), column('Drivers', 'integer', 'Drivers indicates the number of CSI drivers registered on the node'), ageColumn()],
  (obj, now) => ({ cells: [nameOf(obj), (view<CSINode>(obj).spec?.drivers ?? []).length, age(obj, now)] }),
);

const volumeAttachmentPrinter = printer(
  [
    nameColumn(),
    docColumn('Attacher', 'string', `${storageV1}.VolumeAttachmentSpec`, 'attacher', { format: 'name' }),
    docColumn('PV', 'string', `${storageV1}.VolumeAttachmentSource`, 'persistentVolumeName'),
    docColumn('Node', 'string', `${storageV1}.VolumeAttachmentSpec`, 'nodeName'),
    docColumn('Attached', 'boolean', `${storageV1}.VolumeAttachmentStatus`, 'attached'),
    ageColumn(),
  ],
  (obj, now) => {
    const va = view<VolumeAttachment>(obj);
    return { cells: [nameOf(obj), va.spec?.attacher ?? '', va.spec?.source?.persistentVolumeName ?? '', va.spec?.nodeName ?? '', va.status?.attached ?? false, age(obj, now)] };
  },
);

const csiStorageCapacityPrinter = printer(
  [
    nameColumn(),
    docColumn('StorageClassName', 'string', `${storageV1}.CSIStorageCapacity`, 'storageClassName'),
    docColumn('Capacity', 'string', `${storageV1}.CSIStorageCapacity`, 'capacity'),
    ageColumn(),
  ],
  (obj, now) => {
    const c = view<CSIStorageCapacity>(obj);
    return { cells: [nameOf(obj), c.storageClassName ?? '', c.capacity !== undefined ? quantityText(c.capacity) : '<unset>', age(obj, now)] };
  },
);

/** kubectl's STATUS, MESSAGE and ERROR of a ComponentStatus: its Healthy condition's. */
const componentStatusPrinter = printer(
  [
    nameColumn(),
    column('Status', 'string', 'Status of the component conditions'),
    column('Message', 'string', 'Message of the component conditions'),
    column('Error', 'string', 'Error of the component conditions'),
  ],
  (obj) => {
    const healthy = view<ComponentStatus>(obj).conditions?.find((c) => c.type === 'Healthy');
    const status = !healthy ? 'Unknown' : healthy.status === 'True' ? 'Healthy' : 'Unhealthy';
    return { cells: [nameOf(obj), status, healthy?.message ?? '', healthy?.error ?? ''] };
  },
);

/** kubectl's VALIDATIONS (a count) and PARAMKIND (apiVersion/kind, or <unset>) of a ValidatingAdmissionPolicy. */
const validatingAdmissionPolicyPrinter = printer(
  [
    nameColumn(),
    column('Validations', 'integer', 'Validations indicates the number of validation rules defined in this configuration'),
    column('ParamKind', 'string', 'ParamKind specifies the kind of resources used to parameterize this policy'),
    ageColumn(),
  ],
  (obj, now) => {
    const spec = view<ValidatingAdmissionPolicy>(obj).spec;
    const paramKind = spec?.paramKind ? `${spec.paramKind.apiVersion ?? ''}/${spec.paramKind.kind ?? ''}` : '<unset>';
    return { cells: [nameOf(obj), spec?.validations?.length ?? 0, paramKind, age(obj, now)] };
  },
);

/** kubectl's POLICYNAME and PARAMREF (namespace/name; a star for the namespace when none is named; or the selector) of a binding. */
const validatingAdmissionPolicyBindingPrinter = printer(
  [
    nameColumn(),
    column('PolicyName', 'string', 'PolicyName indicates the policy definition which the policy binding binded to'),
    column('ParamRef', 'string', 'ParamRef indicates the param resource which sets the configration param'),
    ageColumn(),
  ],
  (obj, now) => {
    const spec = view<ValidatingAdmissionPolicyBinding>(obj).spec;
    const ref = spec?.paramRef;
    let param = '<unset>';
    if (ref?.name) param = ref.namespace ? `${ref.namespace}/${ref.name}` : `*/${ref.name}`;
    else if (ref?.selector) param = labelSelectorString(ref.selector) ?? '';
    return { cells: [nameOf(obj), spec?.policyName ?? '', param, age(obj, now)] };
  },
);

/** kube-aggregator's columns: the service as namespace/name (Local without one), and the Available condition. */
const apiServicePrinter = printer(
  [
    nameColumn(),
    column('Service', 'string', 'The reference to the service that hosts this API endpoint.'),
    column('Available', 'string', 'Whether this service is available.'),
    ageColumn(),
  ],
  (obj, now) => {
    const spec = (obj.spec ?? {}) as { service?: { namespace?: string; name?: string } | null };
    const service = spec.service ? `${spec.service.namespace ?? ''}/${spec.service.name ?? ''}` : 'Local';
    const conditions = ((obj.status as { conditions?: Array<{ type?: string; status?: string; reason?: string }> } | undefined)?.conditions) ?? [];
    const available = conditions.find((c) => c.type === 'Available');
    let status = 'Unknown';
    if (available) status = available.status === 'True' || !available.reason ? String(available.status ?? '') : `${available.status ?? ''} (${available.reason})`;
    return { cells: [nameOf(obj), service, status, age(obj, now)] };
  },
);

const certificatesV1 = 'io.k8s.api.certificates.v1';

/** kubectl's CONDITION of a CSR: Denied over Approved over Pending, then Failed and Issued when they apply. */
function csrCondition(csr: CertificateSigningRequest): string {
  const types = new Set((csr.status?.conditions ?? []).map((c) => c.type));
  let status = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) status += ',Failed';
  if (csr.status?.certificate) status += ',Issued';
  return status;
}

const certificateSigningRequestPrinter = printer(
  [
    nameColumn(),
    ageColumn(),
    docColumn('SignerName', 'string', `${certificatesV1}.CertificateSigningRequestSpec`, 'signerName'),
    docColumn('Requestor', 'string', `${certificatesV1}.CertificateSigningRequestSpec`, 'request'),
    docColumn('RequestedDuration', 'string', `${certificatesV1}.CertificateSigningRequestSpec`, 'expirationSeconds'),
    docColumn('Condition', 'string', `${certificatesV1}.CertificateSigningRequestStatus`, 'conditions'),
  ],
  (obj, now) => {
    const csr = view<CertificateSigningRequest>(obj);
    const seconds = csr.spec?.expirationSeconds;
    return {
      cells: [
        nameOf(obj),
        age(obj, now),
        csr.spec?.signerName || '<none>',
        csr.spec?.username ?? '',
        seconds === undefined ? '<none>' : humanDuration(seconds * 1000),
        csrCondition(csr),
      ],
    };
  },
);

const flowcontrolV1 = 'io.k8s.api.flowcontrol.v1';

const flowSchemaPrinter = printer(
  [
    nameColumn(),
    docColumn('PriorityLevel', 'string', `${flowcontrolV1}.PriorityLevelConfigurationReference`, 'name'),
    docColumn('MatchingPrecedence', 'string', `${flowcontrolV1}.FlowSchemaSpec`, 'matchingPrecedence'),
    docColumn('DistinguisherMethod', 'string', `${flowcontrolV1}.FlowSchemaSpec`, 'distinguisherMethod'),
    ageColumn(),
    column('MissingPL', 'string', 'references a broken or non-existent PriorityLevelConfiguration'),
  ],
  (obj, now) => {
    const fs = view<FlowSchema>(obj);
    // The Dangling condition's status says whether the priority level is missing; `?` before anyone said.
    const dangling = (fs.status?.conditions ?? []).find((c) => c.type === 'Dangling');
    return {
      cells: [nameOf(obj), fs.spec?.priorityLevelConfiguration?.name ?? '', fs.spec?.matchingPrecedence ?? 0, fs.spec?.distinguisherMethod?.type ?? '<none>', age(obj, now), dangling?.status ?? '?'],
    };
  },
);

const priorityLevelPrinter = printer(
  [
    nameColumn(),
    docColumn('Type', 'string', `${flowcontrolV1}.PriorityLevelConfigurationSpec`, 'type'),
    docColumn('NominalConcurrencyShares', 'string', `${flowcontrolV1}.LimitedPriorityLevelConfiguration`, 'nominalConcurrencyShares'),
    docColumn('Queues', 'string', `${flowcontrolV1}.QueuingConfiguration`, 'queues'),
    docColumn('HandSize', 'string', `${flowcontrolV1}.QueuingConfiguration`, 'handSize'),
    docColumn('QueueLengthLimit', 'string', `${flowcontrolV1}.QueuingConfiguration`, 'queueLengthLimit'),
    ageColumn(),
  ],
  (obj, now) => {
    const spec = view<PriorityLevelConfiguration>(obj).spec;
    const limited = spec?.limited;
    const queuing = limited?.limitResponse?.queuing;
    const cell = (v: number | undefined, known: boolean): number | string => (known ? (v ?? 0) : '<none>');
    return {
      cells: [
        nameOf(obj),
        spec?.type ?? '',
        cell(limited?.nominalConcurrencyShares, !!limited),
        cell(queuing?.queues, !!queuing),
        cell(queuing?.handSize, !!queuing),
        cell(queuing?.queueLengthLimit, !!queuing),
        age(obj, now),
      ],
    };
  },
);

/** kube's GetAccessModesAsString: RWO, ROX, RWX, RWOP, in that order, for the modes present. */
function accessModesText(modes: readonly string[] | undefined): string {
  const short = ['RWO', 'ROX', 'RWX', 'RWOP'];
  return accessModes.flatMap((m, i) => ((modes ?? []).includes(m) ? [short[i]] : [])).join(',');
}

/** kube's GetPersistentVolume(Claim)Class: the beta annotation first, then spec.storageClassName. */
function volumeClass(obj: KubeObject, specClass: string | undefined): string {
  return obj.metadata.annotations?.[betaStorageClassAnnotation] ?? specClass ?? '';
}

const persistentVolumePrinter = printer(
  [
    nameColumn(),
    docColumn('Capacity', 'string', `${coreV1}.PersistentVolumeSpec`, 'capacity'),
    docColumn('Access Modes', 'string', `${coreV1}.PersistentVolumeSpec`, 'accessModes'),
    docColumn('Reclaim Policy', 'string', `${coreV1}.PersistentVolumeSpec`, 'persistentVolumeReclaimPolicy'),
    docColumn('Status', 'string', `${coreV1}.PersistentVolumeStatus`, 'phase'),
    docColumn('Claim', 'string', `${coreV1}.PersistentVolumeSpec`, 'claimRef'),
    column('StorageClass', 'string', 'StorageClass of the pv'),
    column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pv'),
    docColumn('Reason', 'string', `${coreV1}.PersistentVolumeStatus`, 'reason'),
    ageColumn(),
    docColumn('VolumeMode', 'string', `${coreV1}.PersistentVolumeSpec`, 'volumeMode', { priority: 1 }),
  ],
  (obj, now) => {
    const pv = view<PersistentVolume>(obj);
    const claim = pv.spec?.claimRef ? `${pv.spec.claimRef.namespace ?? ''}/${pv.spec.claimRef.name ?? ''}` : '';
    const storage = pv.spec?.capacity?.storage;
    return {
      cells: [
        nameOf(obj),
        storage !== undefined ? quantityText(storage) : '0',
        accessModesText(pv.spec?.accessModes),
        pv.spec?.persistentVolumeReclaimPolicy ?? '',
        obj.metadata.deletionTimestamp ? 'Terminating' : (pv.status?.phase ?? ''),
        claim,
        volumeClass(obj, pv.spec?.storageClassName),
        pv.spec?.volumeAttributesClassName ?? '<unset>',
        pv.status?.reason ?? '',
        age(obj, now),
        pv.spec?.volumeMode ?? '<unset>',
      ],
    };
  },
);

const persistentVolumeClaimPrinter = printer(
  [
    nameColumn(),
    docColumn('Status', 'string', `${coreV1}.PersistentVolumeClaimStatus`, 'phase'),
    docColumn('Volume', 'string', `${coreV1}.PersistentVolumeClaimSpec`, 'volumeName'),
    docColumn('Capacity', 'string', `${coreV1}.PersistentVolumeClaimStatus`, 'capacity'),
    docColumn('Access Modes', 'string', `${coreV1}.PersistentVolumeClaimStatus`, 'accessModes'),
    column('StorageClass', 'string', 'StorageClass of the pvc'),
    column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pvc'),
    ageColumn(),
    docColumn('VolumeMode', 'string', `${coreV1}.PersistentVolumeClaimSpec`, 'volumeMode', { priority: 1 }),
  ],
  (obj, now) => {
    const pvc = view<PersistentVolumeClaim>(obj);
    // Capacity and access modes come from the status, once the claim names a volume.
    const bound = !!pvc.spec?.volumeName;
    const storage = pvc.status?.capacity?.storage;
    return {
      cells: [
        nameOf(obj),
        obj.metadata.deletionTimestamp ? 'Terminating' : (pvc.status?.phase ?? ''),
        pvc.spec?.volumeName ?? '',
        bound ? (storage !== undefined ? quantityText(storage) : '0') : '',
        bound ? accessModesText(pvc.status?.accessModes) : '',
        volumeClass(obj, pvc.spec?.storageClassName),
        pvc.spec?.volumeAttributesClassName || '<unset>',
        age(obj, now),
        pvc.spec?.volumeMode ?? '<unset>',
      ],
    };
  },
);

/** kube's formatHPAMetrics: `current/target` per metric (resources named), two at most, `<none>` without metrics. */
function hpaTargets(specs: readonly MetricSpec[] | undefined, statuses: readonly MetricStatus[] | undefined): string {
  if (!specs || specs.length === 0) return '<none>';
  const max = 2;
  const q = (v: number | string | undefined): string => (v === undefined ? '<unknown>' : quantityText(v));
  const list = specs.map((spec, i) => {
    const status = statuses?.[i];
    switch (spec.type) {
      case 'External': {
        const t = spec.external?.target;
        const c = status?.external?.current;
        return t?.averageValue !== undefined ? `${q(c?.averageValue)}/${q(t.averageValue)} (avg)` : `${q(c?.value)}/${q(t?.value)}`;
      }
      case 'Pods':
        return `${q(status?.pods?.current?.averageValue)}/${q(spec.pods?.target?.averageValue)}`;
      case 'Object': {
        const t = spec.object?.target;
        const c = status?.object?.current;
        return t?.averageValue !== undefined ? `${q(c?.averageValue)}/${q(t.averageValue)} (avg)` : `${q(c?.value)}/${q(t?.value)}`;
      }
      case 'Resource':
      case 'ContainerResource': {
        const source = spec.type === 'Resource' ? spec.resource : spec.containerResource;
        const current = spec.type === 'Resource' ? status?.resource?.current : status?.containerResource?.current;
        if (source?.target?.averageValue !== undefined) return `${source.name}: ${q(current?.averageValue)}/${q(source.target.averageValue)}`;
        const now = current?.averageUtilization !== undefined ? `${current.averageUtilization}%` : '<unknown>';
        const target = source?.target?.averageUtilization !== undefined ? `${source.target.averageUtilization}%` : '<auto>';
        return `${source?.name ?? ''}: ${now}/${target}`;
      }
      default:
        return '<unknown type>';
    }
  });
  return list.length > max ? `${list.slice(0, max).join(', ')} + ${list.length - max} more...` : list.join(', ');
}

const horizontalPodAutoscalerPrinter = printer(
  [
    nameColumn(),
    docColumn('Reference', 'string', 'io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerSpec', 'scaleTargetRef'),
    docColumn('Targets', 'string', 'io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerSpec', 'metrics'),
    docColumn('MinPods', 'string', 'io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerSpec', 'minReplicas'),
    docColumn('MaxPods', 'integer', 'io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerSpec', 'maxReplicas'),
    docColumn('Replicas', 'integer', 'io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerStatus', 'currentReplicas'),
    ageColumn(),
  ],
  (obj, now) => {
    // kube prints the internal (v2-shaped) object whichever version was asked for.
    const hpa = view<HorizontalPodAutoscaler>(obj.apiVersion === 'autoscaling/v1' ? hpaToV2(obj) : obj);
    const ref = hpa.spec?.scaleTargetRef;
    return {
      cells: [
        nameOf(obj),
        `${ref?.kind ?? ''}/${ref?.name ?? ''}`,
        hpaTargets(hpa.spec?.metrics, hpa.status?.currentMetrics),
        hpa.spec?.minReplicas !== undefined ? String(hpa.spec.minReplicas) : '<unset>',
        hpa.spec?.maxReplicas ?? 0,
        hpa.status?.currentReplicas ?? 0,
        age(obj, now),
      ],
    };
  },
);

// ---------------------------------------------------------------------------
// Registry
// ---------------------------------------------------------------------------

function key(group: string, resource: string): string {
  return `${group}/${resource}`;
}

/**
 * The printers of the built-in resources, keyed `group/resource` (`/pods`,
 * `apps/deployments`). Resources not listed use {@link defaultPrinter}, as kube
 * uses its DefaultTableConvertor for them (roles, clusterroles, CRDs, reviews).
 */
export const builtinPrinters: ReadonlyMap<string, ResourcePrinter> = new Map<string, ResourcePrinter>([
  [key('', 'pods'), podPrinter],
  [key('', 'services'), servicePrinter],
  [key('', 'endpoints'), endpointsPrinter],
  [key('', 'configmaps'), configMapPrinter],
  [key('', 'secrets'), secretPrinter],
  [key('', 'serviceaccounts'), serviceAccountPrinter],
  [key('', 'namespaces'), namespacePrinter],
  [key('', 'events'), coreEventPrinter],
  [key('', 'nodes'), nodePrinter],
  [key('', 'replicationcontrollers'), replicationControllerPrinter],
  [key('', 'podtemplates'), podTemplatePrinter],
  [key('', 'persistentvolumes'), persistentVolumePrinter],
  [key('', 'persistentvolumeclaims'), persistentVolumeClaimPrinter],
  [key('', 'resourcequotas'), resourceQuotaPrinter],
  [key('events.k8s.io', 'events'), eventsEventPrinter],
  [key('apps', 'deployments'), deploymentPrinter],
  [key('apps', 'replicasets'), replicaSetPrinter],
  [key('apps', 'controllerrevisions'), controllerRevisionPrinter],
  [key('apps', 'statefulsets'), statefulSetPrinter],
  [key('apps', 'daemonsets'), daemonSetPrinter],
  [key('autoscaling', 'horizontalpodautoscalers'), horizontalPodAutoscalerPrinter],
  [key('batch', 'jobs'), jobPrinter],
  [key('batch', 'cronjobs'), cronJobPrinter],
  [key('policy', 'poddisruptionbudgets'), podDisruptionBudgetPrinter],
  [key('networking.k8s.io', 'ingresses'), ingressPrinter],
  [key('networking.k8s.io', 'ingressclasses'), ingressClassPrinter],
  [key('networking.k8s.io', 'networkpolicies'), networkPolicyPrinter],
  [key('discovery.k8s.io', 'endpointslices'), endpointSlicePrinter],
  [key('scheduling.k8s.io', 'priorityclasses'), priorityClassPrinter],
  [key('node.k8s.io', 'runtimeclasses'), runtimeClassPrinter],
  [key('storage.k8s.io', 'storageclasses'), storageClassPrinter],
  [key('storage.k8s.io', 'csidrivers'), csiDriverPrinter],
  [key('storage.k8s.io', 'csinodes'), csiNodePrinter],
  [key('storage.k8s.io', 'volumeattachments'), volumeAttachmentPrinter],
  [key('storage.k8s.io', 'csistoragecapacities'), csiStorageCapacityPrinter],
  [key('', 'componentstatuses'), componentStatusPrinter],
  [key('apiregistration.k8s.io', 'apiservices'), apiServicePrinter],
  [key('admissionregistration.k8s.io', 'validatingadmissionpolicies'), validatingAdmissionPolicyPrinter],
  [key('admissionregistration.k8s.io', 'validatingadmissionpolicybindings'), validatingAdmissionPolicyBindingPrinter],
  [key('certificates.k8s.io', 'certificatesigningrequests'), certificateSigningRequestPrinter],
  [key('flowcontrol.apiserver.k8s.io', 'flowschemas'), flowSchemaPrinter],
  [key('flowcontrol.apiserver.k8s.io', 'prioritylevelconfigurations'), priorityLevelPrinter],
  [key('coordination.k8s.io', 'leases'), leasePrinter],
  [key('rbac.authorization.k8s.io', 'rolebindings'), roleBindingPrinter],
  [key('rbac.authorization.k8s.io', 'clusterrolebindings'), clusterRoleBindingPrinter],
  [key('admissionregistration.k8s.io', 'mutatingwebhookconfigurations'), webhookConfigurationPrinter],
  [key('admissionregistration.k8s.io', 'validatingwebhookconfigurations'), webhookConfigurationPrinter],
]);

/** The printer for a resource: its built-in printer, or kube's default (Name, Created At). */
export function printerFor(resource: { group: string; resource: string }): ResourcePrinter {
  return builtinPrinters.get(key(resource.group, resource.resource)) ?? defaultPrinter;
}

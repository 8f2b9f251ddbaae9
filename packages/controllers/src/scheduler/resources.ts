/**
 * Resource arithmetic for scheduling (kube's resource.PodRequests and the
 * scheduler's NodeInfo): what a pod requests, what a node can give, what its
 * pods already take. Amounts are integer thousandths of a unit (millicores,
 * millibytes), so sums are exact.
 */
import type { Container, NodeObject, PodObject } from '../objects.js';
import { milliValue } from '../quantity.js';
import { hasPodAffinity, hasRequiredAntiAffinity } from './pod-checks.js';

/** Amounts by resource name (`cpu`, `memory`, `ephemeral-storage`, `nvidia.com/gpu`...), in thousandths. */
export type Resources = Map<string, number>;

/** What the scheduler assumes a container without requests uses, for spreading (kube's non-zero defaults: 100m cpu, 200Mi memory). */
const nonZeroDefaults: Record<string, number> = { cpu: 100, memory: 200 * 2 ** 20 * 1000 };

function add(into: Resources, from: Resources): void {
  for (const [k, v] of from) into.set(k, (into.get(k) ?? 0) + v);
}

function max(into: Resources, from: Resources): void {
  for (const [k, v] of from) into.set(k, Math.max(into.get(k) ?? 0, v));
}

/**
 * A container's requests; a resource with a limit and no request requests its limit, as kube defaults it.
 * `defaults`: amounts for resources the container does not request (kube's NonMissingContainerRequests).
 */
function containerRequests(c: Container, defaults?: Readonly<Record<string, number>>): Resources {
  const out: Resources = new Map();
  const requests = c.resources?.requests ?? {};
  const limits = c.resources?.limits ?? {};
  for (const name of new Set([...Object.keys(requests), ...Object.keys(limits)])) {
    const v = milliValue(requests[name] ?? limits[name]);
    if (v !== undefined) out.set(name, v);
  }
  for (const name in defaults) if (!out.has(name)) out.set(name, defaults[name]!);
  return out;
}

/**
 * kube's PodRequests: the app containers' sum, plus restartable init
 * containers (sidecars), or the largest regular init container's need with
 * the sidecars started before it, whichever is more; plus the pod overhead.
 */
export function podRequests(pod: PodObject, defaults?: Readonly<Record<string, number>>): Resources {
  const total: Resources = new Map();
  for (const c of pod.spec?.containers ?? []) add(total, containerRequests(c, defaults));
  const sidecars: Resources = new Map();
  const initPeak: Resources = new Map();
  for (const c of pod.spec?.initContainers ?? []) {
    const r = containerRequests(c, defaults);
    if (c.restartPolicy === 'Always') {
      add(sidecars, r);
      max(initPeak, sidecars);
    } else {
      const withSidecars = new Map(sidecars);
      add(withSidecars, r);
      max(initPeak, withSidecars);
    }
  }
  add(total, sidecars);
  max(total, initPeak);
  const overhead = pod.spec?.overhead ?? {};
  for (const [name, q] of Object.entries(overhead)) {
    const v = milliValue(q);
    if (v !== undefined) total.set(name, (total.get(name) ?? 0) + v);
  }
  return total;
}

/**
 * Cpu and memory as the scorer counts them (kube's NonZeroRequested): every
 * container, init containers included, that does not request one is taken to
 * request 100m cpu or 200Mi memory; then summed as {@link podRequests} sums.
 */
export function nonZeroRequests(pod: PodObject): Resources {
  const all = podRequests(pod, nonZeroDefaults);
  return new Map(Object.keys(nonZeroDefaults).map((name) => [name, all.get(name) ?? 0]));
}

/** Each node object's allocatable resources, computed once (the cache replaces a node's object when it changes; callers only read). */
const allocatableOf = new WeakMap<NodeObject, Resources>();

/** A node's allocatable resources (`pods` as a count, in thousandths like the rest). */
export function allocatable(node: NodeObject): Resources {
  let out = allocatableOf.get(node);
  if (!out) allocatableOf.set(node, (out = computeAllocatable(node)));
  return out;
}

function computeAllocatable(node: NodeObject): Resources {
  const out: Resources = new Map();
  for (const [name, q] of Object.entries(node.status?.allocatable ?? node.status?.capacity ?? {})) {
    const v = milliValue(q);
    if (v !== undefined) out.set(name, v);
  }
  return out;
}

/** A host port a container holds (kube's HostPortInfo entry). */
export interface HostPort {
  ip: string;
  protocol: string;
  port: number;
}

/** The host ports a pod's containers ask for ('0.0.0.0' when no hostIP is given, TCP by default). */
export function hostPorts(pod: PodObject): HostPort[] {
  return (pod.spec?.containers ?? []).flatMap((c) =>
    (c.ports ?? []).filter((p) => p.hostPort).map((p) => ({ ip: p.hostIP || '0.0.0.0', protocol: p.protocol ?? 'TCP', port: p.hostPort! })),
  );
}

/** What pods on a node take: requests (for fit), non-zero requests (for scores), their count and host ports; and the pods themselves, for the filters that look at other pods. */
export interface NodeUsage {
  readonly requested: ReadonlyMap<string, number>;
  readonly nonZero: ReadonlyMap<string, number>;
  /** How many pods count on the node. */
  readonly podCount: number;
  /** The host ports their containers hold. */
  readonly hostPorts: readonly HostPort[];
  /** The pods that count on the node. */
  readonly pods: Iterable<PodObject>;
  /** Those of them with required pod anti-affinity terms. */
  readonly podsWithRequiredAntiAffinity: Iterable<PodObject>;
  /** Those of them with pod affinity or anti-affinity terms of any kind. */
  readonly podsWithAffinity: Iterable<PodObject>;
}

/** What one pod adds to its node's usage. */
export interface PodFootprint {
  requested: Resources;
  nonZero: Resources;
  hostPorts: HostPort[];
}

/**
 * Each pod's footprint, computed once per object: the cache replaces a pod's
 * object when it changes and never edits it, so the object is the key.
 */
const footprints = new WeakMap<PodObject, PodFootprint>();

export function footprintOf(pod: PodObject): PodFootprint {
  let f = footprints.get(pod);
  if (!f) footprints.set(pod, (f = { requested: podRequests(pod), nonZero: nonZeroRequests(pod), hostPorts: hostPorts(pod) }));
  return f;
}

/** Adds (`sign` 1) or takes away (`sign` -1) one set of amounts; a resource that comes back to 0 is dropped, so sums compare equal however they were reached. */
export function addSigned(into: Resources, from: ReadonlyMap<string, number>, sign: 1 | -1): void {
  for (const [k, v] of from) {
    const next = (into.get(k) ?? 0) + sign * v;
    if (next === 0) into.delete(k);
    else into.set(k, next);
  }
}

/** The usage of `pods` summed from scratch (what the scheduler's cache keeps up to date incrementally; see node-usage.ts). */
export function usageOf(pods: readonly PodObject[]): NodeUsage {
  const requested: Resources = new Map();
  const nonZero: Resources = new Map();
  const ports: HostPort[] = [];
  for (const pod of pods) {
    const f = footprintOf(pod);
    addSigned(requested, f.requested, 1);
    addSigned(nonZero, f.nonZero, 1);
    ports.push(...f.hostPorts);
  }
  return { requested, nonZero, podCount: pods.length, hostPorts: ports, pods, podsWithRequiredAntiAffinity: pods.filter(hasRequiredAntiAffinity), podsWithAffinity: pods.filter(hasPodAffinity) };
}

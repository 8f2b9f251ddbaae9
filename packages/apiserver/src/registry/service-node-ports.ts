/**
 * Node ports of Services, allocated as kube's service registry allocates them
 * (pkg/registry/core/service/storage/alloc.go) in its BeginCreate and
 * BeginUpdate, after the mutating webhooks and before validation and the
 * validating webhooks: from kube-apiserver's default
 * --service-node-port-range, 30000-32767, skipping the ports other Services
 * hold. The ports a write takes are held from then until it is stored or has
 * failed (kube's allocator transaction, committed or reverted), so a
 * concurrent write finds them allocated while this one awaits its webhooks.
 *
 * - Create: a port that asks for a nodePort gets it when it is in the range
 *   and free; any other gets the next free one (a LoadBalancer only when
 *   `allocateLoadBalancerNodePorts` is not false). Ports with the same port
 *   number share one nodePort (a DNS Service's TCP and UDP 53).
 * - Update: a port that leaves its nodePort out keeps the one it had (matched
 *   by name), a port that asks for one it did not hold gets it when free,
 *   and a port without one gets the next free one; one node port named
 *   twice for one protocol is kube's 500 without a reason (`duplicate
 *   nodePort: {TCP 30080}`). A Service that stops needing node ports
 *   (NodePort to ClusterIP) without changing them has them cleared, as
 *   kube's dropTypeDependentFields does; a LoadBalancer whose
 *   allocateLoadBalancerNodePorts turns false keeps them.
 *
 * A LoadBalancer with `externalTrafficPolicy: Local` also gets a
 * healthCheckNodePort from the same range (the one it asks for, else the
 * next free one), kept by updates that leave it out, and cleared when the
 * Service stops needing it (kube's allocHealthCheckNodePort,
 * updateHealthCheckNodePort and dropTypeDependentFields); one it cannot have
 * is kube's 500 (`failed to allocate requested HealthCheck NodePort 30080:
 * provided port is already allocated`).
 *
 * A port asked for outside the range or held elsewhere is kube's 422
 * (`spec.ports[0].nodePort: Invalid value: 80: provided port is not in the
 * valid range. The range of valid ports is 30000-32767`, or `provided port is
 * already allocated`); a full range is its 500 (`Internal error occurred:
 * failed to allocate a nodePort: range is full`).
 */
import { fieldErrors, internalError, invalid, unknownError, type KubeObject } from '@operant/apimachinery';
import { nodePortRange, type ClusterIpAllocator } from './cluster-ip.js';
import { asObj } from './defaults/json-fields.js';

type Json = Record<string, unknown>;

const portsOf = (o: KubeObject): Json[] => {
  const ports = asObj(o.spec).ports;
  return Array.isArray(ports) ? ports.map(asObj) : [];
};
const nodePortOf = (p: Json): number => (typeof p.nodePort === 'number' ? p.nodePort : 0);

/** kube's needsNodePort: the types that are reached through node ports. */
function needsNodePorts(o: KubeObject): boolean {
  const type = asObj(o.spec).type;
  return type === 'NodePort' || type === 'LoadBalancer';
}

/** kube's NeedsHealthCheck: a LoadBalancer whose external traffic stays on the node it arrives at. */
export function needsHealthCheckNodePort(o: KubeObject): boolean {
  const s = asObj(o.spec);
  return s.type === 'LoadBalancer' && s.externalTrafficPolicy === 'Local';
}

/** spec.healthCheckNodePort, 0 when unset. */
export function healthCheckNodePortOf(o: KubeObject): number {
  const port = asObj(o.spec).healthCheckNodePort;
  return typeof port === 'number' ? port : 0;
}

/** kube's shouldAllocateNodePorts: whether ports that ask for none get one. */
function allocatesNodePorts(o: KubeObject): boolean {
  const s = asObj(o.spec);
  if (s.type === 'NodePort') return true;
  return s.type === 'LoadBalancer' && s.allocateLoadBalancerNodePorts !== false;
}

/** The node ports of one write: those other Services hold, and those this one takes. */
class NodePortClaims {
  /** The ports this write took, to be held until it is stored or has failed. */
  readonly took: number[] = [];

  constructor(
    private readonly service: KubeObject,
    private readonly allocator: ClusterIpAllocator,
    private readonly taken: Set<number>,
  ) {}

  /** Takes `port` for `spec.ports[index]`, or throws kube's Invalid saying why it cannot. */
  claim(port: number, index: number): void {
    const why = this.refusal(port);
    if (why) throw invalid('', 'Service', this.service.metadata.name ?? '', [fieldErrors.invalid(`spec.ports[${index}].nodePort`, port, why)]);
    this.take(port);
  }

  /** The health check's node port: `requested` when it is not 0, else the next free one; kube's 500 when it cannot be had. */
  healthCheck(requested: number): number {
    // kube names the port it did not get: 0.
    if (requested === 0) return this.next('a HealthCheck NodePort 0');
    const why = this.refusal(requested);
    if (why) throw internalError(`failed to allocate requested HealthCheck NodePort ${requested}: ${why}`);
    this.take(requested);
    return requested;
  }

  /** Why `port` cannot be taken, in kube's port allocator's words; undefined when it can. */
  private refusal(port: number): string | undefined {
    if (!Number.isInteger(port) || port < nodePortRange.min || port > nodePortRange.max) {
      return `provided port is not in the valid range. The range of valid ports is ${nodePortRange.min}-${nodePortRange.max}`;
    }
    return this.taken.has(port) ? 'provided port is already allocated' : undefined;
  }

  /** The next free port, taken; kube's 500 naming `what` could not be allocated when the range is full. */
  next(what = 'a nodePort'): number {
    const port = this.allocator.nextNodePort(this.taken);
    if (port === undefined) throw internalError(`failed to allocate ${what}: range is full`);
    this.take(port);
    return port;
  }

  private take(port: number): void {
    this.taken.add(port);
    this.took.push(port);
  }
}

/**
 * Fills in and checks the node ports of a Service being created (kube's initNodePorts);
 * returns the ports it took. `inUse` holds the ports taken elsewhere, and gains these.
 */
export function allocateNodePortsOnCreate(service: KubeObject, allocator: ClusterIpAllocator, inUse: Set<number>): number[] {
  if (!needsNodePorts(service)) return [];
  const ports = portsOf(service);
  const claims = new NodePortClaims(service, allocator, inUse);
  const allocateNew = allocatesNodePorts(service);
  // The node port given to each service port number, shared by its protocols.
  const byPort = new Map<unknown, number>();
  ports.forEach((p, i) => {
    const requested = nodePortOf(p);
    if (requested === 0 && !allocateNew) return;
    const shared = byPort.get(p.port);
    if (shared === undefined) {
      // A later port of the same number may name the node port this one is to share.
      const asked = ports.slice(i).find((q) => q.port === p.port && nodePortOf(q) !== 0);
      let port: number;
      if (asked) {
        port = nodePortOf(asked);
        claims.claim(port, i);
      } else port = claims.next();
      p.nodePort = port;
      byPort.set(p.port, port);
    } else if (requested !== shared) {
      if (requested === 0) p.nodePort = shared;
      else claims.claim(requested, i);
    }
  });
  if (needsHealthCheckNodePort(service)) asObj(service.spec).healthCheckNodePort = claims.healthCheck(healthCheckNodePortOf(service));
  return claims.took;
}

/**
 * Keeps, fills in and checks the node ports of a Service being updated
 * (kube's patchAllocatedValues, updateNodePorts and dropTypeDependentFields);
 * returns the ports it took. A node port named twice for one protocol is
 * kube's 500 without a reason (`duplicate nodePort: {TCP 30080}`): its
 * updateNodePorts returns a plain error there, before validation could say
 * Duplicate value.
 */
export function allocateNodePortsOnUpdate(service: KubeObject, old: KubeObject, allocator: ClusterIpAllocator, inUse: Set<number>): number[] {
  const ports = portsOf(service);
  const oldPorts = portsOf(old);
  const spec = asObj(service.spec);
  if (needsNodePorts(old) && needsNodePorts(service)) keepAllocatedNodePorts(ports, oldPorts);
  if (needsHealthCheckNodePort(old) && needsHealthCheckNodePort(service) && healthCheckNodePortOf(service) === 0) {
    spec.healthCheckNodePort = healthCheckNodePortOf(old);
  }
  // A LoadBalancer: node ports and a health check's port come from one range.
  const claims = needsNodePorts(service) ? new NodePortClaims(service, allocator, inUse) : undefined;
  if (claims) {
    const held = new Set(oldPorts.map(nodePortOf));
    const allocateNew = allocatesNodePorts(service);
    const claimed = new Set<number>();
    // Each protocol's node ports: TCP and UDP may share one.
    const named = new Set<string>();
    ports.forEach((p, i) => {
      let port = nodePortOf(p);
      if (port === 0 && !allocateNew) return;
      if (port === 0) {
        port = claims.next();
        p.nodePort = port;
      } else if (!held.has(port) && !claimed.has(port)) {
        claims.claim(port, i);
        claimed.add(port);
      }
      // Go's %v of kube's ServiceNodePort{Protocol, NodePort}.
      const key = `{${String(p.protocol ?? '')} ${port}}`;
      if (named.has(key)) throw unknownError(`duplicate nodePort: ${key}`);
      named.add(key);
    });
  }
  // Only a type without node ports clears them: a LoadBalancer that stops allocating them
  // (allocateLoadBalancerNodePorts false) keeps those it has, as in kube.
  if (needsNodePorts(old) && !needsNodePorts(service) && sameNodePorts(ports, oldPorts)) for (const p of ports) delete p.nodePort;
  // A Service that comes to need a health check port gets one; one that stops needing it, unchanged, loses it.
  if (claims && !needsHealthCheckNodePort(old) && needsHealthCheckNodePort(service)) spec.healthCheckNodePort = claims.healthCheck(healthCheckNodePortOf(service));
  if (needsHealthCheckNodePort(old) && !needsHealthCheckNodePort(service) && healthCheckNodePortOf(service) === healthCheckNodePortOf(old)) delete spec.healthCheckNodePort;
  return claims?.took ?? [];
}

/** A port that leaves its nodePort out gets the one its namesake had, unless another port kept that one. */
function keepAllocatedNodePorts(ports: Json[], oldPorts: Json[]): void {
  const inBoth = new Set(oldPorts.map(nodePortOf).filter((n) => ports.some((p) => nodePortOf(p) === n)));
  const byName = new Map(oldPorts.map((p) => [p.name ?? '', nodePortOf(p)]));
  for (const p of ports) {
    if (nodePortOf(p) !== 0) continue;
    const had = byName.get(p.name ?? '') ?? 0;
    if (had !== 0 && !inBoth.has(had)) p.nodePort = had;
  }
}

/** kube's sameNodePorts: ports may be added, removed or changed, as long as no node port is new. */
function sameNodePorts(ports: Json[], oldPorts: Json[]): boolean {
  const held = new Set(oldPorts.map(nodePortOf));
  return ports.every((p) => nodePortOf(p) === 0 || held.has(nodePortOf(p)));
}

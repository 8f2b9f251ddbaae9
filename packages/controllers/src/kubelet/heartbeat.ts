/**
 * Node heartbeats, as a kubelet with node leases sends them: the node's Lease
 * in kube-node-lease (held by the node, 40 s, owned by the Node) renewed
 * every 10 s, and the Node's status reported every 5 minutes, or at once when
 * it differs from what is stored (a restart: new bootID; someone else's
 * write). A controller of the runtime's builder, requeued for the next beat.
 * A beat that fails is tried again at most 7 s (cluster time) later, as the
 * kubelet's lease controller does, not on a controller's default backoff.
 *
 * Like the kubelet, a beat never waits for an informer to catch up: the Lease
 * is renewed from the one this kubelet last wrote (read from the server when
 * there is none, or when that write was not the last), and the Node is read
 * from the cache as it is, not after this client's own writes show in it.
 * After an API server outage the cache stays stale until its informers
 * reconnect, on their backoff in wall time (seconds): a renewal from the
 * cached Lease then conflicted, and a read waiting for this client's writes
 * held the heartbeat's one worker, so that every node went unrenewed for
 * 1-3 s of wall time, a few hundred seconds of an accelerated cluster's.
 */
import { deepCopy, jsonEqual } from '@operant/apimachinery';
import { ignoreNotFound, isConflict, isNotFound, Lease, Node, objectPredicate, type Clock, type Manager, type ReconcileResult, type Request } from '@operant/runtime';
import { ItemExponentialFailureRateLimiter } from '@operant/runtime/workqueue';
import { microTime, timeOf } from '../clock.js';
import type { LeaseObject, NodeObject } from '../objects.js';
import type { SimulatedNode } from './node.js';

export const nodeLeaseNamespace = 'kube-node-lease';
const leaseDurationSeconds = 40;
/** kubelet renews at a quarter of the lease's duration. */
const renewIntervalMs = 10_000;
/** kubelet's nodeStatusReportFrequency. */
const reportIntervalMs = 5 * 60_000;
/**
 * The kubelet's lease controller (k8s.io/component-helpers' lease controller)
 * retries a failed renewal after 200 ms, doubling up to its maxBackoff, 7 s:
 * well inside the 40 s grace period, so a kubelet outlives an API server
 * outage once the server is back. A controller's default backoff (5 ms
 * doubling up to 1000 s, for every failure in a row) grows past the grace
 * period within 20 failures: after an outage of a few seconds of cluster time
 * the nodes stayed silent for as long again after the server came back, and
 * went NotReady though their kubelets were fine.
 */
const heartbeatRetry = { firstMs: 200, maxMs: 7_000 };

interface HeartbeatDeps {
  nodes: ReadonlyMap<string, SimulatedNode>;
  kubeletVersion: string;
  clock: Clock;
}

/** Each node's Lease as its kubelet last wrote it (the lease controller's latestLease). */
type LatestLeases = Map<string, LeaseObject>;

export function addNodeHeartbeats(mgr: Manager, deps: HeartbeatDeps, clock: Clock | undefined): void {
  const latest: LatestLeases = new Map();
  mgr
    .controller('node-heartbeat', {
      ...(clock ? { clock } : {}),
      // Per node, in the controller's clock (cluster time), as each kubelet retries on its own.
      rateLimiter: new ItemExponentialFailureRateLimiter(heartbeatRetry.firstMs, heartbeatRetry.maxMs),
    })
    .for(Node, { predicates: [objectPredicate((n) => deps.nodes.has(n.metadata.name ?? ''))] })
    .watches(Lease, (l) => (l.metadata.namespace === nodeLeaseNamespace && deps.nodes.has(l.metadata.name ?? '') ? [{ namespace: '', name: l.metadata.name! }] : []))
    // Each node's kubelet renews on its own: one worker for every ten nodes (at most 32), so that a
    // thousand nodes' renewals (100/s) do not queue behind each other's round trips.
    .maxConcurrentReconciles(Math.min(32, Math.max(1, Math.ceil(deps.nodes.size / 10))))
    .reconcile((req) => heartbeat(mgr, deps, latest, req));
}

async function heartbeat(mgr: Manager, deps: HeartbeatDeps, latest: LatestLeases, req: Request): Promise<ReconcileResult | void> {
  const sim = deps.nodes.get(req.name);
  // The cache as it is: a status written from a Node older than this kubelet's last write conflicts, and is retried.
  const node = sim && ((await mgr.cache.get(Node, req.name).catch(ignoreNotFound)) as NodeObject | undefined);
  // A deleted Node stays deleted: its kubelet stops reporting (kwok's behaviour too).
  if (!sim || !node) {
    latest.delete(req.name);
    return;
  }
  sim.annotations = node.metadata.annotations ?? {};
  // A paused kubelet neither renews its Lease nor reports; the Node's watch wakes it when the knob goes.
  if (sim.paused) return;
  const now = deps.clock.now();
  const renewAt = await renewLease(mgr, latest, node, now);
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  const reportedAt = timeOf(ready?.lastHeartbeatTime) ?? 0;
  const desired = sim.nodeStatus(deps.kubeletVersion, now, node.status);
  const stale = reportedAt + reportIntervalMs <= now || !jsonEqual(withoutHeartbeats(node.status), withoutHeartbeats(desired));
  let nextReport = reportedAt + reportIntervalMs;
  if (stale) {
    await mgr.client.updateStatus(Node, { ...node, status: desired });
    nextReport = now + reportIntervalMs;
  }
  return { requeueAfter: Math.max(1, Math.min(renewAt, nextReport) - now) };
}

/**
 * Creates or renews the node's Lease when due; returns when the next renewal is due. As the kubelet's
 * lease controller: from the Lease it last wrote, and when that fails with a Conflict or NotFound
 * (someone else wrote or deleted it), from the server's.
 */
async function renewLease(mgr: Manager, latest: LatestLeases, node: NodeObject, now: number): Promise<number> {
  const name = node.metadata.name!;
  const ours = latest.get(name);
  if (ours) {
    try {
      return await renewFrom(mgr, latest, ours, now);
    } catch (err) {
      latest.delete(name);
      if (!isConflict(err) && !isNotFound(err)) throw err;
    }
  }
  const live = mgr.client.withoutCache();
  const lease = (await live.get(Lease, name, { namespace: nodeLeaseNamespace }).catch(ignoreNotFound)) as LeaseObject | undefined;
  if (!lease) {
    const created = await mgr.client.create(Lease, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name, namespace: nodeLeaseNamespace, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid: node.metadata.uid! }] },
      spec: { holderIdentity: name, leaseDurationSeconds, renewTime: microTime(now) },
    });
    latest.set(name, created as LeaseObject);
    return now + renewIntervalMs;
  }
  return renewFrom(mgr, latest, lease, now);
}

/** Renews `lease` (this kubelet's last write, or the server's copy) when due, remembering what was written. */
async function renewFrom(mgr: Manager, latest: LatestLeases, lease: LeaseObject, now: number): Promise<number> {
  const name = lease.metadata.name!;
  const renewed = timeOf(lease.spec?.renewTime) ?? 0;
  if (renewed + renewIntervalMs > now) {
    latest.set(name, lease);
    return renewed + renewIntervalMs;
  }
  const copy = deepCopy(lease);
  const written = await mgr.client.update(Lease, { ...copy, spec: { ...copy.spec, holderIdentity: name, leaseDurationSeconds, renewTime: microTime(now) } });
  latest.set(name, written as LeaseObject);
  return now + renewIntervalMs;
}

/** A node status without its heartbeat times, to tell a real change from the passing of time. */
function withoutHeartbeats(status: NodeObject['status']): unknown {
  return { ...status, conditions: status?.conditions?.map(({ lastHeartbeatTime: _t, ...rest }) => rest) };
}

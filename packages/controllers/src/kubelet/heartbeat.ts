/**
 * Node heartbeats, as a kubelet with node leases sends them: the node's Lease
 * in kube-node-lease (held by the node, 40 s, owned by the Node) renewed
 * every 10 s, and the Node's status reported every 5 minutes, or at once when
 * it differs from what is stored (a restart: new bootID; someone else's
 * write). A controller of the runtime's builder, requeued for the next beat.
 * A beat that fails is tried again at most 7 s (cluster time) later, as the
 * kubelet's lease controller does, not on a controller's default backoff.
 */
import { deepCopy, jsonEqual } from '@operant/apimachinery';
import { ignoreNotFound, Lease, Node, objectPredicate, type Clock, type Manager, type ReconcileResult, type Request } from '@operant/runtime';
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

export function addNodeHeartbeats(mgr: Manager, deps: HeartbeatDeps, clock: Clock | undefined): void {
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
    .reconcile((req) => heartbeat(mgr, deps, req));
}

async function heartbeat(mgr: Manager, deps: HeartbeatDeps, req: Request): Promise<ReconcileResult | void> {
  const sim = deps.nodes.get(req.name);
  const node = sim && ((await mgr.client.get(Node, req.name).catch(ignoreNotFound)) as NodeObject | undefined);
  // A deleted Node stays deleted: its kubelet stops reporting (kwok's behaviour too).
  if (!sim || !node) return;
  sim.annotations = node.metadata.annotations ?? {};
  // A paused kubelet neither renews its Lease nor reports; the Node's watch wakes it when the knob goes.
  if (sim.paused) return;
  const now = deps.clock.now();
  const renewAt = await renewLease(mgr, node, now);
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

/** Creates or renews the node's Lease when due; returns when the next renewal is due. */
async function renewLease(mgr: Manager, node: NodeObject, now: number): Promise<number> {
  const name = node.metadata.name!;
  const lease = (await mgr.client.get(Lease, name, { namespace: nodeLeaseNamespace }).catch(ignoreNotFound)) as LeaseObject | undefined;
  if (!lease) {
    await mgr.client.create(Lease, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name, namespace: nodeLeaseNamespace, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid: node.metadata.uid! }] },
      spec: { holderIdentity: name, leaseDurationSeconds, renewTime: microTime(now) },
    });
    return now + renewIntervalMs;
  }
  const renewed = timeOf(lease.spec?.renewTime) ?? 0;
  if (renewed + renewIntervalMs > now) return renewed + renewIntervalMs;
  const copy = deepCopy(lease);
  await mgr.client.update(Lease, { ...copy, spec: { ...copy.spec, holderIdentity: name, leaseDurationSeconds, renewTime: microTime(now) } });
  return now + renewIntervalMs;
}

/** A node status without its heartbeat times, to tell a real change from the passing of time. */
function withoutHeartbeats(status: NodeObject['status']): unknown {
  return { ...status, conditions: status?.conditions?.map(({ lastHeartbeatTime: _t, ...rest }) => rest) };
}

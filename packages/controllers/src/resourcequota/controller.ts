/**
 * The resourcequota controller (kube's pkg/controller/resourcequota): keeps
 * each ResourceQuota's `status.hard` equal to `spec.hard` and recounts
 * `status.used` from the objects of its namespace, with the evaluators the
 * API server's quota admission charges by (@operant/apimachinery/quota):
 *
 * - a quota is recounted when it changes, when an object of a kind it can
 *   count changes in its namespace (a pod that ends frees its compute), and
 *   every five minutes (kube's `--resource-quota-sync-period`);
 * - only resources in `spec.hard` are reported, each at least `0`;
 *   `count/` of kinds not watched (other built-ins, custom resources) is
 *   listed at each sync (object-count.ts), and a deletion of one re-queues
 *   the quotas of its namespace (count-monitor.ts, kube's QuotaMonitor); a
 *   resource nothing here counts keeps what admission charged;
 * - the status is written only when it changed.
 */
import { deepCopy } from '@operant/apimachinery';
import { addResources, maskResources, matchingQuotaResources, quotaScopesMatch, quotaUsage, sameResources, type ResourceList } from '@operant/apimachinery/quota';
import {
  ConfigMap,
  CronJob,
  DaemonSet,
  Deployment,
  ignoreNotFound,
  Job,
  PersistentVolumeClaim,
  Pod,
  ReplicaSet,
  ReplicationController,
  Secret,
  Service,
  StatefulSet,
  type Kind,
  type Manager,
  type ReconcileResult,
  type Request,
} from '@operant/runtime';
import type { ControllerContext as Context, WorkloadControllerOptions } from '../context.js';
import { ResourceQuota, type ResourceQuotaObject } from '../kinds.js';
import { listedObjectCounts } from './object-count.js';
import { QuotaCountMonitor } from './count-monitor.js';

/** kube's default `--resource-quota-sync-period`: a full recount this often, in cluster time. */
export const resourceQuotaSyncPeriodMs = 5 * 60 * 1000;

/** The kinds whose objects a quota here can count. */
const countedKinds: readonly Kind[] = [Pod, Service, PersistentVolumeClaim, ConfigMap, Secret, ReplicationController, ResourceQuota, Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob];

/**
 * Adds kube's resourcequota controller to a manager.
 *
 * @example
 * ```ts
 * import { addResourceQuotaController } from '@operant/controllers';
 * import { handleSignals, Manager } from '@operant/runtime';
 *
 * const mgr = await Manager.create({ client: { readYourWrites: true } });
 * addResourceQuotaController(mgr);
 * await mgr.start(handleSignals());
 * ```
 */
export function addResourceQuotaController(mgr: Manager, options: WorkloadControllerOptions = {}): void {
  const clock = options.clock;
  const ctx: Context = { client: mgr.client, recorder: mgr.eventRecorderFor('resourcequota-controller'), now: () => (clock ?? Date).now() };
  // The quotas of each namespace, so that an object's change reaches the quotas that count it.
  const quotas = new Map<string, Set<string>>();
  const quotasOf = (namespace: string): Request[] => [...(quotas.get(namespace) ?? [])].map((name) => ({ namespace, name }));
  const monitor = new QuotaCountMonitor(mgr.informers, quotasOf);
  let builder = mgr.controller('resourcequota', clock ? { clock } : {}).for(ResourceQuota).watchesRawSource(monitor);
  for (const kind of countedKinds) if (kind !== ResourceQuota) builder = builder.watches(kind, (o) => quotasOf(o.metadata.namespace ?? ''));
  builder.maxConcurrentReconciles(options.workers ?? 5).reconcile(async (req) => {
    const found = (await ctx.client.get(ResourceQuota, req.name, { namespace: req.namespace }).catch(ignoreNotFound)) as ResourceQuotaObject | undefined;
    const names = quotas.get(req.namespace) ?? new Set<string>();
    if (!found) {
      names.delete(req.name);
      if (names.size === 0) quotas.delete(req.namespace);
      return;
    }
    quotas.set(req.namespace, names.add(req.name));
    return syncResourceQuota(ctx, found, (kind) => monitor.monitor(kind));
  });
}

/** kube's syncResourceQuota. */
async function syncResourceQuota(ctx: Context, quota: ResourceQuotaObject, monitor: (kind: Kind) => void): Promise<ReconcileResult> {
  const namespace = quota.metadata.namespace ?? '';
  const hard = (quota.spec?.hard ?? {}) as ResourceList;
  const hardNames = Object.keys(hard);
  const now = ctx.now();
  let observed: Record<string, string> = {};
  for (const kind of countedKinds) {
    const gr = { group: kind.group, resource: kind.plural };
    const counted = matchingQuotaResources(gr, hardNames);
    if (counted.length === 0) continue;
    // kube's CalculateUsageStats: each counted resource starts at zero.
    let usage: Record<string, string> = Object.fromEntries(counted.map((name) => [name, '0']));
    for (const obj of (await ctx.client.list(kind, { namespace })).items) {
      if (quotaScopesMatch(quota, gr, obj)) usage = addResources(usage, quotaUsage(gr, obj, now));
    }
    observed = addResources(observed, maskResources(usage, counted));
  }
  // A quota with scopes counts only pods (kube's MatchesNoScopeFunc for the rest).
  const hasScopes = (quota.spec?.scopes?.length ?? 0) > 0 || (quota.spec?.scopeSelector?.matchExpressions?.length ?? 0) > 0;
  const unwatched = hardNames.filter((name) => name.startsWith('count/') && !(name in observed));
  const listed = await listedObjectCounts(ctx.client, namespace, unwatched, monitor);
  for (const [name, count] of Object.entries(listed)) observed[name] = hasScopes ? '0' : count;
  const previous = (quota.status?.used ?? {}) as ResourceList;
  const used = maskResources({ ...previous, ...observed }, hardNames);
  const statusHard = (quota.status?.hard ?? {}) as ResourceList;
  const changed = quota.status?.used === undefined || !sameResources(hard, statusHard) || !sameResources(used, previous);
  if (changed) {
    const updated = deepCopy(quota) as ResourceQuotaObject;
    (updated as { status?: unknown }).status = { hard: { ...hard }, used };
    await ctx.client.updateStatus(ResourceQuota, updated);
  }
  return { requeueAfter: resourceQuotaSyncPeriodMs };
}

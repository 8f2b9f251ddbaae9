/**
 * The ClusterRole aggregation controller (kube's clusterroleaggregation controller): when
 * any ClusterRole changes, every ClusterRole with an `aggregationRule` gets, as its stored
 * `rules`, the union of the rules of the ClusterRoles its selectors pick (see
 * aggregation.ts), written through the ClusterRole registry like any other write, so that
 * `kubectl get clusterrole view -o yaml` shows what `view` grants and watchers see it change.
 *
 * The authorizer applies aggregation itself when it reads the roles, so a new
 * `aggregate-to-*` role is in effect at once; this controller makes the stored objects say so.
 */
import { StatusError, type KubeObject } from '@operant/apimachinery';
import type { ResourceCatalog } from '../../registry/catalog.js';
import type { ResourceStore } from '../../registry/resource-store.js';
import { resourcePrefix } from '../../registry/keys.js';
import type { StoreWatch } from '../../storage/mvcc-store.js';
import { CoalescedSync } from '../../controllers/coalesced-sync.js';
import type { ClusterRole, PolicyRule } from './attributes.js';
import { effectiveClusterRoleRules } from './aggregation.js';
import { rulesEqual } from './rules.js';

/** The field manager kube's controller writes with. */
const fieldManager = 'clusterrole-aggregation-controller';

function sameRules(a: readonly PolicyRule[] | undefined, b: readonly PolicyRule[]): boolean {
  // kube compares with Semantic.DeepEqual: a role without rules differs from one with `rules: []`.
  if (!Array.isArray(a)) return false;
  return a.length === b.length && a.every((r, i) => rulesEqual(r, b[i]!));
}

export class ClusterRoleAggregationController {
  private watch?: StoreWatch;
  private readonly loop = new CoalescedSync('clusterrole aggregation controller', () => this.sync());
  private stopped = false;

  constructor(private readonly catalog: ResourceCatalog) {}

  private get clusterRoles(): ResourceStore {
    const rs = this.catalog.lookup('rbac.authorization.k8s.io', 'v1', 'clusterroles');
    if (!rs) throw new Error('clusterroles are not served');
    return rs;
  }

  start(): void {
    const rs = this.clusterRoles;
    const store = rs.mvcc;
    // One sync of all aggregated roles after a burst of events.
    this.watch = store.watch(resourcePrefix(rs.location), store.revision, () => this.loop.schedule());
    this.loop.schedule();
  }

  stop(): Promise<void> {
    this.stopped = true;
    this.watch?.stop();
    return this.loop.stop();
  }

  /** Writes the aggregated rules of every aggregating ClusterRole that lacks them; true when one write failed. */
  private async sync(): Promise<boolean> {
    const rs = this.clusterRoles;
    const roles = (await rs.toExternal(rs.mvcc.list(resourcePrefix(rs.location)).items.map((v) => v.value))) as unknown as ClusterRole[];
    if (!roles.some((r) => r.aggregationRule)) return false;
    const effective = effectiveClusterRoleRules(roles);
    let failed = false;
    for (const role of roles) {
      if (this.stopped) return false;
      if (!role.aggregationRule) continue;
      const name = role.metadata?.name ?? '';
      const rules = effective.get(name) ?? [];
      if (sameRules(role.rules, rules)) continue;
      try {
        // The resourceVersion read makes this a conditional write: a concurrent change wins and we sync again.
        await rs.update('', name, { ...(role as unknown as KubeObject), rules } as KubeObject, { dryRun: false, fieldValidation: 'Ignore', fieldManager });
      } catch (e) {
        if (e instanceof StatusError && e.code === 404) continue;
        if (!(e instanceof StatusError && e.code === 409)) console.error(`clusterrole aggregation controller: updating ${name}: ${String(e)}`);
        failed = true;
      }
    }
    return failed;
  }
}

/**
 * kube's ResourceQuota admission plugin (k8s.io/apiserver
 * pkg/admission/plugin/resourcequota), the last validating step of a write:
 * an object that would take a namespace's usage past a quota's hard limit
 * is refused (403), and an admitted one is charged to `status.used` at once,
 * before the object is stored, so that two quick creates cannot both take
 * the last unit. The check and the charge run without yielding, which is
 * what kube's per-namespace work queue and quota status updates achieve;
 * the resourcequota controller later recounts, crediting a charge whose
 * write failed.
 *
 * A quota counts only once its controller has written `status.hard`; a
 * limited resource without `status.used` refuses the write ("status unknown").
 */
import { deepCopy, forbidden, type GroupResource, type KubeObject } from '@operant/apimachinery';
import {
  addResources,
  exceededResources,
  maskResources,
  matchingQuotaResources,
  negativeResources,
  printResources,
  quotaConstraintProblem,
  quotaHandles,
  quotaMatches,
  quotaUsage,
  removeZeroResources,
  sameResources,
  subtractNonNegative,
  type ResourceList,
} from '@operant/apimachinery/quota';
import type { MvccStore } from '../storage/mvcc-store.js';
import type { Versioned } from '../storage/types.js';

/** One write as the quota sees it. */
export interface QuotaAttributes {
  operation: 'CREATE' | 'UPDATE';
  resource: GroupResource;
  namespace: string;
  /** The object as it would be stored. */
  object: KubeObject;
  /** The stored object an update replaces. */
  old?: KubeObject;
  dryRun: boolean;
}

type QuotaStatus = { hard?: ResourceList; used?: ResourceList };

const statusOf = (q: KubeObject): QuotaStatus => (q.status ?? {}) as QuotaStatus;

/** The quota admission over the server's store. */
export class ResourceQuotaAdmission {
  constructor(
    private readonly store: MvccStore,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Refuses the write with kube's Forbidden, or charges it to the matching
   * quotas; resolves once the charge is durable.
   */
  async admit(attrs: QuotaAttributes): Promise<void> {
    const rev = this.check(attrs);
    if (rev !== undefined) await this.store.durable(rev);
  }

  /** The synchronous check and charge; the revision of the last quota write, if any. */
  private check(attrs: QuotaAttributes): number | undefined {
    const { resource: gr, namespace, object } = attrs;
    if (!namespace || (gr.group === '' && gr.resource === 'events') || !quotaHandles(gr, attrs.operation)) return undefined;
    const quotas = this.store.list(`/core/resourcequotas/${namespace}/`).items;
    if (quotas.length === 0) return undefined;
    const refuse = (why: string): never => {
      throw forbidden(gr, object.metadata.name || object.metadata.generateName || 'Unknown', why);
    };

    const interesting: Versioned[] = [];
    for (const q of quotas) {
      if (!quotaMatches(q.value, gr, object)) continue;
      const { hard = {}, used = {} } = statusOf(q.value);
      const restricted = matchingQuotaResources(gr, Object.keys(hard));
      const name = q.value.metadata.name;
      const problem = quotaConstraintProblem(gr, restricted, object);
      if (problem) refuse(`failed quota: ${name}: ${problem}`);
      if (restricted.some((r) => !(r in used))) refuse(`status unknown for quota: ${name}, resources: ${[...restricted].sort().join(',')}`);
      interesting.push(q);
    }

    let delta: ResourceList = quotaUsage(gr, object, this.now());
    const negative = negativeResources(delta);
    if (negative.length) refuse(`quota usage is negative for resource(s): ${negative.sort().join(',')}`);
    if (attrs.operation === 'UPDATE' && attrs.old) delta = subtractNonNegative(delta, quotaUsage(gr, attrs.old, this.now()));
    delta = removeZeroResources(delta);
    if (Object.keys(delta).length === 0 || interesting.length === 0) return undefined;

    const charges: Array<{ quota: Versioned; used: ResourceList }> = [];
    for (const q of interesting) {
      const { hard = {}, used = {} } = statusOf(q.value);
      const requested = maskResources(delta, Object.keys(hard));
      const newUsed = addResources(used, requested);
      const exceeded = exceededResources(maskResources(newUsed, Object.keys(requested)), hard);
      if (exceeded.length) {
        refuse(
          `exceeded quota: ${q.value.metadata.name}, requested: ${printResources(maskResources(requested, exceeded))}, used: ${printResources(maskResources(used, exceeded))}, limited: ${printResources(maskResources(hard, exceeded))}`,
        );
      }
      if (!sameResources(newUsed, used)) charges.push({ quota: q, used: newUsed });
    }
    if (attrs.dryRun) return undefined;
    let last: number | undefined;
    for (const { quota, used } of charges) {
      const next = deepCopy(quota.value);
      next.status = { ...statusOf(next), used };
      last = this.store.update(quota.key, quota.rev, next).rev;
    }
    return last;
  }
}

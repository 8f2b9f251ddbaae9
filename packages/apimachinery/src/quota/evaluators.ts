/**
 * What an object counts against a ResourceQuota (kube's quota evaluators,
 * pkg/quota/v1/evaluator/core and k8s.io/apiserver's generic object counter),
 * shared by the API server's quota admission and the resourcequota
 * controller so that both count alike:
 *
 * - every namespaced resource: `count/<resource>[.<group>]`, plus the legacy
 *   names `configmaps`, `secrets`, `replicationcontrollers`, `resourcequotas`;
 * - pods: `pods`, `cpu`/`requests.cpu`, `memory`/`requests.memory`,
 *   `limits.*`, ephemeral storage, hugepages and `requests.<extended>`, from
 *   the pod's effective requests and limits (init containers and sidecars as
 *   kube sums them); a terminal pod, or one past its grace period, counts only
 *   in `count/pods`;
 * - services: `services`, `services.loadbalancers`, `services.nodeports`;
 * - persistentvolumeclaims: `persistentvolumeclaims`, `requests.storage`,
 *   and both per storage class (`<class>.storageclass.storage.k8s.io/...`).
 *
 * Scopes (Terminating, NotTerminating, BestEffort, NotBestEffort,
 * PriorityClass, CrossNamespacePodAffinity) apply to pods; a quota with
 * scopes covers nothing else.
 */
import type { KubeObject } from '../object.js';
import { isExtendedResourceName, isNativeResourceName } from './resource-names.js';
import { addResources, maxResources, type ResourceList } from './resource-list.js';

type Json = Record<string, unknown>;

/** A group and resource, `''` for the core group. */
export interface QuotaGroupResource {
  group: string;
  resource: string;
}

const asObj = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});
const asList = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);

/**
 * The object-count name of a resource: `count/pods`, `count/deployments.apps`.
 *
 * @example
 * objectCountName({ group: 'apps', resource: 'deployments' }); // 'count/deployments.apps'
 */
export function objectCountName(gr: QuotaGroupResource): string {
  return gr.group ? `count/${gr.resource}.${gr.group}` : `count/${gr.resource}`;
}

/** kube's legacyObjectCountAliases: core resources that are also counted by their bare name. */
const legacyAliases = new Set(['configmaps', 'secrets', 'replicationcontrollers', 'resourcequotas']);

const podResources = new Set([
  'count/pods',
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
]);
const serviceResources = new Set(['count/services', 'services', 'services.nodeports', 'services.loadbalancers']);
const claimResources = ['persistentvolumeclaims', 'requests.storage'];
const storageClassSuffix = '.storageclass.storage.k8s.io/';

const isCore = (gr: QuotaGroupResource, resource: string): boolean => gr.group === '' && gr.resource === resource;

/**
 * The resources of `names` (a quota's hard limits) that objects of `gr` count toward.
 *
 * @example
 * matchingQuotaResources({ group: '', resource: 'pods' }, ['pods', 'services', 'requests.cpu']); // ['pods', 'requests.cpu']
 */
export function matchingQuotaResources(gr: QuotaGroupResource, names: Iterable<string>): string[] {
  const out: string[] = [];
  for (const name of names) {
    if (name === objectCountName(gr)) out.push(name);
    else if (isCore(gr, 'pods')) {
      if (podResources.has(name) || name.startsWith('hugepages-') || name.startsWith('requests.hugepages-') || (name.startsWith('requests.') && !isNativeResourceName(name))) {
        out.push(name);
      }
    } else if (isCore(gr, 'services')) {
      if (serviceResources.has(name)) out.push(name);
    } else if (isCore(gr, 'persistentvolumeclaims')) {
      if (claimResources.includes(name) || claimResources.some((r) => name.endsWith(storageClassSuffix + r))) out.push(name);
    } else if (gr.group === '' && legacyAliases.has(gr.resource) && name === gr.resource) out.push(name);
  }
  return out;
}

/**
 * Whether an operation on `gr` is charged (kube's Handles): creates always;
 * updates of services (their type can change) and claims (they can grow).
 *
 * @example
 * quotaHandles({ group: '', resource: 'pods' }, 'UPDATE'); // false
 */
export function quotaHandles(gr: QuotaGroupResource, operation: 'CREATE' | 'UPDATE'): boolean {
  return operation === 'CREATE' || isCore(gr, 'services') || isCore(gr, 'persistentvolumeclaims');
}

/**
 * What one object counts: its usage of every resource it touches.
 * `now` (epoch ms) decides whether a pod being deleted is past its grace period.
 *
 * @example
 * quotaUsage({ group: '', resource: 'configmaps' }, configMap, Date.now()); // { 'count/configmaps': '1', configmaps: '1' }
 */
export function quotaUsage(gr: QuotaGroupResource, obj: KubeObject, now: number): Record<string, string> {
  const count: Record<string, string> = { [objectCountName(gr)]: '1' };
  if (isCore(gr, 'pods')) return podUsage(obj, now);
  if (isCore(gr, 'services')) return serviceUsage(obj);
  if (isCore(gr, 'persistentvolumeclaims')) return claimUsage(obj);
  if (gr.group === '' && legacyAliases.has(gr.resource)) count[gr.resource] = '1';
  return count;
}

function serviceUsage(svc: KubeObject): Record<string, string> {
  const spec = asObj(svc.spec);
  const ports = String(asList(spec.ports).length);
  const out: Record<string, string> = { 'count/services': '1', services: '1', 'services.loadbalancers': '0', 'services.nodeports': '0' };
  if (spec.type === 'NodePort') out['services.nodeports'] = ports;
  if (spec.type === 'LoadBalancer') {
    if (spec.allocateLoadBalancerNodePorts !== false) out['services.nodeports'] = ports;
    out['services.loadbalancers'] = '1';
  }
  return out;
}

/** kube's GetPersistentVolumeClaimClass: spec.storageClassName, else the beta annotation. */
function claimClass(pvc: KubeObject): string {
  const named = asObj(pvc.spec).storageClassName;
  if (typeof named === 'string') return named;
  return pvc.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'] ?? '';
}

function claimUsage(pvc: KubeObject): Record<string, string> {
  const out: Record<string, string> = { persistentvolumeclaims: '1', 'count/persistentvolumeclaims': '1' };
  const cls = claimClass(pvc);
  if (cls) out[`${cls}${storageClassSuffix}persistentvolumeclaims`] = '1';
  const requested = asObj(asObj(asObj(pvc.spec).resources).requests).storage as string | number | undefined;
  if (requested === undefined) return out;
  // The larger of what is asked and what an expansion already allocated (RecoverVolumeExpansionFailure).
  const allocated = asObj(asObj(pvc.status).allocatedResources).storage as string | number | undefined;
  const storage = maxResources({ storage: requested }, allocated === undefined ? {} : { storage: allocated }).storage!;
  out['requests.storage'] = storage;
  if (cls) out[`${cls}${storageClassSuffix}requests.storage`] = storage;
  return out;
}

/** kube's QuotaV1Pod: terminal pods, and pods past their deletion grace period, use no compute. */
function podUsesCompute(pod: KubeObject, now: number): boolean {
  const phase = asObj(pod.status).phase;
  if (phase === 'Failed' || phase === 'Succeeded') return false;
  const deleting = pod.metadata.deletionTimestamp ? Date.parse(pod.metadata.deletionTimestamp) : NaN;
  const grace = pod.metadata.deletionGracePeriodSeconds;
  return !(Number.isFinite(deleting) && typeof grace === 'number' && now > deleting + grace * 1000);
}

/** What one list of requests or limits counts (podComputeUsageHelper). */
function computeUsage(requests: ResourceList, limits: ResourceList): Record<string, string> {
  const out: Record<string, string> = { pods: '1' };
  for (const r of ['cpu', 'memory', 'ephemeral-storage'] as const) {
    if (requests[r] !== undefined) {
      out[r] = String(requests[r]);
      out[`requests.${r}`] = String(requests[r]);
    }
    if (limits[r] !== undefined) out[`limits.${r}`] = String(limits[r]);
  }
  for (const [name, value] of Object.entries(requests)) {
    if (name.startsWith('hugepages-')) {
      out[name] = String(value);
      out[`requests.${name}`] = String(value);
    }
    if (isExtendedResourceName(name)) out[`requests.${name}`] = String(value);
  }
  return out;
}

function podUsage(pod: KubeObject, now: number): Record<string, string> {
  const count = { 'count/pods': '1' };
  if (!podUsesCompute(pod, now)) return count;
  const spec = asObj(pod.spec);
  const totals = (field: 'requests' | 'limits'): ResourceList => effectiveResources(spec, field);
  return { ...computeUsage(totals('requests'), totals('limits')), ...count };
}

/**
 * kube's PodRequests / PodLimits: the app containers' sum, with each
 * sidecar (an init container that restarts Always) added to it, and at least
 * what any init container needs while it runs beside the sidecars before it;
 * plus the pod overhead.
 */
function effectiveResources(spec: Json, field: 'requests' | 'limits'): ResourceList {
  const of = (c: Json): ResourceList => asObj(asObj(c.resources)[field]) as ResourceList;
  let sum: ResourceList = {};
  for (const c of asList(spec.containers)) sum = addResources(sum, of(c));
  let sidecars: ResourceList = {};
  let initPeak: ResourceList = {};
  for (const c of asList(spec.initContainers)) {
    if (c.restartPolicy === 'Always') {
      sum = addResources(sum, of(c));
      sidecars = addResources(sidecars, of(c));
      initPeak = maxResources(initPeak, sidecars);
    } else {
      initPeak = maxResources(initPeak, addResources(of(c), sidecars));
    }
  }
  const total = maxResources(sum, initPeak);
  return spec.overhead ? addResources(total, asObj(spec.overhead) as ResourceList) : total;
}

/** The scope requirements of a quota: each `spec.scopes` entry as Exists, then `spec.scopeSelector`'s expressions. */
interface ScopeRequirement {
  scopeName: string;
  operator: string;
  values?: string[];
}

function scopesOf(quota: KubeObject): ScopeRequirement[] {
  const spec = asObj(quota.spec);
  const scopes = (Array.isArray(spec.scopes) ? (spec.scopes as string[]) : []).map((scopeName) => ({ scopeName, operator: 'Exists' }));
  return [...scopes, ...(asList(asObj(spec.scopeSelector).matchExpressions) as unknown as ScopeRequirement[])];
}

function isBestEffort(pod: KubeObject): boolean {
  const qos = asObj(pod.status).qosClass;
  if (typeof qos === 'string') return qos === 'BestEffort';
  const spec = asObj(pod.spec);
  return [...asList(spec.containers), ...asList(spec.initContainers)].every((c) => {
    const r = asObj(c.resources);
    return ['requests', 'limits'].every((f) => !['cpu', 'memory'].some((k) => asObj(r[f])[k] !== undefined));
  });
}

function usesCrossNamespaceAffinity(pod: KubeObject): boolean {
  const affinity = asObj(asObj(pod.spec).affinity);
  return ['podAffinity', 'podAntiAffinity'].some((kind) => {
    const a = asObj(affinity[kind]);
    const terms = [...asList(a.requiredDuringSchedulingIgnoredDuringExecution), ...asList(a.preferredDuringSchedulingIgnoredDuringExecution).map((w) => asObj(w.podAffinityTerm))];
    return terms.some((t) => asList(t.namespaces).length > 0 || t.namespaceSelector !== undefined);
  });
}

/** kube's podMatchesScopeFunc. */
function podMatchesScope(scope: ScopeRequirement, pod: KubeObject): boolean {
  const spec = asObj(pod.spec);
  switch (scope.scopeName) {
    case 'Terminating':
    case 'NotTerminating': {
      const deadline = spec.activeDeadlineSeconds;
      const terminating = typeof deadline === 'number' && deadline >= 0;
      return scope.scopeName === 'Terminating' ? terminating : !terminating;
    }
    case 'BestEffort':
      return isBestEffort(pod);
    case 'NotBestEffort':
      return !isBestEffort(pod);
    case 'PriorityClass': {
      const name = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
      const values = scope.values ?? [];
      if (scope.operator === 'Exists') return name !== '';
      if (scope.operator === 'DoesNotExist') return false; // the label is always there, possibly empty
      if (scope.operator === 'In') return values.includes(name);
      if (scope.operator === 'NotIn') return !values.includes(name);
      return false;
    }
    case 'CrossNamespacePodAffinity':
      return usesCrossNamespaceAffinity(pod);
  }
  return false;
}

/**
 * Whether a quota's scopes let it count `obj` (pods only: a quota with
 * scopes counts nothing else).
 *
 * @example
 * quotaScopesMatch(bestEffortQuota, { group: '', resource: 'pods' }, pod);
 */
export function quotaScopesMatch(quota: KubeObject, gr: QuotaGroupResource, obj: KubeObject): boolean {
  const scopes = scopesOf(quota);
  if (scopes.length === 0) return true;
  return isCore(gr, 'pods') && scopes.every((s) => podMatchesScope(s, obj));
}

/**
 * kube's generic Matches: the quota limits (in status.hard) a resource that
 * `obj` counts toward, and its scopes match `obj`.
 *
 * @example
 * quotaMatches(quota, { group: '', resource: 'pods' }, pod);
 */
export function quotaMatches(quota: KubeObject, gr: QuotaGroupResource, obj: KubeObject): boolean {
  const hard = Object.keys(asObj(asObj(quota.status).hard));
  return matchingQuotaResources(gr, hard).length > 0 && quotaScopesMatch(quota, gr, obj);
}

const computeConstrained = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);

/**
 * kube's pod Constraints: when a quota limits cpu or memory, every container
 * must ask for it. Returns the problem (`must specify limits.cpu,limits.memory`) or undefined.
 *
 * @example
 * quotaConstraintProblem({ group: '', resource: 'pods' }, ['limits.cpu'], podWithoutLimits); // 'must specify limits.cpu'
 */
export function quotaConstraintProblem(gr: QuotaGroupResource, required: readonly string[], obj: KubeObject): string | undefined {
  if (!isCore(gr, 'pods')) return undefined;
  const wanted = required.filter((r) => computeConstrained.has(r));
  if (wanted.length === 0) return undefined;
  const spec = asObj(obj.spec);
  const missing = new Set<string>();
  for (const c of [...asList(spec.containers), ...asList(spec.initContainers)]) {
    const r = asObj(c.resources);
    const has = computeUsage(asObj(r.requests) as ResourceList, asObj(r.limits) as ResourceList);
    for (const name of wanted) if (!(name in has)) missing.add(name);
  }
  return missing.size ? `must specify ${[...missing].sort().join(',')}` : undefined;
}

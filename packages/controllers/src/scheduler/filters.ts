/**
 * The scheduler's filters (kube-scheduler's Filter plugins, in its default
 * order): NodeUnschedulable, TaintToleration, NodeAffinity, NodePorts and
 * NodeResourcesFit. A node passes when every filter does; the first filter
 * that fails gives the node's reasons, worded as kube-scheduler words them,
 * and says whether preemption could help (it cannot when the failure is
 * "unresolvable": a taint, a selector, a cordon).
 */
import type * as corev1 from 'kubernetes-types/core/v1.js';
import type { NodeObject, PodObject } from '../objects.js';
import { allocatable, footprintOf, usageOf, type NodeUsage, type PodFootprint } from './resources.js';

/** Why a node was filtered out. */
export interface FilterFailure {
  reasons: string[];
  /** kube's UnschedulableAndUnresolvable: preemption would not help. */
  unresolvable: boolean;
}

/** A filter; `footprint` is the pod's ({@link footprintOf}), looked up once per decision rather than once per node and filter. */
type Filter = (pod: PodObject, node: NodeObject, usage: NodeUsage, footprint: PodFootprint) => FilterFailure | undefined;

/** kube's Toleration.ToleratesTaint. */
export function tolerates(t: corev1.Toleration, taint: corev1.Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  if (t.operator === 'Exists') return true;
  if (t.operator === undefined || t.operator === '' || t.operator === 'Equal') return (t.value ?? '') === (taint.value ?? '');
  return false;
}

const nodeUnschedulable: Filter = (pod, node) => {
  if (!node.spec?.unschedulable) return undefined;
  const cordon = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };
  if ((pod.spec?.tolerations ?? []).some((t) => tolerates(t, cordon))) return undefined;
  return { reasons: ['node(s) were unschedulable'], unresolvable: true };
};

/**
 * The node's taints that keep pods off (NoSchedule and NoExecute ones; a node
 * not Ready has the node lifecycle controller's, as in kube, where the
 * scheduler does not look at readiness), worked out once per node object: the
 * cache replaces a node's object when it changes, and every pod placed
 * filters every node.
 */
const schedulingTaints = new WeakMap<NodeObject, readonly corev1.Taint[]>();

function schedulingTaintsOf(node: NodeObject): readonly corev1.Taint[] {
  let taints = schedulingTaints.get(node);
  if (!taints) schedulingTaints.set(node, (taints = (node.spec?.taints ?? []).filter((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute')));
  return taints;
}

/** The first of the node's NoSchedule and NoExecute taints the pod does not tolerate (kube's FindMatchingUntoleratedTaint). */
export function untoleratedTaint(pod: PodObject, node: NodeObject): corev1.Taint | undefined {
  const taints = schedulingTaintsOf(node);
  if (taints.length === 0) return undefined;
  const tolerations = pod.spec?.tolerations ?? [];
  return taints.find((taint) => !tolerations.some((t) => tolerates(t, taint)));
}

const taintToleration: Filter = (pod, node) => {
  const untolerated = untoleratedTaint(pod, node);
  if (!untolerated) return undefined;
  return { reasons: [`node(s) had untolerated taint {${untolerated.key}: ${untolerated.value ?? ''}}`], unresolvable: true };
};

/** kube's NodeSelectorRequirement matching against labels (or the node's fields). */
function requirementMatches(r: corev1.NodeSelectorRequirement, values: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(values, r.key);
  const v = values[r.key];
  switch (r.operator) {
    case 'In':
      return has && (r.values ?? []).includes(v!);
    case 'NotIn':
      return !has || !(r.values ?? []).includes(v!);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
    case 'Lt': {
      if (!has || (r.values ?? []).length !== 1 || !/^-?\d+$/.test(v!) || !/^-?\d+$/.test(r.values![0]!)) return false;
      return r.operator === 'Gt' ? Number(v) > Number(r.values![0]) : Number(v) < Number(r.values![0]);
    }
    default:
      return false;
  }
}

/** kube's nodeaffinity: a term matches when all its expressions and fields do; an empty term matches nothing. */
export function nodeSelectorTermMatches(term: corev1.NodeSelectorTerm, node: NodeObject): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  const labels = node.metadata.labels ?? {};
  return exprs.every((r) => requirementMatches(r, labels)) && fields.every((r) => requirementMatches(r, { 'metadata.name': node.metadata.name ?? '' }));
}

const nodeAffinity: Filter = (pod, node) => {
  const selector = pod.spec?.nodeSelector;
  const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!selector && !required) return undefined;
  const labels = node.metadata.labels ?? {};
  let selectorOk = true;
  for (const k in selector) if (Object.hasOwn(selector, k) && labels[k] !== selector[k]) selectorOk = false;
  const affinityOk = !required || (required.nodeSelectorTerms ?? []).some((t) => nodeSelectorTermMatches(t, node));
  if (selectorOk && affinityOk) return undefined;
  return { reasons: ["node(s) didn't match Pod's node affinity/selector"], unresolvable: true };
};

const unused: NodeUsage = { requested: new Map(), nonZero: new Map(), podCount: 0, hostPorts: [], pods: [], podsWithRequiredAntiAffinity: [], podsWithAffinity: [] };
const unusedFootprint: PodFootprint = { requested: new Map(), nonZero: new Map(), hostPorts: [] };

/** Whether the node matches the pod's nodeSelector and required node affinity (kube's RequiredNodeAffinity.Match). */
export function nodeAffinityMatches(pod: PodObject, node: NodeObject): boolean {
  // The filter reads neither usage nor footprint.
  return nodeAffinity(pod, node, unused, unusedFootprint) === undefined;
}

const nodePorts: Filter = (_pod, _node, usage, footprint) => {
  const wanted = footprint.hostPorts;
  if (wanted.length === 0) return undefined;
  const clash = wanted.some((w) => usage.hostPorts.some((u) => u.port === w.port && u.protocol === w.protocol && (u.ip === w.ip || u.ip === '0.0.0.0' || w.ip === '0.0.0.0')));
  return clash ? { reasons: ["node(s) didn't have free ports for the requested pod ports"], unresolvable: false } : undefined;
};

/** The order NodeResourcesFit reports a pod's resources in: cpu, memory, ephemeral storage, then the others by name; once per pod object. */
const fitOrders = new WeakMap<PodFootprint, readonly string[]>();

function fitOrderOf(footprint: PodFootprint): readonly string[] {
  let order = fitOrders.get(footprint);
  if (!order) {
    const others = [...footprint.requested.keys()].filter((k) => !['cpu', 'memory', 'ephemeral-storage', 'pods'].includes(k)).sort();
    fitOrders.set(footprint, (order = ['cpu', 'memory', 'ephemeral-storage', ...others]));
  }
  return order;
}

/** kube's NodeResourcesFit: the pod count first, then cpu, memory, ephemeral storage, then other resources. */
const resourcesFit: Filter = (_pod, node, usage, footprint) => {
  const alloc = allocatable(node);
  let reasons: string[] | undefined;
  if (usage.podCount + 1 > (alloc.get('pods') ?? 0) / 1000) reasons = ['Too many pods'];
  const wants = footprint.requested;
  if (wants.size === 0) return reasons ? { reasons, unresolvable: false } : undefined;
  for (const name of fitOrderOf(footprint)) {
    const want = wants.get(name) ?? 0;
    if (want > 0 && want > (alloc.get(name) ?? 0) - (usage.requested.get(name) ?? 0)) (reasons ??= []).push(`Insufficient ${name}`);
  }
  return reasons ? { reasons, unresolvable: false } : undefined;
};

const filters: readonly Filter[] = [nodeUnschedulable, taintToleration, nodeAffinity, nodePorts, resourcesFit];

/** Runs the filters in order: undefined when the pod fits the node, else the first failure. `footprint`: the pod's, when the caller has it. */
export function filterNode(pod: PodObject, node: NodeObject, usage: NodeUsage, footprint: PodFootprint = footprintOf(pod)): FilterFailure | undefined {
  for (const filter of filters) {
    const failure = filter(pod, node, usage, footprint);
    if (failure) return failure;
  }
  return undefined;
}

/**
 * Whether a DaemonSet's pod should run on the node (kube's
 * NodeShouldRunDaemonPod): its node selector and required node affinity
 * match, and it tolerates every NoSchedule and NoExecute taint the node has
 * (its own taints: a DaemonSet's pods tolerate not-ready and unreachable).
 */
export function daemonPodFits(pod: PodObject, node: NodeObject): boolean {
  if (nodeAffinity(pod, node, usageOf([]), footprintOf(pod))) return false;
  return untoleratedTaint(pod, node) === undefined;
}

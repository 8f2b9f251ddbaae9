/**
 * kube-scheduler's InterPodAffinity filter: the incoming pod's required pod
 * affinity and anti-affinity terms, and the required anti-affinity terms of
 * the pods already placed, against the incoming pod.
 *
 * As in kube, the counting is done once per decision, over every node: for
 * each topology domain (a topology key and one of its values), how many
 * placed pods match all of the pod's affinity terms, how many match each of
 * its anti-affinity terms, and how many placed pods have an anti-affinity
 * term that the incoming pod matches. Each node is then judged by its own
 * domains. A pod with no such terms, in a cluster where no placed pod has
 * required anti-affinity, costs nothing (kube's PreFilter Skip).
 */
import { labelSelectorFromObject, type LabelSelector, type LabelSelectorObject } from '@operant/apimachinery';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import type { NodeObject, PodObject } from '../objects.js';
import type { FilterFailure } from './filters.js';
import { addCount, isEmpty, topologyPair, type ClusterPods, type NodeCheck } from './pod-checks.js';
import type { NodeUsage } from './resources.js';

/** kube's failure texts; only the affinity one is unresolvable (preemption could remove a pod that repels). */
export const affinityMismatch: FilterFailure = { reasons: ["node(s) didn't match pod affinity rules"], unresolvable: true };
export const antiAffinityMismatch: FilterFailure = { reasons: ["node(s) didn't match pod anti-affinity rules"], unresolvable: false };
export const existingAntiAffinityMismatch: FilterFailure = { reasons: ["node(s) didn't satisfy existing pods anti-affinity rules"], unresolvable: false };

/** A PodAffinityTerm made ready to match (kube's framework.AffinityTerm). */
export interface AffinityTerm {
  namespaces: Set<string>;
  namespaceSelector: LabelSelector;
  selector: LabelSelector;
  topologyKey: string;
}

/**
 * A selector as kube's LabelSelectorAsSelector makes it (absent: nothing).
 * One the API server should have refused (a bad operator) selects nothing
 * here, where kube fails the pod's whole cycle.
 */
const nothing = labelSelectorFromObject(undefined);

function selectorOf(sel: LabelSelectorObject | undefined): LabelSelector {
  try {
    return labelSelectorFromObject(sel);
  } catch {
    return nothing;
  }
}

/** kube's newAffinityTerm: no namespaces and no namespaceSelector mean the pod's own namespace. */
export function affinityTerm(pod: PodObject, term: corev1.PodAffinityTerm): AffinityTerm {
  const namespaces = new Set(term.namespaces ?? []);
  if (namespaces.size === 0 && term.namespaceSelector === undefined) namespaces.add(pod.metadata.namespace ?? '');
  return { namespaces, namespaceSelector: selectorOf(term.namespaceSelector), selector: selectorOf(term.labelSelector), topologyKey: term.topologyKey };
}

/** kube's AffinityTerm.Matches: the pod is in one of the term's namespaces (or its namespace's labels match), and its labels match. */
export function termMatches(term: AffinityTerm, pod: PodObject, namespaceLabels: Readonly<Record<string, string>> | undefined): boolean {
  if (!term.namespaces.has(pod.metadata.namespace ?? '') && !term.namespaceSelector.matches(namespaceLabels)) return false;
  return term.selector.matches(pod.metadata.labels);
}

/** A pod affinity term with its weight (a preferred term's). */
export interface WeightedTerm {
  term: AffinityTerm;
  weight: number;
}

/** A placed pod's terms, as the filter (required anti-affinity) and the score (the rest) read them against an incoming pod. */
export interface PlacedTerms {
  requiredAnti: readonly AffinityTerm[];
  required: readonly AffinityTerm[];
  preferred: readonly WeightedTerm[];
  preferredAnti: readonly WeightedTerm[];
}

const weighted = (pod: PodObject, terms: readonly corev1.WeightedPodAffinityTerm[] | undefined): WeightedTerm[] =>
  (terms ?? []).map((t) => ({ term: affinityTerm(pod, t.podAffinityTerm), weight: t.weight }));

/** Each placed pod's terms, made once per pod object (the cache replaces an object when it changes). */
const placedTermsOf = new WeakMap<PodObject, PlacedTerms>();

export function placedTerms(pod: PodObject): PlacedTerms {
  let terms = placedTermsOf.get(pod);
  if (!terms) {
    const a = pod.spec?.affinity;
    terms = {
      requiredAnti: (a?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => affinityTerm(pod, t)),
      required: (a?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => affinityTerm(pod, t)),
      preferred: weighted(pod, a?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution),
      preferredAnti: weighted(pod, a?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution),
    };
    placedTermsOf.set(pod, terms);
  }
  return terms;
}

/**
 * The incoming pod's terms, with a namespaceSelector turned into the names
 * of the namespaces it selects now (kube's mergeAffinityTermNamespacesIfNotEmpty;
 * an empty selector `{}` stays: it selects every namespace).
 */
export function incomingTerms(pod: PodObject, terms: readonly corev1.PodAffinityTerm[] | undefined, cluster: ClusterPods): AffinityTerm[] {
  return (terms ?? []).map((t) => {
    const term = affinityTerm(pod, t);
    if (!term.namespaceSelector.empty()) {
      for (const ns of cluster.namespaces()) if (term.namespaceSelector.matches(ns.labels)) term.namespaces.add(ns.name);
      term.namespaceSelector = nothing;
    }
    return term;
  });
}

/** kube's podMatchesAllAffinityTerms (namespace labels play no part: the incoming pod's selectors were resolved). */
function matchesAll(terms: readonly AffinityTerm[], pod: PodObject): boolean {
  return terms.length > 0 && terms.every((t) => termMatches(t, pod, undefined));
}

/** Counts `by` for the node's domain of `topologyKey`, when the node has that label. */
function countOn(counts: Map<string, number>, node: NodeObject, topologyKey: string): void {
  const labels = node.metadata.labels ?? {};
  if (Object.hasOwn(labels, topologyKey)) addCount(counts, topologyPair(topologyKey, labels[topologyKey]!), 1);
}

/**
 * Prepares the InterPodAffinity filter for one decision about `pod` (kube's
 * PreFilter); undefined when it has nothing to check.
 */
export function interPodAffinityCheck(
  pod: PodObject,
  nodes: readonly NodeObject[],
  usageOf: (node: string) => NodeUsage,
  cluster: ClusterPods,
): NodeCheck | undefined {
  const required = pod.spec?.affinity;
  const hasOwnTerms =
    (required?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.length ?? 0) > 0 ||
    (required?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.length ?? 0) > 0;
  const antiAffinityNodes = cluster.nodesWithRequiredAntiAffinity();
  if (!hasOwnTerms && isEmpty(antiAffinityNodes)) return undefined;

  const byName = new Map(nodes.map((n) => [n.metadata.name ?? '', n]));
  // Placed pods whose anti-affinity the incoming pod would break, by domain.
  const existingAnti = new Map<string, number>();
  const nsLabels = cluster.namespaceLabels(pod.metadata.namespace ?? '');
  for (const name of antiAffinityNodes) {
    const node = byName.get(name);
    if (!node) continue;
    for (const placed of usageOf(name).podsWithRequiredAntiAffinity) {
      for (const term of placedTerms(placed).requiredAnti) if (termMatches(term, pod, nsLabels)) countOn(existingAnti, node, term.topologyKey);
    }
  }

  const affinityTerms = incomingTerms(pod, required?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution, cluster);
  const antiTerms = incomingTerms(pod, required?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution, cluster);
  if (existingAnti.size === 0 && affinityTerms.length === 0 && antiTerms.length === 0) return undefined;
  // Placed pods that match the incoming pod's terms, by domain.
  const affinityCounts = new Map<string, number>();
  const antiCounts = new Map<string, number>();
  if (affinityTerms.length > 0 || antiTerms.length > 0) {
    for (const node of nodes) {
      for (const placed of usageOf(node.metadata.name ?? '').pods) {
        if (matchesAll(affinityTerms, placed)) for (const t of affinityTerms) countOn(affinityCounts, node, t.topologyKey);
        for (const t of antiTerms) if (termMatches(t, placed, undefined)) countOn(antiCounts, node, t.topologyKey);
      }
    }
  }
  // The first of a group of pods with affinity to each other goes where no pod of the group is yet.
  const mayGoFirst = affinityCounts.size === 0 && matchesAll(affinityTerms, pod);

  return (node) => {
    const labels = node.metadata.labels ?? {};
    // kube's satisfyPodAffinity: every topology key on the node, and a matching pod in each of its domains.
    let podsExist = true;
    for (const t of affinityTerms) {
      if (!Object.hasOwn(labels, t.topologyKey)) return affinityMismatch;
      if ((affinityCounts.get(topologyPair(t.topologyKey, labels[t.topologyKey]!)) ?? 0) <= 0) podsExist = false;
    }
    if (!podsExist && !mayGoFirst) return affinityMismatch;
    if (antiCounts.size > 0) {
      for (const t of antiTerms) {
        if (Object.hasOwn(labels, t.topologyKey) && (antiCounts.get(topologyPair(t.topologyKey, labels[t.topologyKey]!)) ?? 0) > 0) return antiAffinityMismatch;
      }
    }
    if (existingAnti.size > 0) {
      for (const key in labels) if (Object.hasOwn(labels, key) && (existingAnti.get(topologyPair(key, labels[key]!)) ?? 0) > 0) return existingAntiAffinityMismatch;
    }
    return undefined;
  };
}

/**
 * What each node's pods take, kept up to date as pods come and go (kube's
 * scheduler cache and its NodeInfo): the pod informer's adds, updates and
 * deletes, and the pods this scheduler has placed but the cache does not
 * show bound yet. Placing a pod then reads its candidate nodes' sums instead
 * of summing every pod again (which made each placement cost as much as the
 * cluster is big).
 *
 * A pod counts on its node while it is bound and not finished (Succeeded or
 * Failed), a pod being deleted included, as kube counts it. A placed pod is
 * "assumed" from the decision on, so that the next pods, placed before the
 * watch catches up, see the room it took; it stops being assumed when the
 * cache shows it bound (the cache's object counts from then on), when it is
 * deleted, when its binding fails, or (kube's assumed-pod expiry) a while
 * after its binding was sent without the cache ever showing it bound.
 */
import type { LabelSelector } from '@operant/apimachinery';
import type { PodObject } from '../objects.js';
import { hasPodAffinity, hasRequiredAntiAffinity, matchesSpreadSelector } from './pod-checks.js';
import { addSigned, footprintOf, type HostPort, type NodeUsage, type PodFootprint, type Resources } from './resources.js';

/** How long a placed pod counts on its node without the cache showing it bound (kube's binding TTL is 30 s). */
const assumedTtlMs = 30_000;

const finished = (p: PodObject): boolean => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

/** One node's running sums, and the pods they are made of (by uid). */
class NodeTally implements NodeUsage {
  readonly requested: Resources = new Map();
  readonly nonZero: Resources = new Map();
  private readonly footprints = new Map<string, PodFootprint>();
  private readonly objects = new Map<string, PodObject>();
  /** The pods with required anti-affinity, by uid (kube's NodeInfo.PodsWithRequiredAntiAffinity). */
  private readonly repelling = new Map<string, PodObject>();
  /** The pods with pod affinity or anti-affinity terms of any kind, by uid (kube's NodeInfo.PodsWithAffinity). */
  private readonly affine = new Map<string, PodObject>();
  private ports: HostPort[] | undefined = [];

  get podCount(): number {
    return this.footprints.size;
  }

  get pods(): Iterable<PodObject> {
    return this.objects.values();
  }

  get podsWithRequiredAntiAffinity(): Iterable<PodObject> {
    return this.repelling.values();
  }

  get repellingCount(): number {
    return this.repelling.size;
  }

  get podsWithAffinity(): Iterable<PodObject> {
    return this.affine.values();
  }

  get affineCount(): number {
    return this.affine.size;
  }

  /** The pod counted under `uid`, if any. */
  pod(uid: string): PodObject | undefined {
    return this.objects.get(uid);
  }

  /** Host ports are rare: the list is made again, when next asked, after a pod with some came or went. */
  get hostPorts(): readonly HostPort[] {
    return (this.ports ??= [...this.footprints.values()].flatMap((f) => f.hostPorts));
  }

  add(uid: string, pod: PodObject, f: PodFootprint): void {
    this.footprints.set(uid, f);
    this.objects.set(uid, pod);
    if (hasRequiredAntiAffinity(pod)) this.repelling.set(uid, pod);
    if (hasPodAffinity(pod)) this.affine.set(uid, pod);
    addSigned(this.requested, f.requested, 1);
    addSigned(this.nonZero, f.nonZero, 1);
    if (f.hostPorts.length) this.ports = undefined;
  }

  remove(uid: string): void {
    const f = this.footprints.get(uid);
    if (!f) return;
    this.footprints.delete(uid);
    this.objects.delete(uid);
    this.repelling.delete(uid);
    this.affine.delete(uid);
    addSigned(this.requested, f.requested, -1);
    addSigned(this.nonZero, f.nonZero, -1);
    if (f.hostPorts.length) this.ports = undefined;
  }
}

const noUsage: NodeUsage = { requested: new Map(), nonZero: new Map(), podCount: 0, hostPorts: [], pods: [], podsWithRequiredAntiAffinity: [], podsWithAffinity: [] };

/**
 * The pods of one namespace that one selector matches, counted per node and
 * kept up to date as pods are counted and uncounted: topology spread scoring
 * asks for these counts on every node at every decision (kube's
 * countPodsMatchSelector over each node's pods), and a Deployment's pods all
 * ask with the same selector.
 */
class SelectorCount {
  readonly perNode = new Map<string, number>();
  /** The decision that last asked, for dropping the least recently used. */
  lastUsed = 0;

  constructor(
    readonly namespace: string,
    readonly selector: LabelSelector,
  ) {}

  matches(pod: PodObject): boolean {
    return matchesSpreadSelector(pod, this.selector, this.namespace);
  }
}

/** Each selector's text, made once (a ReplicaSet's pods share one selector object). */
const selectorTexts = new WeakMap<LabelSelector, string>();

/** How many selectors are kept counted: each costs a match per pod counted or uncounted. */
const maxSelectorCounts = 32;

export class SchedulerCache {
  private readonly nodes = new Map<string, NodeTally>();
  /** Where each counted pod counts, by uid. */
  private readonly countedOn = new Map<string, string>();
  /** The nodes where a counted pod has required anti-affinity: the pod-to-pod filters look only there for terms that repel. */
  private readonly repellingNodes = new Set<string>();
  /** Placed pods the cache does not show bound yet, by uid: when they were placed. */
  private readonly assumed = new Map<string, number>();
  /** The nodes where a counted pod has pod affinity or anti-affinity terms (the score looks only there when the pod has none). */
  private readonly affineNodes = new Set<string>();
  /** Pods matching a selector per node, by namespace and selector text. */
  private readonly selectorCounts = new Map<string, SelectorCount>();
  private asks = 0;

  /** The nodes where a counted pod has pod affinity or anti-affinity terms of any kind (live). */
  nodesWithPodAffinity(): Iterable<string> {
    return this.affineNodes;
  }

  /**
   * The number of pods on a node in `namespace` that `selector` matches, not
   * being deleted (kube's countPodsMatchSelector), as a function of the node:
   * counted once over every pod when first asked, then kept up to date.
   */
  podCounter(namespace: string, selector: LabelSelector): (node: string) => number {
    if (selector.empty()) return () => 0;
    let text = selectorTexts.get(selector);
    if (text === undefined) selectorTexts.set(selector, (text = selector.toString()));
    const key = `${namespace}\u0000${text}`;
    let entry = this.selectorCounts.get(key);
    if (!entry) {
      if (this.selectorCounts.size >= maxSelectorCounts) this.dropLeastRecentSelector();
      entry = new SelectorCount(namespace, selector);
      for (const [node, tally] of this.nodes) {
        let n = 0;
        for (const pod of tally.pods) if (entry.matches(pod)) n++;
        if (n > 0) entry.perNode.set(node, n);
      }
      this.selectorCounts.set(key, entry);
    }
    entry.lastUsed = ++this.asks;
    const perNode = entry.perNode;
    return (node) => perNode.get(node) ?? 0;
  }

  private dropLeastRecentSelector(): void {
    let oldest: [string, SelectorCount] | undefined;
    for (const e of this.selectorCounts) if (!oldest || e[1].lastUsed < oldest[1].lastUsed) oldest = e;
    if (oldest) this.selectorCounts.delete(oldest[0]);
  }

  /** The nodes where a counted pod has required pod anti-affinity terms (live). */
  nodesWithRequiredAntiAffinity(): Iterable<string> {
    return this.repellingNodes;
  }

  /** The usage of a node (live: it changes as pods come and go). */
  usage(node: string): NodeUsage {
    return this.nodes.get(node) ?? noUsage;
  }

  /** The pod informer's add or update: the pod counts as the cache now shows it. */
  observed(pod: PodObject, old?: PodObject): void {
    const uid = pod.metadata.uid;
    if (uid === undefined) return;
    if (old?.metadata.uid !== undefined && old.metadata.uid !== uid) this.removed(old);
    if (pod.spec?.nodeName) {
      // Bound: what the cache shows replaces what was assumed (on whatever node the binding took it to).
      this.assumed.delete(uid);
      if (finished(pod)) this.uncount(uid);
      else this.count(uid, pod.spec.nodeName, pod);
    } else if (!this.assumed.has(uid)) {
      this.uncount(uid);
    }
  }

  /** The pod informer's delete (`pod` may be the last state known before a relist noticed it gone). */
  removed(pod: PodObject): void {
    const uid = pod.metadata.uid;
    if (uid === undefined) return;
    this.assumed.delete(uid);
    this.uncount(uid);
  }

  /** Counts `pod` on `node` from now on, until the cache shows it bound. */
  assume(pod: PodObject, node: string, now: number): void {
    const uid = pod.metadata.uid!;
    this.assumed.set(uid, now);
    this.count(uid, node, pod);
  }

  /** Stops counting an assumed pod (its binding failed); nothing when the cache already shows it bound. */
  forget(uid: string | undefined): void {
    if (uid === undefined || !this.assumed.delete(uid)) return;
    this.uncount(uid);
  }

  /** Whether a pod is placed and its binding not yet seen. */
  isAssumed(uid: string | undefined): boolean {
    return uid !== undefined && this.assumed.has(uid);
  }

  /** Forgets the pods assumed longer ago than the TTL: bound or deleted without the cache ever showing it. */
  expire(now: number): void {
    for (const [uid, at] of this.assumed) if (now - at > assumedTtlMs) this.forget(uid);
  }

  private count(uid: string, node: string, pod: PodObject): void {
    this.uncount(uid);
    let tally = this.nodes.get(node);
    if (!tally) this.nodes.set(node, (tally = new NodeTally()));
    tally.add(uid, pod, footprintOf(pod));
    if (tally.repellingCount > 0) this.repellingNodes.add(node);
    if (tally.affineCount > 0) this.affineNodes.add(node);
    for (const entry of this.selectorCounts.values()) if (entry.matches(pod)) entry.perNode.set(node, (entry.perNode.get(node) ?? 0) + 1);
    this.countedOn.set(uid, node);
  }

  private uncount(uid: string): void {
    const node = this.countedOn.get(uid);
    if (node === undefined) return;
    this.countedOn.delete(uid);
    const tally = this.nodes.get(node)!;
    const pod = tally.pod(uid);
    if (pod) {
      for (const entry of this.selectorCounts.values()) {
        if (!entry.matches(pod)) continue;
        const n = (entry.perNode.get(node) ?? 0) - 1;
        if (n > 0) entry.perNode.set(node, n);
        else entry.perNode.delete(node);
      }
    }
    tally.remove(uid);
    if (tally.repellingCount === 0) this.repellingNodes.delete(node);
    if (tally.affineCount === 0) this.affineNodes.delete(node);
    if (tally.podCount === 0) this.nodes.delete(node);
  }
}

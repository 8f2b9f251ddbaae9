/**
 * kube's rate-limited NoExecute tainting (node_lifecycle_controller.go:
 * processTaintBaseEviction, doNoExecuteTaintingPass, handleDisruption): a
 * node that is not Ready waits in its zone's queue for its
 * `node.kubernetes.io/not-ready` or `unreachable` NoExecute taint, which the
 * zone's rate lets through one node at a time; every node monitor period the
 * zones' states are worked out again and set their rates. When every zone is
 * fully disrupted (no node Ready anywhere) kube assumes the trouble is its
 * own, not the nodes': it removes the NoExecute taints there are and adds
 * none until a node is Ready again.
 */
import { ignoreNotFound, isConflict, Node, type Clock, type Manager, type Timer } from '@operant/runtime';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import { rfc3339 } from '../clock.js';
import type { NodeObject } from '../objects.js';
import { computeZoneState, excludeDisruptionLabel, zoneKey, zoneQps, ZoneTainter, type ZoneState } from './zones.js';

export const notReadyTaintKey = 'node.kubernetes.io/not-ready';
export const unreachableTaintKey = 'node.kubernetes.io/unreachable';

/** The node's Ready status; undefined when it has no Ready condition. */
export function readyStatusOf(node: NodeObject): string | undefined {
  return node.status?.conditions?.find((c) => c.type === 'Ready')?.status;
}

/** The NoExecute taint a Ready status calls for, and the one it replaces (kube keeps them mutually exclusive). */
export function noExecuteKeys(ready: string | undefined): { want: string; opposite: string } | undefined {
  if (ready === 'False') return { want: notReadyTaintKey, opposite: unreachableTaintKey };
  if (ready === 'Unknown') return { want: unreachableTaintKey, opposite: notReadyTaintKey };
  return undefined;
}

/** A NoExecute taint this controller owns: not-ready or unreachable. */
export const isControllerNoExecute = (t: corev1.Taint): boolean => t.effect === 'NoExecute' && (t.key === notReadyTaintKey || t.key === unreachableTaintKey);

/** The zones' queues and states of one node lifecycle controller. */
export class NoExecuteTainting {
  private readonly tainters = new Map<string, ZoneTainter>();
  private readonly zoneStates = new Map<string, ZoneState>();
  private readonly timers = new Map<string, { at: number; timer: Timer }>();
  /** Each zone's queue is worked by one pass at a time. */
  private readonly running = new Map<string, Promise<void>>();
  private stopped = false;

  constructor(
    private readonly mgr: Manager,
    private readonly clock: Clock,
    /** Called when every node's grace period starts again (leaving full disruption). */
    private readonly restartGracePeriods: (now: number) => void,
  ) {}

  private tainter(zone: string): ZoneTainter {
    let t = this.tainters.get(zone);
    if (!t) this.tainters.set(zone, (t = new ZoneTainter()));
    return t;
  }

  /** kube's markNodeForTainting: queues the node in its zone; then lets the zone's queue go as far as its rate allows. */
  mark(node: NodeObject): void {
    const zone = zoneKey(node);
    const t = this.tainter(zone);
    if (!t.has(node.metadata.name!)) t.add(node.metadata.name!);
    this.kick(zone);
  }

  /** kube's markNodeAsReachable, for the queue: the node no longer waits for a taint. */
  forget(node: NodeObject): void {
    this.tainters.get(zoneKey(node))?.remove(node.metadata.name!);
  }

  /** Once the manager stops: no more passes, no timers left. */
  stop(): void {
    this.stopped = true;
    for (const { timer } of this.timers.values()) timer.cancel();
    this.timers.clear();
  }

  /** Works the zone's queue now (after any pass under way). */
  private kick(zone: string): void {
    if (this.stopped) return;
    const previous = this.running.get(zone) ?? Promise.resolve();
    const next = previous
      .then(() => this.work(zone))
      .catch((err: unknown) => this.mgr.logger.error({ err, zone }, 'node lifecycle: NoExecute tainting failed'));
    this.running.set(zone, next);
  }

  /** kube's doNoExecuteTaintingPass for one zone: taints queued nodes while tokens last, then waits for the next token. */
  private async work(zone: string): Promise<void> {
    const t = this.tainter(zone);
    for (;;) {
      const name = t.take(this.clock.now());
      if (name === undefined) break;
      if (!(await this.taint(name))) t.add(name);
    }
    const at = t.nextAt(this.clock.now());
    const pending = this.timers.get(zone);
    if (at === undefined || at === Infinity) {
      pending?.timer.cancel();
      this.timers.delete(zone);
      return;
    }
    if (pending && pending.at <= at) return;
    pending?.timer.cancel();
    if (this.stopped) return;
    const timer = this.clock.setTimer(
      () => {
        this.timers.delete(zone);
        this.kick(zone);
      },
      Math.max(1, at - this.clock.now()),
      { background: true },
    );
    this.timers.set(zone, { at, timer });
  }

  /** The NoExecute taint the node's Ready calls for, the opposite one gone; whether that is done (false: try again). */
  private async taint(name: string): Promise<boolean> {
    // As kube's SwapNodeControllerTaint: read afresh and try again when another write came first.
    for (let attempt = 0; attempt < 5; attempt++) {
      const node = (await this.mgr.client.get(Node, name).catch(ignoreNotFound)) as NodeObject | undefined;
      if (!node) return true;
      const keys = noExecuteKeys(readyStatusOf(node));
      // Ready again (or no Ready condition yet): nothing to add.
      if (!keys) return true;
      const taints = node.spec?.taints ?? [];
      if (taints.some((x) => x.effect === 'NoExecute' && x.key === keys.want)) return true;
      const next = [...taints.filter((x) => !(x.effect === 'NoExecute' && x.key === keys.opposite)), { key: keys.want, effect: 'NoExecute', timeAdded: rfc3339(this.clock.now()) }];
      try {
        await this.mgr.client.update(Node, { ...node, spec: { ...node.spec, taints: next } } as NodeObject);
        return true;
      } catch (err) {
        if (!isConflict(err)) throw err;
      }
    }
    return false;
  }

  /**
   * kube's handleDisruption, run every node monitor period: each zone's state
   * from its nodes' Ready conditions (nodes labelled
   * node.kubernetes.io/exclude-disruption aside), and from the states the
   * zones' rates, or the full-disruption mode.
   */
  async handleDisruption(): Promise<void> {
    const now = this.clock.now();
    const nodes = (await this.mgr.client.list(Node, { unsafeDisableDeepCopy: true })).items as NodeObject[];
    const byZone = new Map<string, (string | undefined)[]>();
    for (const node of nodes) {
      const zone = zoneKey(node);
      const tainter = this.tainter(zone);
      // kube's processTaintBaseEviction at each monitor pass: a node not Ready without its NoExecute taint waits
      // in its zone's queue (again, if leaving full disruption took it off).
      const keys = noExecuteKeys(readyStatusOf(node));
      if (keys && !(node.spec?.taints ?? []).some((x) => x.effect === 'NoExecute' && (x.key === keys.want || x.key === keys.opposite))) tainter.add(node.metadata.name!);
      if (node.metadata.labels?.[excludeDisruptionLabel] !== undefined) continue;
      const list = byZone.get(zone) ?? [];
      list.push(readyStatusOf(node));
      byZone.set(zone, list);
    }
    const newStates = new Map<string, ZoneState>();
    let allAreFullyDisrupted = true;
    for (const [zone, statuses] of byZone) {
      const state = computeZoneState(statuses);
      if (state !== 'FullDisruption') allAreFullyDisrupted = false;
      newStates.set(zone, state);
      if (!this.zoneStates.has(zone)) this.zoneStates.set(zone, 'Initial');
    }
    try {
      await this.setStates(nodes, byZone, newStates, allAreFullyDisrupted, now);
    } finally {
      for (const zone of this.tainters.keys()) this.kick(zone);
    }
  }

  private async setStates(nodes: NodeObject[], byZone: Map<string, unknown[]>, newStates: Map<string, ZoneState>, allAreFullyDisrupted: boolean, now: number): Promise<void> {
    let allWereFullyDisrupted = true;
    for (const [zone, state] of this.zoneStates) {
      if (!byZone.has(zone)) {
        this.zoneStates.delete(zone);
        continue;
      }
      if (state !== 'FullDisruption') {
        allWereFullyDisrupted = false;
        break;
      }
    }
    if (allAreFullyDisrupted && allWereFullyDisrupted) return;
    if (allAreFullyDisrupted) {
      // Every node down at once: the controller's own trouble, not the nodes'. No evictions.
      this.mgr.logger.info({}, 'Controller detected that all Nodes are not-Ready. Entering master disruption mode');
      for (const node of nodes) await this.markReachable(node);
      for (const zone of this.zoneStates.keys()) {
        this.tainter(zone).swapLimiter(0, now);
        this.zoneStates.set(zone, 'FullDisruption');
      }
      return;
    }
    if (allWereFullyDisrupted) {
      this.mgr.logger.info({}, 'Controller detected that some Nodes are Ready. Exiting master disruption mode');
      this.restartGracePeriods(now);
      for (const zone of this.zoneStates.keys()) this.setZone(zone, byZone.get(zone)!.length, newStates.get(zone)!, now);
      return;
    }
    for (const [zone, state] of this.zoneStates) {
      const next = newStates.get(zone)!;
      if (state !== next) this.setZone(zone, byZone.get(zone)!.length, next, now);
    }
  }

  private setZone(zone: string, size: number, state: ZoneState, now: number): void {
    this.tainter(zone).swapLimiter(zoneQps(state, size), now);
    this.zoneStates.set(zone, state);
    this.kick(zone);
  }

  /** kube's markNodeAsReachable: the node's NoExecute not-ready and unreachable taints go, and it leaves its queue. */
  private async markReachable(node: NodeObject): Promise<void> {
    this.forget(node);
    const taints = node.spec?.taints ?? [];
    if (!taints.some(isControllerNoExecute)) return;
    // As kube's RemoveTaintOffNode: read afresh and try again when another write came first.
    for (let attempt = 0; attempt < 5; attempt++) {
      const fresh = (await this.mgr.client.get(Node, node.metadata.name!).catch(ignoreNotFound)) as NodeObject | undefined;
      if (!fresh || !(fresh.spec?.taints ?? []).some(isControllerNoExecute)) return;
      const kept = (fresh.spec?.taints ?? []).filter((x) => !isControllerNoExecute(x));
      try {
        await this.mgr.client.update(Node, { ...fresh, spec: { ...fresh.spec, taints: kept.length ? kept : undefined } } as NodeObject);
        return;
      } catch (err) {
        if (!isConflict(err)) throw err;
      }
    }
  }
}

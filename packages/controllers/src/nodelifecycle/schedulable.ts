/**
 * When a new simulated cluster's nodes can take pods. The API server gives
 * every new Node the not-ready NoSchedule taint (TaintNodesAtCreation), and
 * the node lifecycle controller takes it off once it sees the node Ready; a
 * cluster that said it was ready before that would put the first pods on
 * whichever node lost its taint first. So the cluster waits for it, as kind
 * waits for its nodes to be Ready.
 */
import { Node, type Manager } from '@operant/runtime';
import { isTombstone } from '@operant/runtime/cache';
import type { NodeObject } from '../objects.js';
import { notReadyTaintKey, readyStatusOf } from './noexecute-tainting.js';

/** How long to wait at most: a busy machine's controller may be late, but the cluster runs anyway. */
const limitMs = 10_000;

/** Whether the node still waits for the node lifecycle controller: Ready, yet tainted not-ready. */
function waiting(node: NodeObject): boolean {
  return readyStatusOf(node) === 'True' && (node.spec?.taints ?? []).some((t) => t.key === notReadyTaintKey && t.effect === 'NoSchedule');
}

/**
 * Resolves once none of the nodes `names` is Ready and still tainted
 * not-ready, as the manager's Node informer (the controllers' own) sees them;
 * a node that is not Ready is not waited for. Gives up after 10 s.
 */
export function nodesSchedulable(manager: Manager, names: readonly string[]): Promise<void> {
  const pending = new Set(names);
  if (pending.size === 0) return Promise.resolve();
  return new Promise<void>((resolve) => {
    let done = false;
    let registration: { remove(): void } | undefined;
    const timer = setTimeout(() => finish(), limitMs);
    timer.unref();
    function finish(): void {
      if (done) return;
      done = true;
      clearTimeout(timer);
      registration?.remove();
      resolve();
    }
    const seen = (node: NodeObject): void => {
      const name = node.metadata.name ?? '';
      if (!pending.has(name) || waiting(node)) return;
      pending.delete(name);
      if (pending.size === 0) finish();
    };
    registration = manager.informers.informerFor(Node).addEventHandler({
      add: (n) => seen(n as NodeObject),
      update: (_old, n) => seen(n as NodeObject),
      delete: (n) => {
        const name = (isTombstone(n) ? n.lastKnown : n).metadata.name;
        if (name && pending.delete(name) && pending.size === 0) finish();
      },
    });
    if (done) registration.remove();
  });
}

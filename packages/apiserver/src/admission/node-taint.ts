/**
 * kube's TaintNodesAtCreation admission plugin (plugin/pkg/admission/nodetaint):
 * every Node is created with the `node.kubernetes.io/not-ready` NoSchedule
 * taint, so that no pod is scheduled onto it before the node lifecycle
 * controller has seen it Ready and taken the taint away
 * (TaintNodesByCondition). Without it a new node could take pods for the
 * moment between its registration and the controller's first pass.
 */
import type { KubeObject } from '@operant/apimachinery';

type Json = Record<string, unknown>;

/** The taint kube's plugin adds (its TaintNodeNotReady, effect NoSchedule). */
export const notReadyNoScheduleTaint: Readonly<{ key: string; effect: string }> = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' };

/**
 * Adds the not-ready NoSchedule taint to a Node being created, unless it
 * already has a taint of that key and effect (kube's MatchTaint: value and
 * timeAdded do not count). The taint goes at the end of the list.
 */
export function admitNodeTaints(node: KubeObject): void {
  const spec = (node.spec ??= {}) as Json;
  const taints = Array.isArray(spec.taints) ? (spec.taints as Json[]) : [];
  const { key, effect } = notReadyNoScheduleTaint;
  if (taints.some((t) => t !== null && typeof t === 'object' && t.key === key && t.effect === effect)) return;
  spec.taints = [...taints, { key, effect }];
}

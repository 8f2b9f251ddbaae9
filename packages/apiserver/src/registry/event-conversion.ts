/**
 * events.k8s.io/v1 Events are stored as core/v1 Events, as kube-apiserver
 * stores them, so `kubectl describe` (which reads core events) shows what
 * operators record through the newer API, and the other way round.
 */
import type { KubeObject } from '@operant/apimachinery';
import type { StorageConversion } from './resource-store.js';

/** events.k8s.io/v1 field ↔ core/v1 field. */
const renames: Array<[string, string]> = [
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];

function rename(obj: KubeObject, apiVersion: string, from: 0 | 1): KubeObject {
  const to = from === 0 ? 1 : 0;
  const out: Record<string, unknown> = {};
  const map = new Map(renames.map((r) => [r[from], r[to]]));
  for (const [k, v] of Object.entries(obj)) out[map.get(k) ?? k] = v;
  out.apiVersion = apiVersion;
  out.kind = 'Event';
  return out as KubeObject;
}

/** An events.k8s.io/v1 Event in its core/v1 shape. */
export function eventToCore(obj: KubeObject): KubeObject {
  return rename(obj, 'v1', 0);
}

export const eventsV1Conversion: StorageConversion = {
  storedAs: { apiVersion: 'v1', kind: 'Event' },
  toStorage: (objs) => objs.map(eventToCore),
  fromStorage: (objs) => objs.map((o) => rename(o, 'events.k8s.io/v1', 1)),
};

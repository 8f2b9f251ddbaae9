/**
 * `count/<resource>[.<group>]` of kinds the resourcequota controller does not
 * watch: other built-in namespaced kinds, and custom resources (found by
 * their CRD). kube's controller watches every resource; here they are
 * listed (metadata only, from the server) when a quota that limits them is
 * synced; `monitor` is told each kind found, so that its deletions re-queue
 * the quotas (count-monitor.ts).
 */
import {
  ControllerRevision,
  Endpoints,
  EndpointSlice,
  Lease,
  PodDisruptionBudget,
  Role,
  RoleBinding,
  ServiceAccount,
  type Client,
  type Kind,
} from '@operant/runtime';
import { customResourceKind } from '../custom-kinds.js';

/** Built-in namespaced kinds counted by listing. */
const listedKinds: readonly Kind[] = [Endpoints, ServiceAccount, ControllerRevision, PodDisruptionBudget, EndpointSlice, Lease, Role, RoleBinding];

/** The group and resource a `count/` name names, or undefined for another name. */
function countTarget(name: string): { group: string; resource: string } | undefined {
  if (!name.startsWith('count/')) return undefined;
  const rest = name.slice('count/'.length);
  const dot = rest.indexOf('.');
  return dot < 0 ? { group: '', resource: rest } : { group: rest.slice(dot + 1), resource: rest.slice(0, dot) };
}

/** The Kind to list for a `count/` name: a listed built-in, or a namespaced custom resource in its storage version. */
async function kindToCount(client: Client, name: string): Promise<Kind | undefined> {
  const target = countTarget(name);
  if (!target) return undefined;
  const builtin = listedKinds.find((k) => k.group === target.group && k.plural === target.resource);
  if (builtin) return builtin;
  return customResourceKind(client, { group: target.group, plural: target.resource });
}

/**
 * How many objects each of `names` (count/ names no watched kind counts)
 * has in `namespace`; `monitor` is given the kind of each. Names of no known kind, or whose list fails (a CRD
 * just deleted), are left out, as kube leaves out what it could not count.
 */
export async function listedObjectCounts(
  client: Client,
  namespace: string,
  names: readonly string[],
  monitor: (kind: Kind) => void = () => undefined,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of names) {
    try {
      const kind = await kindToCount(client, name);
      if (!kind) continue;
      monitor(kind);
      const list = await client.withoutCache().list(kind, { namespace, metadataOnly: true });
      out[name] = String(list.items.length);
    } catch {
      continue;
    }
  }
  return out;
}

/**
 * The served resources: what discovery lists and what each URL's
 * group/version/resource is routed to. CRDs add and remove entries at run time.
 */
import type { ResourceInfo } from './resource-info.js';
import type { ResourceStore } from './resource-store.js';

export class ResourceCatalog {
  private readonly byGvr = new Map<string, ResourceStore>();
  private readonly listeners = new Set<() => void>();

  add(rs: ResourceStore): void {
    this.byGvr.set(gvrKey(rs.info.group, rs.info.version, rs.info.resource), rs);
    for (const l of this.listeners) l();
  }

  remove(group: string, version: string, resource: string): void {
    if (this.byGvr.delete(gvrKey(group, version, resource))) for (const l of this.listeners) l();
  }

  lookup(group: string, version: string, resource: string): ResourceStore | undefined {
    return this.byGvr.get(gvrKey(group, version, resource));
  }

  /** The first served version of a group/resource (the one its owners and GC address it by). */
  lookupAnyVersion(group: string, resource: string): ResourceStore | undefined {
    for (const rs of this.byGvr.values()) if (rs.info.group === group && rs.info.resource === resource) return rs;
    return undefined;
  }

  /** The store for objects of a kind given as apiVersion + kind (as in ownerReferences). */
  lookupKind(group: string, version: string, kind: string): ResourceStore | undefined {
    let fallback: ResourceStore | undefined;
    for (const rs of this.byGvr.values()) {
      if (rs.info.group !== group || rs.info.kind !== kind || rs.info.virtual) continue;
      if (rs.info.version === version) return rs;
      fallback ??= rs;
    }
    return fallback;
  }

  /** Every served resource, in registration order. */
  infos(): ResourceInfo[] {
    return [...this.byGvr.values()].map((rs) => rs.info);
  }

  stores(): ResourceStore[] {
    return [...this.byGvr.values()];
  }

  /** Called whenever the set of served resources changes (discovery and OpenAPI caches). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

function gvrKey(group: string, version: string, resource: string): string {
  return `${group}/${version}/${resource}`;
}

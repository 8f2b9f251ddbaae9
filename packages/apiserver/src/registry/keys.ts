/** Storage keys: `/<group or core>/<resource>/<namespace>/<name>`, or without the namespace for cluster-scoped kinds. */
import type { ResourceInfo } from './resource-info.js';

/** The storage location of a resource; two served resources may share one (core and events.k8s.io events). */
export interface StorageLocation {
  group: string;
  resource: string;
}

export function resourcePrefix(loc: StorageLocation): string {
  return `/${loc.group || 'core'}/${loc.resource}/`;
}

/** The prefix to list: one namespace, or all of them when `namespace` is empty. */
export function listPrefix(loc: StorageLocation, info: ResourceInfo, namespace: string): string {
  return info.namespaced && namespace ? `${resourcePrefix(loc)}${namespace}/` : resourcePrefix(loc);
}

export function objectKey(loc: StorageLocation, info: ResourceInfo, namespace: string, name: string): string {
  return info.namespaced ? `${resourcePrefix(loc)}${namespace}/${name}` : `${resourcePrefix(loc)}${name}`;
}

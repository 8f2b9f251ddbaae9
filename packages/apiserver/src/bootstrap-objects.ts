/**
 * The bootstrap objects of a new store (default RBAC policy, PriorityClasses,
 * initial namespaces, priority-and-fairness configuration, the `kubernetes`
 * Service and its endpoints) as the server's full create path stores them,
 * computed ahead of time by scripts/gen-bootstrap-objects.ts into
 * bootstrap-objects.json: defaulted, with their managedFields and Go's
 * encoding of zero values, in the order of creation. What differs between two
 * starts is left empty there (uid, creationTimestamp, resourceVersion, each
 * managedFields entry's time, each status condition's lastTransitionTime) and
 * filled in by the write; the `kubernetes` objects also get the server's
 * address ({@link fillKubernetesAddress}). The controllers' writes that follow
 * on a new store come with them, so that their first passes find nothing to do.
 * A start then stores them without building or preparing any of them.
 * bootstrap-objects.test.ts proves the file equal to what the write path
 * stores now, and bootstrap.test.ts compares both ways byte for byte.
 */
import { readFileSync } from 'node:fs';
import type { KubeObject } from '@operant/apimachinery';

/** One object of the file and the resource that stores it. */
export interface PrecomputedObject {
  group: string;
  version: string;
  resource: string;
  object: KubeObject;
}

/**
 * The file's three parts: the bootstrap objects proper; the `kubernetes` Service, Endpoints and
 * EndpointSlice; and what the server's own controllers then write on a new store, in order (each
 * namespace's default ServiceAccount, each built-in group version's APIService, the FlowSchemas'
 * Dangling conditions), a create or a later version of a stored object.
 */
export interface PrecomputedBootstrap {
  objects: PrecomputedObject[];
  kubernetes: PrecomputedObject[];
  controllerWrites: PrecomputedObject[];
}

let text: string | undefined;

/** A fresh copy of the file's objects: the store keeps (and freezes) what it is given, and a process may start many servers. */
export function precomputedBootstrap(): PrecomputedBootstrap {
  text ??= readFileSync(new URL('./bootstrap-objects.json', import.meta.url), 'utf8');
  return JSON.parse(text) as PrecomputedBootstrap;
}

/**
 * Sets the time of each status condition the file left empty (an APIService's
 * Available, a FlowSchema's Dangling), as the write that made it stamped it.
 */
export function fillConditionTimes(object: KubeObject, time: string): void {
  const conditions = (object.status as { conditions?: Array<{ lastTransitionTime?: string }> } | undefined)?.conditions;
  for (const condition of conditions ?? []) if (condition.lastTransitionTime === '') condition.lastTransitionTime = time;
}

/**
 * Points the `kubernetes` Service (its target port), Endpoints and
 * EndpointSlice at the server: every field of them that depends on its
 * address, where the objects of ensureKubernetesService put it.
 */
export function fillKubernetesAddress(objects: readonly PrecomputedObject[], host: string, port: number): void {
  for (const { resource, object } of objects) {
    if (resource === 'services') (object as unknown as KubernetesService).spec.ports[0].targetPort = port;
    else if (resource === 'endpoints') {
      const subset = (object as unknown as KubernetesEndpoints).subsets[0];
      subset.addresses[0].ip = host;
      subset.ports[0].port = port;
    } else if (resource === 'endpointslices') {
      const slice = object as unknown as KubernetesEndpointSlice;
      slice.addressType = kubernetesAddressType(host);
      slice.endpoints[0].addresses[0] = host;
      slice.ports[0].port = port;
    } else throw new Error(`bootstrap-objects.json: no address to fill in ${resource}`);
  }
}

interface KubernetesService {
  spec: { ports: Array<{ targetPort: number }> };
}
interface KubernetesEndpoints {
  subsets: Array<{ addresses: Array<{ ip: string }>; ports: Array<{ port: number }> }>;
}
interface KubernetesEndpointSlice {
  addressType: string;
  endpoints: Array<{ addresses: string[] }>;
  ports: Array<{ port: number }>;
}

/**
 * The EndpointSlice's address type for the host the server listens on: only an IPv6 address holds
 * a colon (net.isIPv6 compiles a large regular expression at its first call, a few milliseconds of
 * every start).
 */
export function kubernetesAddressType(host: string): 'IPv4' | 'IPv6' {
  return host.includes(':') ? 'IPv6' : 'IPv4';
}

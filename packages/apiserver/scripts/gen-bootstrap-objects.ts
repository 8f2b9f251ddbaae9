/**
 * Generates `src/bootstrap-objects.json`: the bootstrap objects (default RBAC
 * policy, PriorityClasses, initial namespaces, priority-and-fairness
 * configuration, the `kubernetes` Service and its endpoints) as the server's
 * full create path stores them, in the order of creation, with what differs
 * between two starts left empty (uid, creationTimestamp, resourceVersion, each
 * managedFields entry's time) and the `kubernetes` objects pointed at
 * 127.0.0.1:0; then what the server's own controllers write next on a new
 * store (autoregister's APIServices, the FlowSchemas' Dangling conditions, the
 * default ServiceAccounts), each write in its order, with the same
 * fields emptied and each status condition's lastTransitionTime. A start on a
 * new store then stores them as they are (see src/bootstrap-objects.ts).
 *
 * Source: an in-memory server started with `bootstrapWrites: 'full'`, once its
 * controllers are done, whose watch history holds every write since the store
 * was new. Run it
 * after changing a bootstrap object or the write path that stores them
 * (bootstrap-objects.test.ts fails until then):
 *
 *   node --conditions=source --import tsx packages/apiserver/scripts/gen-bootstrap-objects.ts
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { KubeObject } from '@operant/apimachinery';
import type { ManagedFieldsEntry } from '@operant/apimachinery/managedfields';
import { startApiServer } from '../src/server.js';
import { fillKubernetesAddress, type PrecomputedBootstrap, type PrecomputedObject } from '../src/bootstrap-objects.js';

/** The resources that hold the bootstrap objects, and only those on a new server. */
const bootstrapResources = [
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles' },
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings' },
  { group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses' },
  { group: '', version: 'v1', resource: 'namespaces' },
  { group: 'flowcontrol.apiserver.k8s.io', version: 'v1', resource: 'prioritylevelconfigurations' },
  { group: 'flowcontrol.apiserver.k8s.io', version: 'v1', resource: 'flowschemas' },
];
/** The `kubernetes` Service, Endpoints and EndpointSlice in `default`, written right after listening. */
const kubernetesResources = [
  { group: '', version: 'v1', resource: 'services' },
  { group: '', version: 'v1', resource: 'endpoints' },
  { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices' },
];

/** What the server's own controllers write on a new store after the `kubernetes` objects, besides resources above: each namespace's `default` ServiceAccount, autoregister's APIServices (the FlowSchema status controller writes to a resource above). */
const controllerResources = [
  { group: '', version: 'v1', resource: 'serviceaccounts' },
  { group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices' },
];

type WatchEvent = { type: string; object: KubeObject };
type Resource = (typeof bootstrapResources)[number];
type Seen = PrecomputedObject & { type: string; rev: number };

/** How kube orders managedFields entries of the same second (encodeManagedFields): operation, manager, apiVersion, subresource. */
export function sameSecondOrder(p: ManagedFieldsEntry, q: ManagedFieldsEntry): number {
  const cmp = (a = '', b = ''): number => (a < b ? -1 : a > b ? 1 : 0);
  return cmp(p.operation, q.operation) || cmp(p.manager, q.manager) || cmp(p.apiVersion, q.apiVersion) || cmp(p.subresource, q.subresource);
}

const timePattern = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/;

/**
 * The bootstrap objects as the full create path stored them, in the order of
 * creation (by resourceVersion), and what the server's controllers wrote next,
 * with uids, times and revisions emptied. Read from watches from the first
 * revision, once the controllers are done: the revisions they replay must be
 * every revision the store issued, so that no write goes unrecorded.
 */
export async function computeBootstrapObjects(): Promise<PrecomputedBootstrap> {
  const server = await startApiServer({ port: 0, insecureHttp: true, bootstrapWrites: 'full' });
  const get = async (path: string): Promise<string> => {
    const res = await fetch(`${server.url}${path}`, { headers: { Authorization: `Bearer ${server.adminToken}` } });
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    return res.text();
  };
  try {
    // The controllers' passes start on timers after the start and write in a burst: done once the revision stays put.
    const revision = async (): Promise<number> => Number((JSON.parse(await get('/api/v1/namespaces?limit=1')) as KubeObject).metadata.resourceVersion);
    let last = await revision();
    for (let still = 0, tries = 0; still < 4; tries++) {
      if (tries > 200) throw new Error('the server kept writing after its start');
      await new Promise((resolve) => setTimeout(resolve, 50));
      const now = await revision();
      still = now === last ? still + 1 : 0;
      last = now;
    }
    const events = async ({ group, version, resource }: Resource): Promise<Seen[]> => {
      const path = group ? `/apis/${group}/${version}/${resource}` : `/api/${version}/${resource}`;
      // The watch replays the history from revision 1 and ends after a second.
      const lines = (await get(`${path}?watch=1&resourceVersion=1&timeoutSeconds=1`)).split('\n').filter(Boolean);
      return lines.map((line) => {
        const { type, object } = JSON.parse(line) as WatchEvent;
        return { group, version, resource, object, type, rev: Number(object.metadata.resourceVersion) };
      });
    };
    const all = (await Promise.all([...bootstrapResources, ...kubernetesResources, ...controllerResources].map(events))).flat().sort((a, b) => a.rev - b.rev);
    const revs = all.map((e) => e.rev);
    // Revision 1 is the new store's; each write took the next one.
    if (revs.length !== last - 1 || revs.some((rev, i) => rev !== i + 2)) {
      throw new Error(`the watches saw revisions ${revs.join(',')} of 2..${last}: a write to a resource not watched here`);
    }
    const isKubernetes = (e: Seen): boolean => kubernetesResources.some((r) => r.resource === e.resource && r.group === e.group);
    const firstKubernetes = all.findIndex(isKubernetes);
    const afterKubernetes = firstKubernetes + kubernetesResources.length;
    if (firstKubernetes < 0 || !all.slice(firstKubernetes, afterKubernetes).every((e) => isKubernetes(e) && e.type === 'ADDED')) {
      throw new Error('the kubernetes Service, Endpoints and EndpointSlice were not written one after another');
    }
    const uids = new Map<string, string>();
    const keyOf = (e: Seen): string => `${e.group}/${e.resource}/${e.object.metadata.namespace ?? ''}/${e.object.metadata.name}`;
    for (const e of all) {
      const meta = e.object.metadata;
      const name = keyOf(e);
      if (e.type !== 'ADDED' && e.type !== 'MODIFIED') throw new Error(`${name}: ${e.type} at start`);
      // Only the default ServiceAccounts, made by the server's namespace controller, come without them.
      if (!meta.managedFields?.length && e.resource !== 'serviceaccounts') throw new Error(`${name}: stored without managedFields`);
      if (e.type === 'ADDED') uids.set(name, meta.uid!);
      else if (uids.get(name) !== meta.uid) throw new Error(`${name}: a later version of an object not created before`);
      for (const field of ['uid', 'creationTimestamp', 'resourceVersion'] as const) {
        if (typeof meta[field] !== 'string') throw new Error(`${name}: no metadata.${field}`);
        meta[field] = '';
      }
      for (const entry of meta.managedFields ?? []) entry.time = '';
      // A start stamps every entry with one time: kube's order of entries within a second (a later
      // write in the next second came after the others here).
      meta.managedFields?.sort(sameSecondOrder);
      for (const condition of (e.object.status as { conditions?: Array<{ lastTransitionTime?: string }> } | undefined)?.conditions ?? []) {
        if (condition.lastTransitionTime !== undefined) condition.lastTransitionTime = '';
      }
      // A start fills in only the times emptied above.
      if (timePattern.test(JSON.stringify(e.object))) throw new Error(`${name}: a time the start would not fill in`);
    }
    const strip = (seen: Seen[]): PrecomputedObject[] => seen.map(({ rev: _rev, type: _type, ...o }) => o);
    const objects = all.slice(0, firstKubernetes);
    if (objects.some((e) => e.type !== 'ADDED')) throw new Error('a bootstrap object changed before the kubernetes Service was written');
    for (const { resource } of bootstrapResources) if (!objects.some((e) => e.resource === resource)) throw new Error(`no ${resource} on a new server`);
    const kubernetes = strip(all.slice(firstKubernetes, afterKubernetes));
    // The file does not depend on the port the generating server listened on.
    fillKubernetesAddress(kubernetes, '127.0.0.1', 0);
    return { objects: strip(objects), kubernetes, controllerWrites: strip(all.slice(afterKubernetes)) };
  } finally {
    await server.stop();
  }
}

/** The file's text: one object per line, so that a change in one bootstrap object is a one-line diff. */
export function bootstrapObjectsText(table: PrecomputedBootstrap): string {
  const part = (objects: PrecomputedObject[]): string => objects.map((o) => `    ${JSON.stringify(o)}`).join(',\n');
  return `{\n  "objects": [\n${part(table.objects)}\n  ],\n  "kubernetes": [\n${part(table.kubernetes)}\n  ],\n  "controllerWrites": [\n${part(table.controllerWrites)}\n  ]\n}\n`;
}

export const bootstrapObjectsFile = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'bootstrap-objects.json');

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const table = await computeBootstrapObjects();
  writeFileSync(bootstrapObjectsFile, bootstrapObjectsText(table));
  console.log(`wrote ${table.objects.length + table.kubernetes.length} bootstrap objects and ${table.controllerWrites.length} controller writes to ${bootstrapObjectsFile}`);
}

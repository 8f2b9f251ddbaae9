/**
 * Generates `src/bootstrap-objects.json`: the bootstrap objects (default RBAC
 * policy, PriorityClasses, initial namespaces, priority-and-fairness
 * configuration, the `kubernetes` Service and its endpoints) as the server's
 * full create path stores them, in the order of creation, with what differs
 * between two starts left empty (uid, creationTimestamp, resourceVersion, each
 * managedFields entry's time) and the `kubernetes` objects pointed at
 * 127.0.0.1:0. A start on a new store then stores them as they are (see
 * src/bootstrap-objects.ts).
 *
 * Source: an in-memory server started with `bootstrapWrites: 'full'`, whose
 * watch history holds each bootstrap object as it was created (before the
 * built-in controllers, such as ClusterRole aggregation, change any). Run it
 * after changing a bootstrap object or the write path that stores them
 * (bootstrap-objects.test.ts fails until then):
 *
 *   node --conditions=source --import tsx packages/apiserver/scripts/gen-bootstrap-objects.ts
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { KubeObject } from '@operant/apimachinery';
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

type WatchEvent = { type: string; object: KubeObject };

/**
 * The bootstrap objects as the full create path stored them, in the order of
 * creation (by resourceVersion): each object's first ADDED event in a watch
 * from the first revision, with uids, times and revisions emptied.
 */
export async function computeBootstrapObjects(): Promise<PrecomputedBootstrap> {
  const server = await startApiServer({ port: 0, insecureHttp: true, bootstrapWrites: 'full' });
  try {
    const created = async (resources: typeof bootstrapResources): Promise<PrecomputedObject[]> => {
      const found: Array<PrecomputedObject & { rev: number }> = [];
      for (const { group, version, resource } of resources) {
        const path = group ? `/apis/${group}/${version}/${resource}` : `/api/${version}/${resource}`;
        // The watch replays the history from revision 1 and ends after a second.
        const res = await fetch(`${server.url}${path}?watch=1&resourceVersion=1&timeoutSeconds=1`, { headers: { Authorization: `Bearer ${server.adminToken}` } });
        if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
        const seen = new Set<string>();
        for (const line of (await res.text()).split('\n')) {
          if (!line) continue;
          const { type, object } = JSON.parse(line) as WatchEvent;
          const meta = object.metadata;
          const name = `${meta.namespace ?? ''}/${meta.name}`;
          if (type !== 'ADDED' || seen.has(name)) continue;
          seen.add(name);
          if (!meta.managedFields?.length) throw new Error(`${resource} ${name}: created without managedFields`);
          const rev = Number(meta.resourceVersion);
          for (const field of ['uid', 'creationTimestamp', 'resourceVersion'] as const) {
            if (typeof meta[field] !== 'string') throw new Error(`${resource} ${name}: no metadata.${field}`);
            meta[field] = '';
          }
          for (const entry of meta.managedFields) entry.time = '';
          found.push({ group, version, resource, object, rev });
        }
        if (!seen.size) throw new Error(`no ${resource} on a new server`);
      }
      return found.sort((a, b) => a.rev - b.rev).map(({ rev: _rev, ...o }) => o);
    };
    const objects = await created(bootstrapResources);
    const kubernetes = await created(kubernetesResources);
    // The file does not depend on the port the generating server listened on.
    fillKubernetesAddress(kubernetes, '127.0.0.1', 0);
    return { objects, kubernetes };
  } finally {
    await server.stop();
  }
}

/** The file's text: one object per line, so that a change in one bootstrap object is a one-line diff. */
export function bootstrapObjectsText(table: PrecomputedBootstrap): string {
  const part = (objects: PrecomputedObject[]): string => objects.map((o) => `    ${JSON.stringify(o)}`).join(',\n');
  return `{\n  "objects": [\n${part(table.objects)}\n  ],\n  "kubernetes": [\n${part(table.kubernetes)}\n  ]\n}\n`;
}

export const bootstrapObjectsFile = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'bootstrap-objects.json');

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const table = await computeBootstrapObjects();
  writeFileSync(bootstrapObjectsFile, bootstrapObjectsText(table));
  console.log(`wrote ${table.objects.length + table.kubernetes.length} bootstrap objects to ${bootstrapObjectsFile}`);
}
